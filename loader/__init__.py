"""The pipeline: firmware -> files -> ELF facts -> link maps -> bindings -> graph store."""
