"""The identification stage over a root's modules: one pass over each file's string ranges.

``Matching`` reads and matches the files, in a child process started as soon as the files are
parsed, so the matching runs beside the link maps instead of after them; ``identify_modules``
then decides, per module.
"""

from __future__ import annotations

from dataclasses import replace

from ..model import Certainty, Module
from ..problems import Problem
from ..rootfs import RootFS, display_path
from .decide import decide, module_names
from .matching import Matching
from .model import Evidence, EvidenceKind, ModuleIdentity
from .names import identify_by_name
from .table import components


def identify_modules(
    root: RootFS, modules: list[Module], problems: list[Problem], matching: Matching | None = None
) -> dict[str, ModuleIdentity]:
    """What each module is and contains (by path); only modules where something was found.
    ``matching``: the files' hits, if a ``Matching`` was started earlier (else matched now)."""
    hits = (matching or Matching(root, [m.path for m in modules])).hits(problems)
    table = components()
    out: dict[str, ModuleIdentity] = {}
    for module in modules:
        found = decide(module, hits.get(module.path, []), table)
        if found.own is None:
            found.own = identify_by_name(module, module_names(module))
        if found.own is not None or found.contains:
            out[module.path] = found
    _root_versions(out)
    return out


def _root_versions(found: dict[str, ModuleIdentity]) -> None:
    """A contained component without a version of its own (a static program's libc rarely says)
    takes the version of the root's own copy of it, when the root has exactly one: the firmware
    was built with one toolchain. The evidence says where the version comes from."""
    versions: dict[str, set[tuple[str, str]]] = {}
    for path, ident in found.items():
        if ident.own is not None and ident.own.version:
            versions.setdefault(ident.own.component, set()).add((ident.own.version, path))
    for ident in found.values():
        for i, inside in enumerate(ident.contains):
            known = versions.get(inside.component, set())
            if inside.version or len({v for v, _p in known}) != 1:
                continue
            version, path = min(known)
            comp = next(c for c in components() if c.name == inside.component)
            note = Evidence(EvidenceKind.ROOT, f"version of the root's own {inside.component}: {display_path(path)}")
            ident.contains[i] = replace(
                inside,
                version=version,
                licence=inside.licence if inside.certainty is Certainty.DECLARED else comp.licence_of(version),
                evidence=(*inside.evidence, note),
                purl=comp.purl_of(version),
                cpe=comp.cpe_of(version),
            )
