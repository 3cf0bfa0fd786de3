"""The project families' table (``data/projects.yaml``): families, their patterns, and projects.

A family is a convention many projects share (GNU's --version text, a distribution's package note,
a project's home page and mailing list); its patterns are matched with the signature table's in the
one yara-x pass (``matcher``). The projects part says what the families know of a project they name:
its component name, licence (or the licence of each kind of file) and CPE, under every key that
names it. ``projects`` reads the hits.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from packageurl import PackageURL

from ..data_files import load_yaml
from ..licences.packages import part_for
from ..model import Kind
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
    component: str
    kind: str
    licence: str | None  # for every kind of file (None: see parts)
    parts: dict[str, str]  # kind of file (library, program) -> its licence
    cpe: str | None
    source: str | None

    def licence_for(self, kind: Kind) -> str | None:
        if self.licence is not None or not self.parts:
            return self.licence
        return self.parts.get("library" if kind is Kind.LIBRARY else "program") or part_for(
            kind, list(self.parts.values())
        )


@dataclass(frozen=True, slots=True)
class FamilyPattern:
    family: int  # index in families()
    role: Role
    regex: str
    label: str  # a key's kind ("home page"), a statement's licence


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    needs: int  # distinct kinds of evidence (a key's kinds, a statement) that identify a file
    version_tokens: bool
    known_only: bool  # a key names a project only when a table knows it
    after_names: bool  # asked after the name table (it names a package, not the project's part)
    ignore: frozenset[str]  # keys that name no project
    source: str


@dataclass(frozen=True, slots=True)
class Loaded:
    families: tuple[Family, ...]
    patterns: tuple[FamilyPattern, ...]
    projects: dict[str, Project]  # by every key that names it


def _spdx(text: object, where: str) -> str:
    return spdx_of(text, where, "project families")


def _project(key: str, entry: dict) -> Project:
    licence = entry.get("licence")
    parts = {str(k): _spdx(v, key) for k, v in (entry.get("parts") or {}).items()}
    return Project(
        str(entry.get("component", key)),
        str(entry.get("kind", "program")),
        _spdx(licence, key) if licence else None,
        parts,
        entry.get("cpe"),
        entry.get("source"),
    )


def _family(f: int, entry: dict) -> tuple[Family, list[FamilyPattern]]:
    name = str(entry["name"])
    family = Family(
        name,
        int(entry.get("needs", 1)),
        bool(entry.get("version_tokens")),
        bool(entry.get("known_only")),
        bool(entry.get("after_names")),
        frozenset(map(str, entry.get("ignore") or ())),
        str(entry["source"]),
    )
    patterns = [FamilyPattern(f, Role.KEY, str(k["pattern"]), str(k["kind"])) for k in entry["keys"]]
    patterns += [FamilyPattern(f, Role.VERSION, str(v), "version") for v in entry.get("versions", ())]
    patterns += [
        FamilyPattern(f, Role.STATEMENT, str(s["pattern"]), _spdx(s["licence"], name))
        for s in entry.get("statements", ())
    ]
    if family.version_tokens:
        patterns.append(FamilyPattern(f, Role.VERSION_TOKEN, VERSION_TOKEN.decode("latin-1"), "version"))
    return family, patterns


@functools.cache
def loaded() -> Loaded:
    data = load_yaml("linkgraph.loader.identify", "projects.yaml")
    families: list[Family] = []
    patterns: list[FamilyPattern] = []
    for f, entry in enumerate(data["families"]):
        family, found = _family(f, entry)
        families.append(family)
        patterns += found
    projects: dict[str, Project] = {}
    for key, entry in (data.get("projects") or {}).items():
        project = _project(str(key), entry or {})
        for name in (str(key), *map(str, (entry or {}).get("keys", ()))):
            projects[name.lower()] = project
    return Loaded(tuple(families), tuple(patterns), projects)


def families() -> tuple[Family, ...]:
    return loaded().families


def family_patterns() -> tuple[FamilyPattern, ...]:
    """Every family's patterns, in one order: the matcher numbers its hits by it."""
    return loaded().patterns


def project_named(key: str) -> Project | None:
    return loaded().projects.get(key.lower())


def project_purl(project: Project, version: str | None) -> str:
    return PackageURL("generic", None, project.component, version or None).to_string()


def project_cpe(project: Project, version: str | None) -> str | None:
    return project.cpe.replace("{version}", cpe_value(version) if version else "*") if project.cpe else None


def ids_of(name: str, version: str | None) -> tuple[str, str | None]:
    """The purl and CPE of a component: the signature table's, else a family project's, else
    ``pkg:generic/NAME`` and no CPE (``table.ids_of``)."""
    if not any(c.name == name and c.purl for c in components()):
        project = next((p for p in loaded().projects.values() if p.component == name), None)
        if project is not None:
            return project_purl(project, version), project_cpe(project, version)
    return table_ids(name, version)
