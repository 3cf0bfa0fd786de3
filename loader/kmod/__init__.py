"""Kernel modules as a linked graph (docs/kernel.md).

``ko`` reads one module (``.ko``, ``.ko.xz``, ``.ko.gz``, ``.ko.zst``): its undefined symbols, its
exports (``ksymtab``) and its ``.modinfo``; ``kernel_exports`` finds what the kernel itself
exports (``Module.symvers``, a ``vmlinux`` ELF, or a raw kernel image); ``resolve`` binds every
undefined symbol by the kernel's own rules and gives module -> module and module -> kernel edges
with a status. Nothing here depends on a graph store.
"""
