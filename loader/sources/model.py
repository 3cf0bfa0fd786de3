"""What the release index holds, and the source status a module gets (docs/sources.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..problems import Problem


class SourceStatus(enum.StrEnum):
    """Whether the release gives a module's corresponding source."""

    SOURCE = "source"  # built from a source folder of the release (which, at which version)
    PREBUILT = "prebuilt"  # the release holds the binary (or a blob of it) but no source for it
    ABSENT = "absent"  # nothing of it in the release
    NOT_REQUIRED = "not-required"  # its licence asks for no source


class Tier(enum.StrEnum):
    """The evidence that tied a module to the release."""

    BYTES = "bytes"  # the same bytes (sha256) as a release file
    DWARF = "dwarf"  # its DWARF compile paths end in release paths of a source folder
    STRINGS = "strings"  # its strings found in a source folder's string literals
    FUNCTIONS = "functions"  # its exported functions defined in a source folder
    NAME = "name"  # a release binary of the same file name (prebuilt only)


class GapKind(enum.StrEnum):
    """What a reviewer checks first that the release may lack to be buildable."""

    BUILD_INSTRUCTIONS = "build-instructions"
    BUILD_FILES = "build-files"
    KERNEL_CONFIG = "kernel-config"
    TOOLCHAIN = "toolchain"
    PROPRIETARY = "proprietary"  # named by the vendor's own list of what ships without source


@dataclass(frozen=True, slots=True)
class ReleaseFile:
    path: str
    size: int
    sha1: str
    sha256: str
    elf: bool


@dataclass(frozen=True, slots=True)
class Package:
    """A source folder of the release with a name and version, and where they were read."""

    folder: str
    name: str
    version: str | None
    whence: str  # folder-name, archive-name, Makefile:LINE, VERSION


@dataclass(frozen=True, slots=True)
class LinkLine:
    """A build-file line that links or installs libraries."""

    file: str
    line: int
    text: str
    libraries: tuple[str, ...]  # NAME of -lNAME, or the libNAME of a copied file


@dataclass(frozen=True, slots=True)
class Gap:
    kind: GapKind
    present: bool
    detail: str


@dataclass
class ReleaseIndex:
    """One release, indexed: its files, packages, link lines, gaps and a text index of its sources."""

    name: str
    key: str  # the content key of the cache
    files: list[ReleaseFile] = field(default_factory=list)
    packages: list[Package] = field(default_factory=list)
    link_lines: list[LinkLine] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    # text index: source files by number, a string literal's segment -> [(file number, line)], a
    # function defined -> [(file number, line)]; at most a few places per key
    sources: list[str] = field(default_factory=list)
    literals: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    functions: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    makefile_folders: set[str] = field(default_factory=set)  # folders with a Makefile of their own
    system_trees: set[str] = field(default_factory=set)  # kernel (Kbuild) and boot loader (MAKEALL) trees
    kbuild_objects: dict[str, list[str]] = field(default_factory=dict)  # NAME of obj-… += NAME.o -> Makefiles
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
