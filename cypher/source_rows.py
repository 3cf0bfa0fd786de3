"""The rows of the source-release check's tables (loader.sources, docs/sources.md): one row per
module, the release it was checked against, the build-file lines that link each library, and what
the release lacks to be built. Declared as tables with the others in ``schema``."""

from __future__ import annotations

from typing import TypedDict


class SourceRow(TypedDict):
    """A module's source status in the release (``module`` is the Module's id)."""

    id: str
    firmware: str
    module: str
    status: str  # SourceStatus
    tier: str | None  # Tier: what tied it to the release
    folder: str | None  # the source folder it was built from
    package: str | None
    version: str | None  # the source folder's version
    identified_version: str | None  # the identification's version
    mismatch: bool  # the two versions differ
    release_paths: list[str]  # release files with its bytes, or binaries of its name (prebuilt)
    evidence: str | None  # JSON list of {kind, text, file, line}


class ReleaseRow(TypedDict):
    id: str
    firmware: str
    name: str
    key: str  # the content key its index is cached under
    files: int
    binaries: int
    packages: list[str]  # "folder name version"


class LinkLineRow(TypedDict):
    """A build-file line of the release that links or installs a library of the firmware."""

    id: str
    firmware: str
    library: str  # the Module's id
    name: str  # NAME of -lNAME
    file: str
    line: int
    text: str
    folder: str  # the source folder the build file belongs to


class ReleaseGapRow(TypedDict):
    id: str
    firmware: str
    kind: str  # GapKind
    present: bool
    detail: str
