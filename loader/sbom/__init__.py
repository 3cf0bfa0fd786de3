"""SBOM writers: the stored graph as SPDX and CycloneDX documents (docs/sbom.md), written entry by
entry as they are read from the store."""
