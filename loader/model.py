"""Shared types of the pipeline: ELF facts, link maps, bindings (problems: ``problems``). Every stage reads
and writes these plain dataclasses; nothing else is shared between stages. Paths are always the canonical
path inside the root as the device sees it (absolute, symlinks resolved within the root)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .problems import Problem, ProblemCode


class Kind(enum.StrEnum):
    EXECUTABLE = "executable"
    LIBRARY = "library"
    KERNEL_MODULE = "kernel-module"
    OTHER_ELF = "other-elf"


class Status(enum.StrEnum):
    """What a dependency edge is (docs/graph.md), shared by every report, query and drawing, in listing order."""

    USED = "used"  # declared in DT_NEEDED, and symbols of the declaring object bind to it
    DECLARED_UNUSED = "declared-unused"  # declared, loaded, and nothing of the declarer binds to it
    HIDDEN = "hidden"  # not declared by the object, yet its symbols bind there (it needs them)
    INTERPOSED = "interposed"  # not declared, and its own dependency tree defines them too (ldso.interposition)
    UPCALL = "upcall"  # not declared, and that module loads the object: it calls back into it (ldso.upcalls)
    MISSING = "missing"  # declared, and no file of the image satisfies it


class Flavour(enum.StrEnum):
    """The C library (and so the dynamic loader) an executable runs under."""

    GLIBC = "glibc"
    MUSL = "musl"
    UCLIBC = "uclibc"


class RelocClass(enum.IntFlag):
    """Relocation type classes, as glibc's ``elf_machine_type_class`` reports them."""

    NORMAL = 0
    PLT = 1  # only JUMP_SLOT-like relocations reference the symbol
    COPY = 2  # a copy relocation: the lookup skips the executable itself


# Symbol binding / type / visibility values (ELF gABI numbers).
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_COMMON, STT_TLS, STT_GNU_IFUNC = 0, 1, 2, 3, 4, 5, 6, 10
STV_DEFAULT, STV_INTERNAL, STV_HIDDEN, STV_PROTECTED = 0, 1, 2, 3
SHN_UNDEF, SHN_ABS = 0, 0xFFF1


class FoundBy(enum.StrEnum):
    """The rule by which the loader found the file of a DT_NEEDED entry (docs/report.md)."""

    RPATH = "rpath"  # a DT_RPATH entry (of ``via``: the requester, an object up the chain, the executable)
    RUNPATH = "runpath"  # the requesting object's DT_RUNPATH
    LD_SO_CACHE = "ld.so.cache"  # /etc/ld.so.cache
    LD_SO_CONF = "ld.so.conf"  # no cache: the directories of /etc/ld.so.conf, as ldconfig would cache them
    MUSL_PATH_FILE = "musl-path-file"  # musl's /etc/ld-musl-ARCH.path
    INTERPRETER_DIR = "interpreter-dir"  # uClibc: the folder of PT_INTERP (LDSO_SEARCH_INTERP_PATH)
    DEFAULT_DIR = "default-dir"  # the loader's compiled-in default directories
    ALREADY_LOADED = "already-loaded"  # no search: an object loaded under that name or soname
    INTERPRETER = "interpreter"  # no search: the loader itself (its soname, musl's reserved names)
    SLASH_NAME = "slash-name"  # a name containing "/", opened as it is
    SLASH_FALLBACK = "slash-fallback"  # uClibc: that failed, the last component was searched for


@dataclass(slots=True)
class DynSymbol:
    """One entry of the dynamic symbol table, with its version resolved to a name."""

    name: str
    bind: int
    type: int
    visibility: int
    shndx: int
    value: int
    version: str | None = None  # version name (definition or requirement), None if unversioned
    version_hidden: bool = False  # the 0x8000 bit of .gnu.version
    version_file: str | None = None  # for a requirement: the file named by the verneed entry
    version_index: int = 1  # .gnu.version index without the hidden bit (0 local, 1 global)
    mips_plt: bool = False  # MIPS STO_MIPS_PLT: an undefined symbol with a canonical PLT address

    @property
    def defined(self) -> bool:
        return self.shndx != SHN_UNDEF


@dataclass(slots=True)
class Reference:
    """A symbol looked up by the loader because a relocation names it."""

    symbol_index: int
    reloc_class: RelocClass


@dataclass(slots=True)
class PrelinkInfo:
    """What glibc's prelink check and a prelinked start read (loader/ldso/prelink.py); kept only for
    objects with DT_GNU_PRELINKED (a prelinked library) or DT_GNU_LIBLIST (a prelinked program)."""

    checksum: int | None  # DT_CHECKSUM
    timestamp: int | None  # DT_GNU_PRELINKED
    liblist: list[tuple[str, int, int]] | None  # DT_GNU_LIBLIST: (l_name, l_time_stamp, l_checksum)
    conflicts: list[tuple[int, int, int]]  # DT_GNU_CONFLICT (Elf_Rela): (r_offset, type, r_addend)
    loads: list[tuple[int, int]]  # PT_LOAD (p_vaddr, p_memsz): where the object sits at its prelinked address
    # every relocation naming a symbol: (symbol index, r_offset, type, slot value in the file or None
    # when the slot is not mapped, r_addend or 0 for REL)
    slots: list[tuple[int, int, int, int | None, int]]


@dataclass(slots=True)
class ElfFacts:
    """What the loader needs to know about one ELF file, from its program headers."""

    path: str
    size: int
    sha256: str
    kind: Kind
    elf_class: int  # 32 or 64
    endian: str  # "little" or "big"
    machine: str  # e_machine as pyelftools names it, e.g. "EM_X86_64"
    osabi: str
    elf_type: str  # ET_EXEC, ET_DYN, ET_REL, ...
    flags: int = 0  # e_flags (MIPS ABI, ARM EABI float ABI)
    ident: bytes = b""  # e_ident, for the loaders' header checks (loader/ldso/header_checks.py)
    version: int = 1  # e_version
    phentsize_ok: bool = True  # e_phentsize is the size of a program header of this class
    interpreter: str | None = None
    soname: str | None = None
    needed: list[str] = field(default_factory=list)
    rpath: list[str] | None = None  # DT_RPATH entries, None when absent
    runpath: list[str] | None = None  # DT_RUNPATH entries, None when absent
    rpath_raw: str | None = None  # the DT_RPATH string as it is (empty entries included)
    runpath_raw: str | None = None  # the DT_RUNPATH string as it is
    dt_flags: int = 0
    dt_flags_1: int = 0
    symbolic: bool = False  # DT_SYMBOLIC or DF_SYMBOLIC
    dynamic: bool = False  # has a PT_DYNAMIC segment
    symbols: Sequence[DynSymbol] = field(default_factory=list)  # read from a file: a dynsym.DynSymbols
    references: list[Reference] = field(default_factory=list)
    has_versym: bool = False  # the object carries a .gnu.version table
    prelink: PrelinkInfo | None = None  # DT_GNU_PRELINKED / DT_GNU_LIBLIST objects only
    sha1: str = ""  # read with the sha256 (elf.facts.Digests)
    modinfo: dict[str, str] = field(default_factory=dict)
    marks: dict[int, int] = field(default_factory=dict)  # PT_GNU_STACK: p_flags, PT_GNU_RELRO, DT_BIND_NOW, DT_TEXTREL
    # (code, message) where the file-level view (p_filesz, p_offset, section headers) disagrees with the loaded one
    anomalies: list[tuple[ProblemCode, str]] = field(default_factory=list)

    def note(self, code: ProblemCode, message: str) -> None:
        """Record an anomaly: the file-level view disagrees with the loaded one."""
        self.anomalies.append((code, message))

    @property
    def nodeflib(self) -> bool:
        return bool(self.dt_flags_1 & 0x800)  # DF_1_NODEFLIB

    @property
    def static(self) -> bool:
        """A statically linked executable: no PT_INTERP, and no dynamic section or a static PIE
        (DF_1_PIE without an interpreter): no loader runs before it, its libraries are inside it."""
        if self.kind is not Kind.EXECUTABLE or self.interpreter is not None:
            return False
        return not self.dynamic or bool(self.dt_flags_1 & 0x08000000)  # DF_1_PIE

    def abi_key(self) -> tuple[int, str, str]:
        """Class, endianness and machine: a library must match these to be loaded."""
        return (self.elf_class, self.endian, self.machine)


@dataclass(slots=True)
class Module:
    """An ELF file found in a root, with the names it is known by."""

    facts: ElfFacts
    root: str  # name of the root filesystem it belongs to
    aliases: list[str] = field(default_factory=list)  # symlinks pointing to it

    @property
    def path(self) -> str:
        return self.facts.path


@dataclass(slots=True)
class NeededEdge:
    """One DT_NEEDED entry and the file the loader picked for it (None: missing), and how:
    ``rule`` (None for a missing name), ``directory`` the folder of the device path found (None:
    missing), ``via`` the object whose DT_RPATH or DT_RUNPATH held it, ``tried`` the device paths
    tried in order, kept only for a missing name (at most ``MAX_TRIED``)."""

    source: str
    soname: str
    target: str | None
    rule: FoundBy | None = None
    directory: str | None = None
    via: str | None = None
    tried: list[str] | None = None


MAX_TRIED = 64  # paths kept in NeededEdge.tried for one missing name


@dataclass(slots=True)
class LinkMap:
    """The objects of one process image in load (breadth-first) order, executable first."""

    executable: str
    flavour: Flavour
    objects: list[str]
    missing: list[str] = field(default_factory=list)
    needed: list[NeededEdge] = field(default_factory=list)


class BindingKey(NamedTuple):
    """A reference of ``module`` to ``symbol`` (at ``version``) bound to ``provider``."""

    module: str
    symbol: str
    version: str | None
    provider: str


class UnresolvedKey(NamedTuple):
    """A reference no object of the link map defines; ``weak`` ones are allowed to stay unbound."""

    module: str
    symbol: str
    version: str | None
    weak: bool


class DuplicateKey(NamedTuple):
    """A symbol defined by more than one object of a link map: ``providers`` in load order."""

    symbol: str
    providers: tuple[str, ...]
    chosen: str


@dataclass(slots=True)
class Resolution:
    """Everything the loader emulation found for one root. Bindings, unresolved references and duplicate
    providers are the same in most link maps: each is kept once with the executables it holds in."""

    link_maps: list[LinkMap] = field(default_factory=list)
    bindings: dict[BindingKey, list[str]] = field(default_factory=dict)
    unresolved: dict[UnresolvedKey, list[str]] = field(default_factory=dict)
    duplicates: dict[DuplicateKey, list[str]] = field(default_factory=dict)
    interposed: dict[BindingKey, list[str]] = field(default_factory=dict)  # ldso.interposition: where
    upcalls: dict[BindingKey, list[str]] = field(default_factory=dict)  # ldso.upcalls: where


class Certainty(enum.StrEnum):
    """How sure a licence fact is: stated by the firmware or the user, found by a signature, or named."""

    DECLARED = "declared"  # package metadata, a kernel module's .modinfo, a user override
    IDENTIFIED = "identified"  # a signature of the component matched the file's bytes or symbols
    INFERRED = "inferred"  # the knowledge base, or a reading of a free-text copyright file


@dataclass(slots=True)
class LicenceFact:
    """The licence of one module, where it comes from and how certain it is (docs/licences.md):
    ``licence`` a normalised SPDX expression, or None when nothing says (``source`` says why,
    ``certainty`` is None); ``package`` "NAME VERSION" (or "NAME"), when package data or an
    override says so."""

    licence: str | None
    source: str
    certainty: Certainty | None
    package: str | None = None


@dataclass(slots=True)
class ScanResult:
    firmware_name: str
    firmware_sha256: str
    modules: list[Module]
    resolution: Resolution
    problems: list[Problem]
    elapsed: dict[str, float] = field(default_factory=dict)
    source: dict = field(default_factory=dict)  # whence: {"kind", "target", "target_sha256", "root", "carved"}
    licences: dict[str, LicenceFact] = field(default_factory=dict)  # by module path
    identities: dict[str, Any] = field(default_factory=dict)  # by path: loader.identify ModuleIdentity (no cycle)
    loader_defaults: dict[str, dict] = field(default_factory=dict)  # "flavour interp" -> default dirs used, whence
    kernel: list[Any] = field(default_factory=list)  # loader.kmod KernelGraph per kernel (no cycle)
    dlopen: list[Any] = field(default_factory=list)  # loader.dlopen.DlopenEdge: what may be loaded later
    root_dir: str = ""  # the root's folder on this machine while the scan runs (the source check reads its files)
    pending: Callable[[], None] | None = None  # a stage left to run: scan_root(defer_dlopen=True)

    def complete(self) -> None:
        """Run the stage left to run, if any: its findings are in the result afterwards."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending()
