"""What every licence source shares: the root it reads, the candidates it offers, the packages it knows.

A source is a plain class with class constants (``NAME``, ``CERTAINTY``), like unblob's handlers;
``facts.py`` lists them in order of precedence. Every file is read through ``RootFS`` (inside the
root, links resolved within it), and anything wrong with a file becomes a warning ``Problem``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import RootfsError
from ..model import Certainty, Flavour, Module
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path

if TYPE_CHECKING:
    from .overrides import Overrides

MAX_METADATA_SIZE = 64 * 1024 * 1024  # a dpkg status of a whole distribution is a few MiB


@dataclass(slots=True)
class Candidate:
    """What one source says about one module: a licence, or None with the reason."""

    licence: str | None
    source: str  # e.g. "opkg:/usr/lib/opkg/status (package busybox)"
    certainty: Certainty
    package: str | None = None
    why: str | None = None  # when licence is None: what the source found instead


@dataclass(slots=True)
class Package:
    """One installed package of the firmware's own package database."""

    manager: str  # "dpkg" or "opkg"
    name: str
    version: str | None
    licence: str | None  # the License field as written, None if there is none
    field_file: str  # device path of the file the fields were read from
    source: str | None = None  # the Source field (the source package; OpenWrt: its Makefile's folder)

    @property
    def label(self) -> str:
        """``NAME VERSION`` (or just the name): the ``package`` of a licence fact."""
        return f"{self.name} {self.version}" if self.version else self.name


@dataclass
class Context:
    """The root being scanned, its modules, and where warnings go."""

    root: RootFS
    modules: list[Module]
    problems: list[Problem]
    flavour: Flavour | None = None  # the C library most executables use
    overrides: Overrides | None = None  # the user's --licences file
    owners: dict[str, Package] = field(default_factory=dict)  # module path -> package (dpkg, opkg)
    cache: dict[str, Any] = field(default_factory=dict)  # what sources read once and share
    identities: dict[str, Any] = field(default_factory=dict)  # module path -> loader.identify ModuleIdentity
    _warned: set[tuple[str, str]] = field(default_factory=set)

    def warn(self, path: str, message: str) -> None:
        """One warning per file and message."""
        key = (path, message)
        if key not in self._warned:
            self._warned.add(key)
            self.problems.append(Problem(display_path(path), Severity.WARNING, message, ProblemCode.LICENCE_DATA))

    def read_text(self, path: str, what: str) -> str | None:
        """A text file inside the root (None if absent); not UTF-8 or too large: a warning."""
        data = self.root.read_bytes(path, MAX_METADATA_SIZE + 1)
        if data is None:
            return None
        if len(data) > MAX_METADATA_SIZE:
            self.warn(path, f"{what} skipped: larger than {MAX_METADATA_SIZE >> 20} MiB")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.warn(path, f"{what} is not valid UTF-8 (byte {exc.start}); read with replacement characters")
            return data.decode("utf-8", "replace")

    def exists(self, path: str) -> bool:
        return self.root.is_file(path)

    def canonical(self, path: str) -> str | None:
        """The canonical device path of ``path`` (None: not in the root, or a symlink loop)."""
        try:
            found = self.root.resolve(path)
        except RootfsError:  # a symlink loop: the scan reports those already
            return None
        return display_path(found) if found is not None else None


def file_names(module: Module) -> list[str]:
    """The names a module is known by: its file name and those of the symlinks to it."""
    names = [posixpath.basename(module.path)]
    names += [n for n in (posixpath.basename(a) for a in module.aliases) if n not in names]
    return names


def owners_from_lists(ctx: Context, lists: dict[str, list[str]], packages: dict[str, Package]) -> dict[str, Package]:
    """Module path -> package, from each package's list of installed paths (``*.list`` files).

    Listed paths are as installed (``/bin/sh``, ``/lib/...`` before a merged ``/usr``), so each is
    resolved inside the root. The package that installed the file itself wins over one that only
    installed a symlink to it (glibc's ``/usr/bin/ld.so`` is libc-bin's, the loader is libc6's).
    Only names that some module or symlink to one has are looked at.
    """
    paths = {m.path for m in ctx.modules}
    names = {posixpath.basename(p) for m in ctx.modules for p in (m.path, *m.aliases)}
    owners: dict[str, Package] = {}
    by_link: dict[str, Package] = {}
    for name, listed_paths in lists.items():
        package = packages.get(name)
        if package is None:
            continue
        for listed in listed_paths:
            base = posixpath.basename(listed)
            if base not in names:
                continue
            folder = ctx.canonical(posixpath.dirname(listed))
            itself = posixpath.join(folder, base) if folder is not None else None
            if itself in paths:
                owners.setdefault(itself, package)
                continue
            target = ctx.canonical(listed)
            if target in paths:
                by_link.setdefault(target, package)
    return {**by_link, **owners}


class LicenceSource:
    """One kind of licence evidence. Subclasses set the constants and implement ``candidate``."""

    NAME: ClassVar[str] = ""
    CERTAINTY: ClassVar[Certainty] = Certainty.DECLARED

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def candidate(self, module: Module) -> Candidate | None:  # pragma: no cover - abstract
        raise NotImplementedError
