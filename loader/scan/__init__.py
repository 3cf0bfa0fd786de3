"""The pipeline driver: unpack a target, walk each root, parse its ELF files, build
link maps and bindings, attach licence facts.
"""
