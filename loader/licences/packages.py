"""The ``License`` field of the package a file belongs to (dpkg, opkg): a declared licence fact."""

from __future__ import annotations

from ..model import Certainty, Module
from .base import Candidate, Context, LicenceSource, Package
from .control import Parsed, bad_lines_message, parse_paragraphs
from .spdx import ignored_package_licences, normalise

NOT_INSTALLED = ("not-installed", "config-files")


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
        return package_candidate(self.ctx, package, self.CERTAINTY)


def package_candidate(ctx: Context, package: Package, certainty: Certainty) -> Candidate:
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
    found = normalise(package.licence)
    if found.expression is None:
        ctx.warn(package.field_file, f"package {package.name}: {found.why}")
    return Candidate(found.expression, source, certainty, package.label, why=found.why)
