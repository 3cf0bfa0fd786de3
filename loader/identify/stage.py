"""The identification stage over a root's modules: one pass over each file's string ranges.

``Matching`` reads and matches the files, in a child process started as soon as the files are
parsed, so the matching runs beside the link maps instead of after them; ``identify_modules``
then decides, per module.
"""

from __future__ import annotations

from dataclasses import replace

from ..model import Certainty, Kind, Module
from ..problems import Problem
from ..rootfs import RootFS, display_path
from .decide import decide, module_names
from .matcher import Hit
from .matching import Matching
from .model import Evidence, EvidenceKind, Identification, ModuleIdentity
from .names import PACKAGING, identify_by_name, name_table
from .project_table import family_patterns, ids_of
from .projects import FamilyHit, ProjectFound, identify_by_soname, identify_project
from .table import Component, components


def identify_modules(
    root: RootFS, modules: list[Module], problems: list[Problem], matching: Matching | None = None
) -> dict[str, ModuleIdentity]:
    """What each module is and contains (by path); only modules where something was found.
    ``matching``: the files' hits, if a ``Matching`` was started earlier (else matched now)."""
    hits = (matching or Matching(root, [m.path for m in modules])).hits(problems)
    table = components()
    out: dict[str, ModuleIdentity] = {}
    projects: dict[str, ProjectFound] = {}
    for module in modules:
        # the signature table's hits; past its end, the project families'; a vendor's strings are
        # loader.identify.vendor's
        mine = [h for h in hits.get(module.path, []) if not h.vendor]
        found = decide(module, [h for h in mine if h.component < len(table)], table)
        family_hits = _family_hits(mine, len(table))
        # the file's own words (a project family) before the name table; a distribution's package
        # name (a Debian debug link) after it, whose names can tell the package's part
        for after_names in (False, True):
            if found.own is None and family_hits:
                project = identify_project(family_hits, module.facts.kind, after_names)
                if project is not None:
                    projects[module.path] = project
                    found.own = project.identification
            if found.own is None and not after_names:
                found.own = identify_by_name(module, module_names(module))
        if found.own is None:
            found.own = identify_by_soname(module)
        if found.own is not None and (_multi_call(module, found.own, table) or _wrapper(module, found.own)):
            found.own = None
        if found.own is not None or found.contains:
            out[module.path] = found
    _project_versions(out, projects)
    _root_versions(out)
    return out


def _multi_call(module: Module, own: Identification, table: tuple[Component, ...]) -> bool:
    """A file known by its names alone whose names are other components' too: a vendor's multi-call
    program (D-Link's nsbbox is called brctl, ntpclient, smtpclient and vconfig) is none of them."""
    if module.facts.kind is not Kind.EXECUTABLE or own.certainty is not Certainty.INFERRED:
        return False
    if any(e.kind is not EvidenceKind.NAME for e in own.evidence):
        return False
    for name in module_names(module):
        found = {c.name for c in table if c.named([name]) and not c.generic}
        hit = name_table().lookup(name)
        if hit and hit[0].component not in PACKAGING:
            found.add(hit[0].component)
        if found and own.component not in found:  # a name of the file that is another component's
            return True
    return False


def _stem(name: str) -> str:
    return name.split(".so", 1)[0]


def _wrapper(module: Module, own: Identification) -> bool:
    """A library known by its name alone that loads a library of that same name (syslog-ng's curl
    module, libcurl.so, loads libcurl.so.4): a plugin named after what it wraps, not that library."""
    if module.facts.kind is not Kind.LIBRARY or own.certainty is not Certainty.INFERRED:
        return False
    mine = {_stem(n) for n in module_names(module)}
    return any(_stem(n) in mine and n not in module_names(module) for n in module.facts.needed)


def _family_hits(hits: list[Hit], base: int) -> list[FamilyHit]:
    patterns = family_patterns()
    return [FamilyHit(patterns[h.component - base], h.offset, h.text, h.version) for h in hits if h.component >= base]


def _project_versions(found: dict[str, ModuleIdentity], projects: dict[str, ProjectFound]) -> None:
    """A project's files that hold several version strings take the one every file of the project
    in the root that holds any has (coreutils' 9.1 in each of its programs), when exactly one is."""
    by_component: dict[str, list[str]] = {}
    for path, project in projects.items():
        if project.tokens:
            by_component.setdefault(project.identification.component, []).append(path)
    for component, paths in by_component.items():
        common = set.intersection(*({t.group for t in projects[p].tokens} for p in paths))
        if len(paths) < 2 or len(common) != 1:
            continue
        version = common.pop()
        for path in paths:
            ident = found[path].own
            if ident is None or ident.version is not None or ident.component != component:
                continue
            token = next(t for t in projects[path].tokens if t.group == version)
            notes = (
                Evidence(EvidenceKind.STRING, token.text, token.offset),
                Evidence(EvidenceKind.ROOT, f"the one version string every {component} file of the root holds"),
            )
            purl, cpe = ids_of(component, version)
            found[path].own = replace(ident, version=version, evidence=(*ident.evidence, *notes), purl=purl, cpe=cpe)


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
