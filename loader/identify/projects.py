"""Project families (``data/projects.yaml``): a file tied to a project by the project's own words.

A family is a convention many projects share: GNU's programs print their home page
(``https://www.gnu.org/software/coreutils/``), their bug-report address (``bug-coreutils@gnu.org``)
and their licence (``License GPLv3+: GNU GPL version 3 or later``), so one rule names every GNU
program with its licence, where the signature table needs one entry per component. A file is the
project its keys name when ``needs`` distinct pieces of evidence agree (a home page alone may point
to another project's manual); a licence statement makes its licence ``declared``, else the family's
table of projects gives it, else it stays unknown. A family whose programs keep their version as a
string of its own (gnulib's ``Version``) gives the file that version when it holds one such string.
"""

from __future__ import annotations

import enum
import functools
from collections import Counter
from dataclasses import dataclass

from packageurl import PackageURL

from ..data_files import load_yaml
from ..model import Certainty, Kind
from .model import Evidence, EvidenceKind, Identification
from .names import licence_of_component
from .table import components, cpe_value, spdx_of
from .table import ids_of as table_ids

# a version kept as a string of its own: "9.1", "4.9.0", "1.34", not part of a longer text
VERSION_TOKEN = rb"(?<![\x20-\x7e])(\d{1,4}\.\d{1,4}(?:\.\d{1,4}){0,2}[a-z]?)\x00"


class Role(enum.StrEnum):
    KEY = "key"  # group 1 names the project
    STATEMENT = "statement"  # a licence the file states about itself
    VERSION_TOKEN = "version token"  # a version kept as a string of its own (read only where a key matched)
    VERSION = "version"  # group 1 is the project's version


@dataclass(frozen=True, slots=True)
class Project:
    key: str
    component: str
    kind: str
    licence: str | None
    cpe: str | None


@dataclass(frozen=True, slots=True)
class FamilyPattern:
    family: int  # index in families()
    role: Role
    regex: str
    label: str  # a key's kind ("home page"), a statement's licence


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    needs: int
    version_tokens: bool
    projects: dict[str, Project]
    aliases: dict[str, str]  # a key -> the name table's component of that project
    ignore: frozenset[str]  # keys that name no project
    source: str


def _spdx(text: str, where: str) -> str:
    return spdx_of(text, where, "project families")


def _project(key: str, entry: dict) -> Project:
    licence = entry.get("licence")
    return Project(
        key,
        str(entry.get("component", key)),
        str(entry.get("kind", "program")),
        _spdx(str(licence), key) if licence else None,
        entry.get("cpe"),
    )


@functools.cache
def _loaded() -> tuple[tuple[Family, ...], tuple[FamilyPattern, ...]]:
    data = load_yaml("linkgraph.loader.identify", "projects.yaml")
    families: list[Family] = []
    patterns: list[FamilyPattern] = []
    for f, entry in enumerate(data["families"]):
        name = str(entry["name"])
        projects = {str(k): _project(str(k), v or {}) for k, v in (entry.get("projects") or {}).items()}
        aliases = {str(k): str(v) for k, v in (entry.get("aliases") or {}).items()}
        needs, tokens = int(entry.get("needs", 1)), bool(entry.get("version_tokens"))
        ignore = frozenset(map(str, entry.get("ignore") or ()))
        families.append(Family(name, needs, tokens, projects, aliases, ignore, str(entry["source"])))
        patterns += [FamilyPattern(f, Role.KEY, str(k["pattern"]), str(k["kind"])) for k in entry["keys"]]
        patterns += [FamilyPattern(f, Role.VERSION, str(v), "version") for v in entry.get("versions", ())]
        patterns += [
            FamilyPattern(f, Role.STATEMENT, str(s["pattern"]), _spdx(str(s["licence"]), name))
            for s in entry.get("statements", ())
        ]
        if entry.get("version_tokens"):
            patterns.append(FamilyPattern(f, Role.VERSION_TOKEN, VERSION_TOKEN.decode("latin-1"), "version"))
    return tuple(families), tuple(patterns)


def families() -> tuple[Family, ...]:
    return _loaded()[0]


def family_patterns() -> tuple[FamilyPattern, ...]:
    """Every family's patterns, in one order: the matcher numbers its hits by it."""
    return _loaded()[1]


@dataclass(frozen=True, slots=True)
class FamilyHit:
    """A hit of a family pattern in a file (the matcher's ``Hit`` read through ``family_patterns``)."""

    pattern: FamilyPattern
    offset: int
    text: str
    group: str | None  # a key's project, a version token's version


@dataclass(frozen=True, slots=True)
class ProjectFound:
    """A file's project, and the version strings it holds when the family keeps them."""

    identification: Identification
    family: Family
    tokens: tuple[FamilyHit, ...]


def identify_project(hits: list[FamilyHit], kind: Kind) -> ProjectFound | None:
    """The project a file's family hits name, when enough distinct evidence agrees (module doc)."""
    every = families()
    keys = [
        h
        for h in hits
        if h.pattern.role is Role.KEY and h.group and _key(h.group) not in every[h.pattern.family].ignore
    ]
    if not keys:
        return None
    # the project most keys name (a GNU program names its own package; gnulib's help line none)
    key, _count = Counter(_key(h.group) for h in keys if h.group).most_common(1)[0]
    assert key is not None
    fam_index = next(h.pattern.family for h in keys if h.group and _key(h.group) == key)
    family = every[fam_index]
    mine = [h for h in hits if h.pattern.family == fam_index]
    own = sorted((h for h in keys if h.group and _key(h.group) == key), key=lambda h: h.offset)
    statements = sorted((h for h in mine if h.pattern.role is Role.STATEMENT), key=lambda h: h.offset)
    if len({h.pattern.label for h in own} | ({"statement"} if statements else set())) < family.needs:
        return None
    project = family.projects.get(key) or Project(key, family.aliases.get(key, key), "program", None, None)
    tokens = tuple(h for h in mine if h.pattern.role in (Role.VERSION_TOKEN, Role.VERSION))
    versions = {h.group for h in tokens}
    version = versions.pop() if len(versions) == 1 else None
    first = {h.pattern.label: h for h in reversed(own)}  # the first of each kind of key
    evidence = [Evidence(EvidenceKind.STRING, h.text, h.offset) for h in sorted(first.values(), key=lambda h: h.offset)]
    if version is not None:
        evidence.append(Evidence(EvidenceKind.STRING, tokens[0].text, tokens[0].offset))
    source = f"project family {family.name}: {family.source}"
    certainty, licence, note = _licence(project, kind, statements)
    if certainty is Certainty.DECLARED:
        evidence.append(Evidence(EvidenceKind.STATEMENT, statements[0].text, statements[0].offset))
    ident = Identification(
        component=project.component,
        version=version,
        licence=licence,
        certainty=certainty,
        evidence=tuple(evidence),
        source=f"{source}; {note}" if note else source,
        purl=project_purl(project, version),
        cpe=project_cpe(project, version),
    )
    return ProjectFound(ident, family, tokens)


def _key(group: str) -> str:
    """A project's key as the tables write it: lower case (``The Poppler Developers``: poppler)."""
    return group.lower()


def _licence(project: Project, kind: Kind, statements: list[FamilyHit]) -> tuple[Certainty, str | None, str | None]:
    """The licence of a project's file: the one the file states (not in a library whose licence the
    tables know: a library carries gnulib's --version text for its tools, libidn2 prints GPLv3+ and
    is GPLv2+ or LGPLv3+), the family's table's, the name table's component of that name (the file's
    part of it), or none; with a note on where a table's licence comes from."""
    known = project.licence
    note = None
    if known is None:
        found = licence_of_component(project.component, kind)
        if found is not None and found[1] is not None:
            named, known, part = found
            note = f"licence: name table's {named.component} ({'; '.join(named.sources[:2])})"
            note = f"{note}; {part}" if part else note
    if statements and (kind is not Kind.LIBRARY or known is None):
        return Certainty.DECLARED, statements[0].pattern.label, None
    return Certainty.IDENTIFIED, known, note


def project_purl(project: Project, version: str | None) -> str:
    return PackageURL("generic", None, project.component, version or None).to_string()


def project_cpe(project: Project, version: str | None) -> str | None:
    return project.cpe.replace("{version}", cpe_value(version) if version else "*") if project.cpe else None


def project_of(component: str) -> Project | None:
    """The family table's project known by ``component``, if any."""
    return next((p for f in families() for p in f.projects.values() if p.component == component), None)


def ids_of(name: str, version: str | None) -> tuple[str, str | None]:
    """The purl and CPE of a component: the signature table's, else a family project's, else
    ``pkg:generic/NAME`` and no CPE (``table.ids_of``)."""
    if not any(c.name == name and c.purl for c in components()):
        project = project_of(name)
        if project is not None:
            return project_purl(project, version), project_cpe(project, version)
    return table_ids(name, version)
