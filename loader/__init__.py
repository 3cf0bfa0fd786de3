"""The write side, one package per stage of the pipeline:

    unpack -> scan (walk, parse: elf) -> ldso (link maps, bindings) -> licences -> store

and ``report``, the framework-free read side both the CLI and the viewer use. The modules here
are the types every stage shares: ``errors``, ``model`` (ELF facts, link maps, bindings),
``problems`` (recorded problems and their codes) and ``rootfs`` (a root as the device sees it).
A stage imports these and the stages before it, never one after it, and never the CLI or the
viewer (tests/test_layout.py checks it).
"""
