"""What the kernel-module stage reads and produces: plain dataclasses and enums."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..model import Status

KERNEL = "vmlinux"  # the provider name of the kernel's own exports (as Module.symvers writes it)
# The longest symbol name the kernel keeps (include/linux/kallsyms.h KSYM_NAME_LEN, 512 since
# 6.1, 128 before, NUL included): a longer run of bytes is not a symbol's name.
KSYM_NAME_LEN = 512


class ExportKind(enum.StrEnum):
    """How a symbol is exported, spelled as ``Module.symvers`` spells it (scripts/mod/modpost.c)."""

    PLAIN = "EXPORT_SYMBOL"
    GPL = "EXPORT_SYMBOL_GPL"
    GPL_FUTURE = "EXPORT_SYMBOL_GPL_FUTURE"  # removed in Linux 5.13; loads with a warning
    UNUSED = "EXPORT_UNUSED_SYMBOL"  # removed in Linux 5.13
    UNUSED_GPL = "EXPORT_UNUSED_SYMBOL_GPL"

    @property
    def gpl_only(self) -> bool:
        """The module loader lets only GPL-compatible modules bind to it."""
        return self in (ExportKind.GPL, ExportKind.UNUSED_GPL)


class Layout(enum.StrEnum):
    """Where a module's export table says which exports are GPL-only."""

    SECTIONS = "sections"  # __ksymtab, __ksymtab_gpl (and _gpl_future, _unused...): one per kind
    FLAGS = "flags"  # one __ksymtab with a flag byte per entry in __kflagstab (KSYM_FLAG_GPL_ONLY)
    NONE = "none"  # no export table


class KernelSource(enum.StrEnum):
    """Where the kernel's own exports were read from, in the order they are tried."""

    SYMVERS = "Module.symvers"
    VMLINUX = "vmlinux"
    IMAGE = "kernel-image"  # a raw kernel image, ksymtab/kallsyms recovered
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Export:
    name: str
    kind: ExportKind
    namespace: str = ""


@dataclass(frozen=True, slots=True)
class Undefined:
    name: str
    weak: bool


@dataclass(slots=True)
class KernelModule:
    """One kernel module file as the module loader and depmod read it."""

    path: str  # the path in the root
    name: str  # .modinfo name=, else the file name without its suffixes, '-' as '_'
    licence: str | None  # the first .modinfo license= (the one the kernel reads)
    depends: list[str] = field(default_factory=list)  # .modinfo depends=, normalised names
    vermagic: str | None = None
    undefined: list[Undefined] = field(default_factory=list)
    exports: list[Export] = field(default_factory=list)
    layout: Layout = Layout.NONE
    compression: str | None = None  # "xz", "gzip", "zstd" when the file was compressed


@dataclass(slots=True)
class KernelExports:
    """The kernel's own exports, and where (and whether) they were found."""

    source: KernelSource
    exports: dict[str, ExportKind] = field(default_factory=dict)
    path: str | None = None  # the file they came from
    detail: str = ""  # why not, or what was recovered


@dataclass(frozen=True, slots=True)
class BoundSymbol:
    name: str
    kind: ExportKind

    @property
    def gpl_only(self) -> bool:
        return self.kind.gpl_only


@dataclass(slots=True)
class ModuleEdge:
    """module -> module (``target`` a module path) or module -> kernel (``target`` is KERNEL)."""

    source: str  # module path
    target: str  # module path, or KERNEL, or a depends= name nothing in the root provides
    status: Status  # used / declared-unused / hidden; missing for a depends= with no module
    symbols: list[BoundSymbol] = field(default_factory=list)

    @property
    def gpl_only(self) -> list[str]:
        return [s.name for s in self.symbols if s.gpl_only]


@dataclass(slots=True)
class KernelGraph:
    modules: list[KernelModule]
    kernel: KernelExports
    edges: list[ModuleEdge] = field(default_factory=list)
    unresolved: dict[str, list[str]] = field(default_factory=dict)  # module path -> symbols


def version_of(path: str) -> str:
    """``/lib/modules/6.1.0/kernel/x.ko`` -> ``6.1.0``; "" outside /lib/modules."""
    parts = path.split("/")
    for i in range(len(parts) - 2):
        if parts[i : i + 2] == ["lib", "modules"] and i + 3 < len(parts):
            return parts[i + 2]
    return ""
