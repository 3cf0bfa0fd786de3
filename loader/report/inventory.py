"""The firmware's modules as files (path, hash, size, licence fact, package), streamed in path
order from the store: what the SBOM writers and ``linkgraph diff`` describe each module by. The
edges between them are the report's ``dependencies`` and ``dlopen`` sections (``report_sections``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..licences.facts import NO_FACT
from ..store.base import GraphStore


@dataclass(frozen=True, slots=True)
class ModuleFile:
    """One ELF module of the firmware. ``package`` is ``NAME VERSION`` (or just the name) of the
    package the firmware's own package data says installed it; ``licence`` None: no fact found."""

    path: str
    kind: str
    soname: str | None
    sha256: str
    sha1: str | None  # None: the store was written before linkgraph kept it
    size: int
    aliases: tuple[str, ...]
    licence: str | None
    licence_class: str
    licence_source: str
    licence_certainty: str | None
    package: str | None
    static: bool | None  # a statically linked executable; None: the store was written before linkgraph kept it
    origin: str | None = None  # whose vendor code it is (loader.identify.vendor), None when nothing shows it
    origin_evidence: str | None = None  # what shows it: a JSON list of {kind, text, offset}


def module_files(store: GraphStore, firmware: str) -> Iterator[ModuleFile]:
    """The firmware's modules in path order, one at a time."""
    for (
        path,
        kind,
        soname,
        sha256,
        sha1,
        size,
        aliases,
        lic,
        lic_class,
        source,
        certainty,
        package,
        static,
        origin,
        origin_evidence,
    ) in store.stream("module-files", {"firmware": firmware}):
        yield ModuleFile(
            path=path,
            kind=kind,
            soname=soname,
            sha256=sha256,
            sha1=sha1 or None,
            size=int(size),
            aliases=tuple(sorted(aliases or [])),
            licence=lic,
            licence_class=lic_class or "unknown",
            licence_source=source or NO_FACT,
            licence_certainty=certainty,
            package=package,
            static=None if static is None else bool(static),
            origin=origin,
            origin_evidence=origin_evidence,
        )
