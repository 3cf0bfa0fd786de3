"""The ``License`` field of the package a file belongs to (dpkg, opkg): a declared licence fact.

OpenWrt's ``PKG_LICENSE`` may list several licences by blanks alone (``GPL-2.0 LGPL-2.1``): the
licences of different parts of the package, not all of them for every file. Such a list decides
only when the part that applies to the file can be told: a shared library takes the package's one
LGPL part, a program its one GPL part (``inferred``); else the fact stays unknown and says why.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Certainty, Kind, Module
from .base import Candidate, Context, LicenceSource, Package
from .classes import LicenceClass, licence_class
from .control import Parsed, bad_lines_message, parse_paragraphs
from .spdx import ignored_package_licences, listed_parts, normalise

NOT_INSTALLED = ("not-installed", "config-files")
# which part of a package's listed licences a file of each kind takes
PART_FOR_KIND = {Kind.LIBRARY: LicenceClass.LGPL, Kind.EXECUTABLE: LicenceClass.GPL}


def read_paragraphs(ctx: Context, path: str, what: str) -> Parsed | None:
    """A control-format file of the root, parsed; malformed lines become one warning."""
    text = ctx.read_text(path, what)
    if text is None:
        return None
    parsed = parse_paragraphs(text)
    if parsed.bad_lines:
        ctx.warn(path, bad_lines_message(what, parsed.bad_lines))
    return parsed


def is_installed(status: str | None) -> bool:
    """``Status: want flag status``: anything but not-installed / config-files has files."""
    words = (status or "").split()
    return not words or words[-1] not in NOT_INSTALLED


def read_list(ctx: Context, path: str) -> list[str]:
    """A ``*.list`` file: one installed path a line (opkg may add a tab, the mode and a link target)."""
    text = ctx.read_text(path, "package file list")
    if text is None:
        return []
    out = []
    for line in text.splitlines():
        entry = line.split("\t", 1)[0].strip()
        if entry.startswith("/") and entry != "/.":
            out.append(entry)
    return out


class PackageField(LicenceSource):
    """The ``License:`` field of the module's package in the firmware's dpkg or opkg database."""

    NAME = "package"
    CERTAINTY = Certainty.DECLARED

    def candidate(self, module: Module) -> Candidate | None:
        package = self.ctx.owners.get(module.path)
        if package is None:
            return None
        return package_candidate(self.ctx, package, self.CERTAINTY, module)


def package_candidate(ctx: Context, package: Package, certainty: Certainty, module: Module) -> Candidate:
    source = f"{package.manager}:{package.field_file} (package {package.name})"
    if package.licence is None:
        return Candidate(None, source, certainty, package.label, why="no License field")
    for quirk in ignored_package_licences():
        if quirk.get("manager") == package.manager and quirk.get("source") == package.source:
            return Candidate(
                None,
                source,
                certainty,
                package.label,
                why=f"License field ignored: {quirk.get('why', 'known not to describe the files')}",
            )
    parts = listed_parts(package.licence) if package.manager == "opkg" else None
    if parts is not None:
        return part_candidate(module, package, parts)
    found = normalise(package.licence)
    if found.expression is None:
        ctx.warn(package.field_file, f"package {package.name}: {found.why}")
    return Candidate(found.expression, source, certainty, package.label, why=found.why)


def part_for(kind: Kind, parts: Sequence[str]) -> str | None:
    """The one part of a list of a package's licences a file of ``kind`` takes, if one fits."""
    wanted = PART_FOR_KIND.get(kind)
    fitting = [p for p in parts if wanted is not None and licence_class(p) is wanted]
    return fitting[0] if len(fitting) == 1 else None


def part_candidate(module: Module, package: Package, parts: list[str]) -> Candidate:
    """The part of a listed ``License`` that applies to ``module``, or none and why (module doc)."""
    source = f"{package.manager}:{package.field_file} (package {package.name}; License lists parts: {', '.join(parts)})"
    kind = module.facts.kind
    part = part_for(kind, parts)
    if part is not None:
        return Candidate(part, source, Certainty.INFERRED, package.label)
    why = f"which part applies to this {kind.value} cannot be told"
    return Candidate(None, source, Certainty.INFERRED, package.label, why=why)
