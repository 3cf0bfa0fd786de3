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
from .model import Evidence, EvidenceKind, Identification, ModuleIdentity
from .names import identify_by_name
from .table import components, ids_of


def identify_modules(
    root: RootFS, modules: list[Module], problems: list[Problem], matching: Matching | None = None
) -> dict[str, ModuleIdentity]:
    """What each module is and contains (by path); only modules where something was found.
    ``matching``: the files' hits, if a ``Matching`` was started earlier (else matched now)."""
    hits = (matching or Matching(root, [m.path for m in modules])).hits(problems)
    table = components()
    out: dict[str, ModuleIdentity] = {}
    for module in modules:
        found = decide(module, [h for h in hits.get(module.path, []) if not h.vendor], table)
        if found.own is None:
            found.own = identify_by_name(module, module_names(module))
        if found.own is not None or found.contains:
            out[module.path] = found
    _root_versions(out)
    return out


def _root_versions(found: dict[str, ModuleIdentity]) -> None:
    """A component without a version of its own (a static program's libc rarely says; libssl
    names no version, its libcrypto does) takes the version of the root's own copy of it found by
    a signature, when the root has exactly one: the firmware was built with one toolchain and one
    source tree per component. The evidence says where the version comes from."""
    versions: dict[str, set[tuple[str, str]]] = {}
    for path, ident in found.items():
        if ident.own is not None and ident.own.version:
            versions.setdefault(ident.own.component, set()).add((ident.own.version, path))
    for ident in found.values():
        if ident.own is not None:
            ident.own = _with_root_version(ident.own, versions)
        ident.contains = [_with_root_version(inside, versions) for inside in ident.contains]


def _with_root_version(ident: Identification, versions: dict[str, set[tuple[str, str]]]) -> Identification:
    known = versions.get(ident.component, set())
    if ident.version or len({v for v, _p in known}) != 1:
        return ident
    version, path = min(known)
    comp = next((c for c in components() if c.name == ident.component), None)
    note = Evidence(EvidenceKind.ROOT, f"version of the root's own {ident.component}: {display_path(path)}")
    # the version changes the licence only where the table's licence ranges say it decides (OpenSSL
    # 3 is Apache-2.0; udev from 146 is no one licence): a licence the file declares, or a name
    # table's licence of the module's part, stands otherwise
    rule = comp.rule_for(version) if comp is not None else None
    licence = rule.licence if rule is not None and ident.certainty is not Certainty.DECLARED else ident.licence
    purl, cpe = ids_of(ident.component, version)
    return replace(ident, version=version, licence=licence, evidence=(*ident.evidence, note), purl=purl, cpe=cpe)
