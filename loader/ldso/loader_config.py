"""The search-path facts of one root: ld.so.cache, ld.so.conf, musl's path file, and the default
directories compiled into each loader (read from the interpreter in the root where it is there).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from ..errors import LdconfigError
from ..model import ElfFacts
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .flavours import LoaderFlavour
from .interp_defaults import CompiledDefaults, supported_hwcaps
from .ld_cache import OLD_MAGIC, LdCache, read_ld_so_cache
from .ld_conf import read_ld_so_conf, read_musl_path_file
from .musl_build import musl_arch, musl_arch_of_loader, musl_version
from .preload_file import PRELOAD_FILE, PreloadRule, uclibc_preload_path

MAX_CONFIG_SIZE = 64 << 20  # ld.so.cache, the interpreter: a few MiB at most on any real system


class LoaderConfig:
    """The search-path facts of one root for one flavour: ld.so.cache, ld.so.conf, musl path file."""

    def __init__(self, root: RootFS, problems: list[Problem], cpu: tuple[str, ...] = ()) -> None:
        self.root = root
        self.problems = problems
        self.cpu = cpu  # glibc-hwcaps levels the device's CPU is assumed to support (--cpu)
        self.defaults_used: dict[str, CompiledDefaults] = {}  # "flavour interpreter" -> defaults
        self._glibc_cache: LdCache | bool | None = False
        self._musl_paths: dict[str, list[str] | None] = {}
        self._musl_arch: dict[str | None, str | None] = {}
        self._musl_version: dict[str, tuple[int, int, int] | None] = {}
        self._uclibc_cache: dict[str, LdCache | None] = {}
        self._preloads: dict[str, tuple[str, list[str]]] = {}

    def preloads(self, flavour: LoaderFlavour, loader: ElfFacts | None) -> tuple[str, list[str]]:
        """The preload file this loader reads and the names in it (``preload_file``): glibc's
        ``/etc/ld.so.preload``; for uClibc the path compiled into the loader, none when it was
        built without the option or is not in the root; none for musl."""
        key = f"{flavour.flavour.value} {loader.path if loader is not None else '-'}"
        if key not in self._preloads:
            path: str | None = None
            if flavour.preload_file is PreloadRule.ALWAYS:
                path = PRELOAD_FILE
            elif flavour.preload_file is PreloadRule.IF_BUILT and loader is not None:
                data = self.read_capped(loader.path, "the interpreter")
                path = uclibc_preload_path(data) if data else None
            data = self.read_capped(path, "the preload file") if path else None
            self._preloads[key] = (path or "", flavour.preload_names(data) if data else [])
        return self._preloads[key]

    def glibc_cache(self) -> LdCache | None:
        if self._glibc_cache is False:
            self._glibc_cache = self._read_cache("/etc/ld.so.cache")
            if self._glibc_cache is None:
                self._glibc_cache = self._emulated_cache()
        return self._glibc_cache  # type: ignore[return-value]

    def read_capped(self, path: str, what: str) -> bytes | None:
        """A loader configuration file or the loader itself, at most ``MAX_CONFIG_SIZE`` bytes
        (no real one comes near; a larger one is a problem and is not read)."""
        data = self.root.read_bytes(path, MAX_CONFIG_SIZE + 1)
        if data is not None and len(data) > MAX_CONFIG_SIZE:
            self.problems.append(
                Problem(
                    display_path(path),
                    Severity.WARNING,
                    f"{what} larger than {MAX_CONFIG_SIZE >> 20} MiB: not read",
                    ProblemCode.CONFIG_TOO_LARGE,
                )
            )
            return None
        return data

    def _read_cache(self, path: str) -> LdCache | None:
        data = self.read_capped(path, "ld.so.cache")
        if data is None:
            return None
        try:
            return read_ld_so_cache(data)
        except LdconfigError as exc:
            self.problems.append(Problem(path, Severity.WARNING, f"ignored: {exc}", ProblemCode.LD_CACHE_IGNORED))
            return None

    def _emulated_cache(self) -> LdCache | None:
        """No ld.so.cache in the root: assume ldconfig ran over /etc/ld.so.conf on the device."""
        if not self.root.is_file("/etc/ld.so.conf"):
            return None
        dirs = read_ld_so_conf(self.root, "/etc/ld.so.conf", self.problems)
        self.problems.append(
            Problem(
                "/etc/ld.so.conf",
                Severity.WARNING,
                "no /etc/ld.so.cache in the root: assuming ldconfig was run over /etc/ld.so.conf "
                f"({len(dirs)} directories)",
                ProblemCode.LD_CONF_ASSUMED,
            )
        )
        return DirCache(dirs, self.root)  # type: ignore[return-value]

    def uclibc_cache(self, byteorder: str) -> LdCache | None:
        """/etc/ld.so.cache as uClibc's ``_dl_map_cache`` accepts it, for a loader of this byte
        order: magic ``ld.so-`` + version ``1.7.0`` (glibc's new format is "corrupt" to it), a
        table in the loader's own byte order, every offset inside the strings, a final NUL.
        Anything else is ignored by the loader ("cache '/etc/ld.so.cache' is corrupt")."""
        if byteorder not in self._uclibc_cache:
            data = self.root.read_bytes("/etc/ld.so.cache", MAX_CONFIG_SIZE + 1)
            cache = None
            if data is not None:
                cache = self._read_cache("/etc/ld.so.cache")
                usable = (
                    data.startswith(OLD_MAGIC)
                    and data.endswith(b"\0")
                    and cache is not None
                    and not cache.format.startswith("glibc-old+new")
                    and cache.byteorder == byteorder
                )
                if not usable:
                    self.problems.append(
                        Problem(
                            "/etc/ld.so.cache",
                            Severity.WARNING,
                            "ignored: not a uClibc cache for this loader (it says 'corrupt')",
                            ProblemCode.LD_CACHE_IGNORED,
                        )
                    )
                    cache = None
            self._uclibc_cache[byteorder] = cache
        return self._uclibc_cache[byteorder]

    def musl_arch(self, exe: ElfFacts, interpreter: str | None) -> str | None:
        """musl's LDSO_ARCH: from the loader file in the root, its name, else the ELF header."""
        if interpreter not in self._musl_arch:
            data = self.read_capped(interpreter, "the interpreter") if interpreter else None
            self._musl_arch[interpreter] = musl_arch_of_loader(data, interpreter)
        return self._musl_arch[interpreter] or musl_arch(exe)

    def musl_version(self, interpreter: str) -> tuple[int, int, int] | None:
        """The version the musl loader at this PT_INTERP states (None: not in the root, or silent)."""
        if interpreter not in self._musl_version:
            self._musl_version[interpreter] = musl_version(self.read_capped(interpreter, "the interpreter"))
        return self._musl_version[interpreter]

    def musl_paths(self, exe: ElfFacts, interpreter: str | None) -> list[str] | None:
        arch = self.musl_arch(exe, interpreter)
        prefix = posixpath.dirname(posixpath.dirname(interpreter or "/lib/x"))
        key = f"{prefix}|{arch}"
        if key not in self._musl_paths:
            self._musl_paths[key] = read_musl_path_file(self.root, arch, prefix) if arch else None
        return self._musl_paths[key]

    def default_dirs(
        self, flavour: LoaderFlavour, exe: ElfFacts, loader: ElfFacts | None, has_dir: Callable[[str], bool]
    ) -> CompiledDefaults:
        """The loader's compiled-in directories: read from the interpreter in the root (glibc's
        SYSTEM_DIRS and glibc-hwcaps levels, uClibc's library path), musl's fixed list, or, with
        no interpreter to read, guessed from the root's layout (and a warning says so)."""
        key = f"{flavour.flavour.value} {loader.path if loader is not None else '-'}"
        if key not in self.defaults_used:
            data = self.read_capped(loader.path, "the interpreter") if loader is not None else None
            dirs: list[str] | None = None
            hwcaps: list[str] = []
            if data is not None:
                dirs, hwcaps = flavour.compiled_dirs(data)
            if flavour.fixed_default_dirs:
                found = CompiledDefaults(tuple(flavour.default_dirs(exe, has_dir)), "musl's fixed list")
            elif dirs and loader is not None:
                found = CompiledDefaults(
                    tuple(dirs),
                    f"interpreter {display_path(loader.path)}",
                    supported_hwcaps(hwcaps, self.cpu),
                    tuple(hwcaps),
                )
            else:
                found = CompiledDefaults(
                    tuple(flavour.default_dirs(exe, has_dir)),
                    "layout of the root (no interpreter to read them from)",
                    guessed=True,
                )
                self.problems.append(
                    Problem(
                        display_path(exe.path),
                        Severity.WARNING,
                        f"{flavour.flavour.value} loader {'not in the root' if loader is None else 'unreadable'}: its "
                        f"default directories are guessed from the root's layout ({':'.join(found.dirs)})",
                        ProblemCode.DEFAULT_DIRS_GUESSED,
                    )
                )
            self.defaults_used[key] = found
        return self.defaults_used[key]


class DirCache:
    """Stands in for ld.so.cache when only ld.so.conf exists: soname lookups in its directories."""

    format = "ld.so.conf"

    def __init__(self, dirs: list[str], root: RootFS) -> None:
        self.dirs = dirs
        self.root = root

    def lookup(self, name: str, elf_class: int, machine: str, e_flags: int | None = None) -> list[str]:
        """The first directory holding ``name``, as ldconfig would have cached it."""
        paths = [posixpath.join(d, name) for d in self.dirs]
        return [p for p in paths if self.root.is_file(p)][:1]
