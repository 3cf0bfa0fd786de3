"""The three dynamic loaders of Linux devices and how they differ.

Each flavour is a plain class with class constants (a registry, like unblob's handlers); the
link-map and binding code reads the constants and never asks "is this musl?".

Sources for each rule are the loaders themselves: glibc ``elf/dl-load.c`` (``_dl_map_object``),
``elf/dl-lookup.c`` (``do_lookup_x``, ``check_match``); musl ``ldso/dynlink.c``
(``load_library``, ``find_sym2``, ``path_open``); uClibc-ng ``ldso/ldso/dl-elf.c``
(``_dl_load_shared_library``) and ``ldso/ldso/dl-hash.c`` (``_dl_find_hash``). See ``docs/loaders.md``.

Some rules depend on how the device's loader was *built* (uClibc's configuration options, musl's
architecture name and version); those are read from the loader file in the root (``UclibcBuild``,
``musl_build``), never assumed from the ELF machine alone.
"""

from __future__ import annotations

import enum
import functools
import posixpath
from collections.abc import Callable

from ..model import ElfFacts, Flavour
from . import musl_build, uclibc_build
from .header_checks import glibc_verdict, musl_verdict, uclibc_verdict
from .interp_defaults import glibc_hwcaps, glibc_system_dirs, uclibc_dirs
from .preload_file import PreloadRule, glibc_preload_names, uclibc_preload_names
from .uclibc_build import UclibcBuild

# Debian multiarch triplets by (machine, class, endian).
MULTIARCH = {
    ("EM_X86_64", 64, "little"): "x86_64-linux-gnu",
    ("EM_386", 32, "little"): "i386-linux-gnu",
    ("EM_AARCH64", 64, "little"): "aarch64-linux-gnu",
    ("EM_ARM", 32, "little"): "arm-linux-gnueabihf",
    ("EM_MIPS", 32, "little"): "mipsel-linux-gnu",
    ("EM_MIPS", 32, "big"): "mips-linux-gnu",
    ("EM_MIPS", 64, "little"): "mips64el-linux-gnuabi64",
    ("EM_PPC", 32, "big"): "powerpc-linux-gnu",
    ("EM_PPC64", 64, "little"): "powerpc64le-linux-gnu",
    ("EM_PPC64", 64, "big"): "powerpc64-linux-gnu",
    ("EM_S390", 64, "big"): "s390x-linux-gnu",
    ("EM_RISCV", 64, "little"): "riscv64-linux-gnu",
}
ARM_SOFTFLOAT_TRIPLET = "arm-linux-gnueabi"

# AT_PLATFORM strings the kernel passes, for $PLATFORM.
PLATFORM = {
    "EM_X86_64": "x86_64",
    "EM_386": "i686",
    "EM_AARCH64": "aarch64",
    "EM_ARM": "v7l",
    "EM_MIPS": "mips",
    "EM_PPC": "ppc",
    "EM_PPC64": "ppc64",
    "EM_RISCV": "riscv64",
    "EM_S390": "s390x",
}


class SearchOrder(enum.Enum):
    """The order in which a loader tries folders for a DT_NEEDED name (``search_path``)."""

    #: glibc ``_dl_map_object``: DT_RPATH of the requester and each object that loaded it (not
    #: with DT_RUNPATH), the executable's, the requester's DT_RUNPATH, ld.so.cache, the defaults
    LOADER_CHAIN_RPATH = "loader-chain-rpath"
    #: musl ``load_library``: each object up the chain, its DT_RUNPATH or else DT_RPATH; then the
    #: path file or the compiled-in folders
    EACH_OBJECT_RUNPATH_OR_RPATH = "each-object-runpath-or-rpath"
    #: uClibc ``_dl_load_shared_library``: the requester's own DT_RPATH or DT_RUNPATH, the cache,
    #: the interpreter's folder (when built so), the defaults
    REQUESTER_ONLY = "requester-only"


class VersionSource(enum.Enum):
    """Where a loader's version is read from (for rules that changed between versions)."""

    #: The version string compiled into the loader (musl's ``VERSION``: ``musl_build``).
    LOADER_BYTES = "loader-bytes"
    #: The loader's own file name (``ld-uClibc-0.9.26.so``: ``uclibc_build``).
    LOADER_FILE_NAME = "loader-file-name"


class LoaderFlavour:
    """What every loader does; subclasses override the differences."""

    flavour: Flavour
    search_order = SearchOrder.LOADER_CHAIN_RPATH
    #: A loaded object is reused when a later DT_NEEDED names its DT_SONAME.
    match_soname = True
    #: Whether a file the search finds is loaded, skipped or refused (``header_checks``).
    verdict = staticmethod(glibc_verdict)
    #: Symbol versions select among definitions (glibc); others only skip hidden ones or ignore them.
    versioned_lookup = True
    skip_hidden_versions = True
    #: DT_SYMBOLIC puts the object itself first in its own lookups.
    honours_symbolic = True
    #: Hidden/internal and protected symbols bind inside the object.
    honours_visibility = True
    #: STT_GNU_IFUNC definitions satisfy lookups (glibc); musl's OK_TYPES and uClibc's
    #: check_match accept only NOTYPE/OBJECT/FUNC/COMMON/TLS.
    accepts_ifunc = True
    #: An SHN_ABS definition with value 0 satisfies lookups (glibc's do_lookup_x); musl and
    #: uClibc skip every definition whose value is 0 unless it is TLS.
    accepts_zero_abs = True
    #: MIPS global GOT entries (relocated without relocation records) are looked up as PLT
    #: slots: a program's undefined STO_MIPS_PLT entry does not satisfy them (musl's
    #: do_mips_relocs uses R_MIPS_JUMP_SLOT, uClibc's _dl_perform_mips_global_got_relocations
    #: ELF_RTYPE_CLASS_PLT); glibc resolves them as R_MIPS_32 (class normal).  The ELF facts
    #: fold a symbol's GOT entry and its R_MIPS_REL32 relocations into one normal reference,
    #: which is then treated as a GOT lookup (the common case by far).
    mips_got_needs_definition = False
    #: On MIPS the loader relocates its own global GOT once, against itself, while it starts, and
    #: never through the scope (uClibc 0.9.19 to 0.9.33: ``_dl_perform_mips_global_got_relocations``
    #: skips the ``program_interpreter``): its references to what it defines bind to itself.
    mips_interpreter_binds_itself = False
    #: Names with these prefixes resolve to the loader itself (musl's libc is its loader).
    builtin_names: tuple[str, ...] = ()
    #: A NEEDED name equal to a name an object was loaded under (its path, the requested name, or
    #: its DT_SONAME where ``match_soname``) reuses that object without a search.  uClibc never
    #: compares names: it searches every time and reuses an object only when the search finds
    #: the same file (st_dev/st_ino).
    reuse_by_name = True
    #: A NEEDED name whose last path component is the loader's own name (uClibc's compiled-in
    #: ``UCLIBC_LDSO``) is the loader, wherever it is asked for.
    loader_by_basename = False
    #: A NEEDED name containing ``/`` that cannot be opened is searched by its last component
    #: (uClibc); glibc and musl report it missing.
    slash_name_falls_back = False
    #: The interpreter is in the link map even when no object names it: it goes last (glibc's
    #: rtld map, uClibc's ``add_ldso`` after the walk).  musl's loader joins only when named.
    interpreter_always_loaded = True
    #: A program whose DT_GNU_LIBLIST matches its link map keeps prelink's bindings (glibc's
    #: dl_main); uClibc and musl know no prelink.
    applies_prelink = False
    #: STB_GNU_UNIQUE definitions go into one table per process: the first provider found serves
    #: every later lookup of the name (glibc's do_lookup_unique).
    unique_symbols = False
    #: A DT_RPATH/DT_RUNPATH string with any $ token other than $ORIGIN is dropped whole (musl's
    #: fixup_rpath); glibc and uClibc expand or drop entry by entry.
    other_tokens_void_rpath = False
    #: An empty DT_RPATH/DT_RUNPATH entry (``a::b``, a leading or trailing ``:``) is the working
    #: directory (glibc's fillin_rpath, uClibc's search_for_named_library); musl's path_open
    #: skips every empty entry.
    empty_entry_is_cwd = True
    #: The default directories are fixed in the loader's source (musl): nothing to read them from.
    fixed_default_dirs = False
    #: A newline separates DT_RPATH/DT_RUNPATH entries as ``:`` does (musl's path_open splits on
    #: ``":\n"``); glibc and uClibc split on ``:`` alone, a newline is part of a folder name.
    newline_separates_paths = False
    #: A weak definition gives way to a global (or unique) one of a later object in the scope
    #: (musl up to 1.1.16, ``find_sym``); every other loader here takes the first definition.
    weak_yields_to_later_global = False
    #: A global definition of type STT_NOTYPE in a library does not end the search either: the
    #: last such one is taken unless a global function or object (or the program's) comes later,
    #: and it beats a weak one (uClibc up to 0.9.26, ``data_result``).
    notype_global_yields = False
    #: That rule changed between versions of this loader: its version is read from its file, and
    #: a loader older than ``first_definition_wins_since`` keeps the older rule (``weak_rule``).
    weak_rule_by_version = False
    first_definition_wins_since: tuple[int, ...] = ()
    version_source = VersionSource.LOADER_BYTES
    #: /etc/ld.so.preload (``preload_file``): read or not, split how, searched with the program's
    #: RPATH/RUNPATH (glibc) or none (uClibc), a name not loaded fatal (uClibc) or ignored.
    preload_file = PreloadRule.ALWAYS
    preload_names = staticmethod(glibc_preload_names)
    preload_uses_program_rpath = True
    preload_missing_fatal = False

    @property
    def key(self) -> str:
        """Tells apart the flavours whose lookups can differ (a cache key)."""
        return self.flavour.value

    def default_dirs(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> list[str]:
        return ["/lib", "/usr/lib"]

    def compiled_dirs(self, interpreter: bytes) -> tuple[list[str] | None, list[str]]:
        """The default directories and glibc-hwcaps levels compiled into the loader's file
        (``interp_defaults``); None when this loader's file does not say."""
        return None, []

    def build(self, interpreter: str | None, loader: ElfFacts | None) -> UclibcBuild:
        """The build options of this loader that change its search (uClibc's; none for the others)."""
        return UclibcBuild()

    def lib_token(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> str:
        """What ``$LIB`` expands to."""
        return "lib"


class Glibc(LoaderFlavour):
    flavour = Flavour.GLIBC
    applies_prelink = True
    unique_symbols = True

    def compiled_dirs(self, interpreter: bytes) -> tuple[list[str] | None, list[str]]:
        return glibc_system_dirs(interpreter), glibc_hwcaps(interpreter)

    def _triplet(self, facts: ElfFacts) -> str | None:
        triplet = MULTIARCH.get((facts.machine, facts.elf_class, facts.endian))
        if facts.machine == "EM_ARM" and not facts.flags & 0x400:  # EF_ARM_ABI_FLOAT_HARD absent
            return ARM_SOFTFLOAT_TRIPLET
        return triplet

    def default_dirs(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> list[str]:
        """glibc's compiled-in system directories, as the device's own build would have them.

        Debian-style multiarch (``/lib/TRIPLET``) when the root has those folders, else
        ``/lib64`` for 64-bit roots that have it, else ``/lib`` and ``/usr/lib``.
        """
        triplet = self._triplet(facts)
        if triplet and (has_dir(f"/lib/{triplet}") or has_dir(f"/usr/lib/{triplet}")):
            return [f"/lib/{triplet}", f"/usr/lib/{triplet}", "/lib", "/usr/lib"]
        if facts.elf_class == 64 and has_dir("/lib64"):
            return ["/lib64", "/usr/lib64"]
        return ["/lib", "/usr/lib"]

    def lib_token(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> str:
        triplet = self._triplet(facts)
        if triplet and has_dir(f"/lib/{triplet}"):
            return f"lib/{triplet}"
        if facts.elf_class == 64 and has_dir("/lib64"):
            return "lib64"
        return "lib"


class Musl(LoaderFlavour):
    flavour = Flavour.MUSL
    search_order = SearchOrder.EACH_OBJECT_RUNPATH_OR_RPATH
    other_tokens_void_rpath = True
    empty_entry_is_cwd = False  # path_open: s += strspn(s, ":\n") before each entry
    newline_separates_paths = True
    verdict = staticmethod(musl_verdict)
    match_soname = False  # musl matches the name it loaded a file under, and the inode
    versioned_lookup = False
    honours_symbolic = False
    honours_visibility = False
    builtin_names = ("libc.", "libpthread.", "librt.", "libm.", "libdl.", "libutil.", "libxnet.")
    interpreter_always_loaded = False  # __dls3: the list starts with the program alone
    accepts_ifunc = False
    accepts_zero_abs = False
    mips_got_needs_definition = True

    fixed_default_dirs = True
    preload_file = PreloadRule.NEVER  # only LD_PRELOAD
    weak_rule_by_version = True
    first_definition_wins_since = musl_build.FIRST_DEFINITION_WINS

    def default_dirs(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> list[str]:
        return ["/lib", "/usr/local/lib", "/usr/lib"]


class UClibc(LoaderFlavour):
    flavour = Flavour.UCLIBC
    search_order = SearchOrder.REQUESTER_ONLY
    verdict = staticmethod(uclibc_verdict)
    match_soname = False
    reuse_by_name = False  # _dl_load_elf_shared_library: same st_dev/st_ino, nothing else
    loader_by_basename = True  # _dl_get_ready_to_run: _dl_strcmp(last component, UCLIBC_LDSO)
    slash_name_falls_back = True  # _dl_load_shared_library goes on with the last component
    versioned_lookup = False
    skip_hidden_versions = False
    honours_symbolic = False
    accepts_ifunc = False
    accepts_zero_abs = False
    mips_got_needs_definition = True
    mips_interpreter_binds_itself = True
    preload_file = PreloadRule.IF_BUILT  # LDSO_PRELOAD_FILE_SUPPORT
    preload_names = staticmethod(uclibc_preload_names)
    preload_uses_program_rpath = False  # _dl_load_shared_library(0, &rpnt, NULL, name, ...)
    preload_missing_fatal = True  # "can't load library": _dl_exit(15)
    weak_rule_by_version = True
    first_definition_wins_since = uclibc_build.FIRST_DEFINITION_WINS
    version_source = VersionSource.LOADER_FILE_NAME

    def compiled_dirs(self, interpreter: bytes) -> tuple[list[str] | None, list[str]]:
        return uclibc_dirs(interpreter), []

    def build(self, interpreter: str | None, loader: ElfFacts | None) -> UclibcBuild:
        return UclibcBuild.of(interpreter, loader)

    def default_dirs(self, facts: ElfFacts, has_dir: Callable[[str], bool]) -> list[str]:
        return ["/lib", "/usr/lib"]


FLAVOURS: dict[Flavour, LoaderFlavour] = {f.flavour: f for f in (Glibc(), Musl(), UClibc())}


@functools.lru_cache(maxsize=256)
def flavour_of(interpreter: str | None) -> LoaderFlavour:
    """The loader an executable runs under, from its PT_INTERP."""
    name = posixpath.basename(interpreter or "")
    if name.startswith("ld-musl-"):
        return FLAVOURS[Flavour.MUSL]
    if name.startswith("ld-uClibc") or name == "ld.so.0":
        return FLAVOURS[Flavour.UCLIBC]
    return FLAVOURS[Flavour.GLIBC]
