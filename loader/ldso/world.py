"""One root filesystem as every link map of it sees it: its ELF files, its loader configuration,
the interpreters it holds, and the problems its preload file gives (once per name)."""

from __future__ import annotations

import posixpath
from collections import Counter

from ..errors import RootfsError
from ..model import ElfFacts, Kind
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .flavours import FLAVOURS, LoaderFlavour, VersionSource, flavour_of
from .loader_config import LoaderConfig
from .uclibc_build import loader_version
from .weak_rule import for_loader_version


class World:
    """One root filesystem with its parsed ELF files, as every link map of it sees it."""

    def __init__(
        self, root: RootFS, modules: dict[str, ElfFacts], problems: list[Problem], cpu: tuple[str, ...] = ()
    ) -> None:
        self.root = root
        self.modules = modules
        self.config = LoaderConfig(root, problems, cpu)
        self._dirs: dict[str, bool] = {}
        self._default_interpreters: dict[LoaderFlavour, str | None] = {}  # the modules do not change
        self._default_flavour: LoaderFlavour | None = None
        self._held: dict[str, bool] = {}  # PT_INTERP -> whether the root holds it
        self._preload_reported: set[tuple[str, str]] = set()
        self._uclibc_versions: dict[str, tuple[int, ...] | None] = {}  # PT_INTERP -> as which version

    def preload_failed(self, path: str, name: str, flavour: LoaderFlavour) -> None:
        """A name of the preload file the loader cannot load: one ``preload-missing`` problem per
        file and name (the loader says it at every program start)."""
        if (path, name) in self._preload_reported:
            return
        self._preload_reported.add((path, name))
        shown = display_path(name)
        if flavour.preload_missing_fatal:
            severity = Severity.ERROR
            message = f"can't load library '{shown}': the loader exits (status 15), no program of it starts"
        else:
            severity = Severity.WARNING
            message = (
                f"ERROR: ld.so: object '{shown}' from {display_path(path)} cannot be preloaded "
                "(cannot open shared object file): ignored."
            )
        self.config.problems.append(Problem(display_path(path), severity, message, ProblemCode.PRELOAD_MISSING))

    def has_dir(self, path: str) -> bool:
        if path not in self._dirs:
            self._dirs[path] = self.root.is_dir(path)
        return self._dirs[path]

    def canonical(self, device_path: str) -> str | None:
        try:
            found = self.root.resolve(device_path)
        except RootfsError:
            return None
        return found  # byte-exact (undecodable bytes as surrogates); escaped only for display

    def interpreter(self, exe: ElfFacts) -> tuple[str | None, ElfFacts | None]:
        """The interpreter's path as the kernel opens it, and its facts if it is in the root."""
        return self.interpreter_file(exe.interpreter) if exe.interpreter else (None, None)

    def interpreter_file(self, interp: str) -> tuple[str, ElfFacts | None]:
        """The path the kernel opens for a PT_INTERP, and the facts of that file if it is in the root."""
        candidates = _interpreter_paths(interp)
        for path in candidates:
            canonical = self.canonical(path)
            if canonical and canonical in self.modules:
                return path, self.modules[canonical]
        return candidates[0], None

    def holds_interpreter(self, interp: str) -> bool:
        """Whether the root has a file where the kernel opens this PT_INTERP: the exact path,
        resolved inside the root (a link to the loader counts, the loader under another name
        or in another folder does not). Without it the device cannot start the program."""
        if interp not in self._held:
            self._held[interp] = any(self.root.is_file(path) for path in _interpreter_paths(interp))
        return self._held[interp]

    def flavour(self, interp: str | None) -> LoaderFlavour:
        """The loader a PT_INTERP names, as the version of it in the root behaves."""
        flavour = flavour_of(interp)
        if not interp or not flavour.weak_rule_by_version:
            return flavour
        if flavour.version_source is VersionSource.LOADER_FILE_NAME:
            if interp not in self._uclibc_versions:
                loader = self.interpreter_file(interp)[1]
                folder = posixpath.dirname(loader.path) if loader is not None else "/lib"
                libdl = self.canonical(posixpath.join(folder, "libdl.so.0"))
                self._uclibc_versions[interp] = loader_version(loader, self.modules.get(libdl or ""))
            return for_loader_version(flavour, self._uclibc_versions[interp])
        return for_loader_version(flavour, self.config.musl_version(interp))

    def default_interpreter(self, flavour: LoaderFlavour) -> str | None:
        """The PT_INTERP most executables of this flavour use, one the root holds first (the
        loader of a library no executable loads is the one that would dlopen it)."""
        if flavour not in self._default_interpreters:
            counts = Counter(
                f.interpreter
                for f in self.modules.values()
                if f.interpreter and f.kind is Kind.EXECUTABLE and flavour_of(f.interpreter).flavour is flavour.flavour
            )
            best = max(counts, key=lambda i: (self.holds_interpreter(i), counts[i]), default=None)
            self._default_interpreters[flavour] = best
        return self._default_interpreters[flavour]

    def default_flavour(self) -> LoaderFlavour:
        """The loader most executables of this root use (for libraries no executable loads)."""
        if self._default_flavour is None:
            counts = Counter(flavour_of(f.interpreter).flavour for f in self.modules.values() if f.interpreter)
            base = FLAVOURS[counts.most_common(1)[0][0]] if counts else flavour_of(None)
            self._default_flavour = self.flavour(self.default_interpreter(base)) if counts else base
        return self._default_flavour


def _interpreter_paths(interp: str) -> list[str]:
    """Where the kernel opens a PT_INTERP: the path as written (a relative one from / or /lib)."""
    return [interp] if interp.startswith("/") else [f"/{interp}", f"/lib/{interp}"]
