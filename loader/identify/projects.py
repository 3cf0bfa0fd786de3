"""Project families (``data/projects.yaml``, ``project_table``): a file tied to a project by the
project's own words.

A family is a convention many projects share: GNU's programs print their home page
(``https://www.gnu.org/software/coreutils/``), their bug-report address (``bug-coreutils@gnu.org``)
and their licence (``License GPLv3+: GNU GPL version 3 or later``), so one rule names every GNU
program with its licence, where the signature table needs one entry per component. A file is the
project its keys name when ``needs`` distinct pieces of evidence agree (a home page alone may point
to another project's manual); a licence statement makes its licence ``declared``, else the projects
table gives it, else the name table's component of that name, else it stays unknown. A family whose
programs keep their version as a string of its own (gnulib's ``Version``) gives the file that
version when it holds one such string.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..model import Certainty, Kind, Module
from .model import Evidence, EvidenceKind, Identification
from .names import licence_of_component, name_table
from .project_table import (
    Family,
    FamilyPattern,
    Project,
    Role,
    families,
    ids_of,
    project_cpe,
    project_named,
    project_purl,
)


@dataclass(frozen=True, slots=True)
class FamilyHit:
    """A hit of a family pattern in a file (the matcher's ``Hit`` read through ``family_patterns``)."""

    pattern: FamilyPattern
    offset: int
    text: str
    group: str | None  # a key's project, a version's version


@dataclass(frozen=True, slots=True)
class ProjectFound:
    """A file's project, and the version strings it holds when the family keeps them."""

    identification: Identification
    family: Family
    tokens: tuple[FamilyHit, ...]


def _key(group: str) -> str:
    """A project's key as the tables write it: lower case (``The Poppler Developers``: poppler)."""
    return group.lower()


def _known(key: str, kind: Kind) -> bool:
    return project_named(key) is not None or licence_of_component(key, kind) is not None


def identify_project(hits: list[FamilyHit], kind: Kind, after_names: bool = False) -> ProjectFound | None:
    """The project a file's family hits name, when enough distinct evidence agrees (module doc);
    only the families asked before the name table, or (``after_names``) those asked after it."""
    every = families()
    keys = [
        h
        for h in hits
        if h.pattern.role is Role.KEY
        and h.group
        and every[h.pattern.family].after_names == after_names
        and _key(h.group) not in every[h.pattern.family].ignore
        and (not every[h.pattern.family].known_only or _known(_key(h.group), kind))
    ]
    if not keys:
        return None
    # the project most keys name (a GNU program names its own package; gnulib's help line none)
    key, _count = Counter(_key(h.group) for h in keys if h.group).most_common(1)[0]
    fam_index = next(h.pattern.family for h in keys if h.group and _key(h.group) == key)
    family = every[fam_index]
    mine = [h for h in hits if h.pattern.family == fam_index]
    own = sorted((h for h in keys if h.group and _key(h.group) == key), key=lambda h: h.offset)
    statements = sorted((h for h in mine if h.pattern.role is Role.STATEMENT), key=lambda h: h.offset)
    if len({h.pattern.label for h in own} | ({"statement"} if statements else set())) < family.needs:
        return None
    project = project_named(key) or Project(key, "program", None, {}, None, None)
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


def _licence(project: Project, kind: Kind, statements: list[FamilyHit]) -> tuple[Certainty, str | None, str | None]:
    """The licence of a project's file: the one the file states (not in a library whose licence the
    tables know: a library carries gnulib's --version text for its tools, libidn2 prints GPLv3+ and
    is GPLv2+ or LGPLv3+), the projects table's, the name table's component of that name (the file's
    part of it), or none; with a note on where a table's licence comes from."""
    known = project.licence_for(kind)
    note = f"licence: {project.source}" if known and project.source else None
    if known is None:
        found = licence_of_component(project.component, kind)
        if found is not None and found[1] is not None:
            named, known, part = found
            note = f"licence: name table's {named.component} ({'; '.join(named.sources[:2])})"
            note = f"{note}; {part}" if part else note
    if statements and (kind is not Kind.LIBRARY or known is None):
        return Certainty.DECLARED, statements[0].pattern.label, None
    return Certainty.IDENTIFIED, known, note


_SONAME_STEM = re.compile(r"lib([A-Za-z0-9_+.-]+?)(?:-\d+(?:\.\d+)*)?\.so(?:\.\d+)*")


def identify_by_soname(module: Module) -> Identification | None:
    """A library whose soname names a project the tables know (``libpango-1.0.so.0``: pango;
    ``libheif.so.1``: libheif), by its name alone (inferred): the last resort, after the name table
    and every family. Only the whole stem (or ``lib`` and it) names the project, never a part of it."""
    soname = module.facts.soname
    if module.facts.kind is not Kind.LIBRARY or soname is None:
        return None
    found = _SONAME_STEM.fullmatch(soname)
    if found is None:
        return None
    stem = found.group(1).replace("_", "-")
    for key in (stem, f"lib{stem}"):
        project = project_named(key)
        licence, source = (project.licence_for(module.facts.kind), project.source) if project else (None, None)
        component = project.component if project else key
        if project is None:
            named = licence_of_component(key, module.facts.kind)
            if named is None:
                continue
            if name_table().installs_library(key, soname) is False:  # its libraries are others
                return None
            licence, source = named[1], "name table: " + "; ".join(named[0].sources[:2])
        if licence is None:
            return None
        text = f"soname {soname} names {component} ({source})"
        purl, cpe = ids_of(component, None)
        evidence = (Evidence(EvidenceKind.NAME, text),)
        return Identification(component, None, licence, Certainty.INFERRED, evidence, "soname", purl=purl, cpe=cpe)
    return None
