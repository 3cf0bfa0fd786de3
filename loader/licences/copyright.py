"""Debian copyright files, ``/usr/share/doc/PACKAGE/copyright``, of the package a file belongs to.

Machine-readable ones (DEP-5, https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/)
declare a licence per ``Files`` paragraph: the last paragraph whose pattern matches the file
decides (DEP-5's rule). The patterns name files of the *source* package, which an installed file
does not carry; so the source folders the file may come from are worked out from its names: the
library's stem (``libuuid.so.1`` -> ``libuuid``), the binary package's name without its version
(``libuuid1`` -> ``libuuid``), the program's name; each also without ``lib``. A paragraph whose
pattern is a whole folder (``libuuid/*``, ``lib/ext2fs/*``) whose last part is one of these names
matches, as does one naming the installed path; else ``Files: *`` decides (util-linux's copyright:
``Files: *`` GPL-2+, ``Files: libuuid/*`` BSD-3-clause, ``Files: libblkid/*`` LGPL-2.1+).

Older copyright files are free text. They decide only when unambiguous: the first reference to
``/usr/share/common-licenses/NAME`` comes early in the file, its paragraph names no other
licence, and the name is versioned (``GPL-2``, ``LGPL-2.1``; a GNU licence is "-or-later" when the
text before it says "any later version"). That reading is ``inferred``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..model import Certainty, Module
from .base import Candidate, Context, LicenceSource, file_names
from .control import Paragraph, bad_lines_message, parse_paragraphs
from .spdx import names_data, normalise

DOC = "/usr/share/doc"
FREE_TEXT_WINDOW = 3000  # characters: where the main licence of a free-text file is stated
_COMMON = re.compile(r"/usr/share/common-licenses/([A-Za-z0-9][A-Za-z0-9.+\-]*)")
_LATER = re.compile(r"any\s+later\s+version|or\s+later", re.I)
_FOLDER = re.compile(r"(?:[^*?\[\]/]+/)*([^*?\[\]/]+)/\*")  # a whole source folder: "libuuid/*", "lib/ext2fs/*"
_PACKAGE_VERSION = re.compile(r"[-.]?\d[\d.]*(?:t64)?$")  # libuuid1, libnghttp2-14, libssl3t64


@dataclass(slots=True)
class Dep5:
    path: str
    header: Paragraph
    files: list[tuple[list[str], Paragraph]]  # (patterns, paragraph) in file order


@dataclass(slots=True)
class FreeText:
    path: str
    text: str


def _pattern(glob: str) -> re.Pattern[str]:
    """A DEP-5 ``Files`` pattern: ``*`` is any string (``/`` included), ``?`` one character."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob) + r"\Z")


def read_copyright(ctx: Context, package: str) -> Dep5 | FreeText | None:
    """The package's copyright file, parsed once per scan."""
    key = f"copyright:{package}"
    if key not in ctx.cache:
        ctx.cache[key] = _read(ctx, f"{DOC}/{package}/copyright")
    return ctx.cache[key]


def _read(ctx: Context, path: str) -> Dep5 | FreeText | None:
    text = ctx.read_text(path, "copyright file")
    if text is None:
        return None
    if not text.lstrip().lower().startswith("format:"):
        return FreeText(path, text)
    parsed = parse_paragraphs(text)
    if parsed.bad_lines:
        ctx.warn(path, bad_lines_message("machine-readable copyright file", parsed.bad_lines))
    if not parsed.paragraphs:
        ctx.warn(path, "machine-readable copyright file without paragraphs")
        return None
    files = [((p.get("files") or "").split(), p) for p in parsed.paragraphs[1:]]
    return Dep5(path, parsed.paragraphs[0], [(pats, p) for pats, p in files if pats])


def source_folders(module: Module, package: str) -> set[str]:
    """The names of the source folders ``module`` may have been built from (see the module doc)."""
    names = {n.split(".so", 1)[0] for n in file_names(module)}
    names.add(_PACKAGE_VERSION.sub("", package) or package)
    names |= {n.removeprefix("lib") for n in names if n.startswith("lib") and len(n) > 3}
    return names


def dep5_paragraph(doc: Dep5, paths: list[str], folders: Collection[str] = ()) -> tuple[str, Paragraph] | None:
    """The last Files paragraph matching one of ``paths`` or naming one of ``folders`` as a whole
    (and the pattern that matched)."""
    found = None
    for patterns, para in doc.files:
        for glob in patterns:
            regex = _pattern(glob)
            folder = _FOLDER.fullmatch(glob)
            if any(regex.match(p.lstrip("/")) for p in paths) or (folder is not None and folder[1] in folders):
                found = (glob, para)
                break
    return found


class DebianCopyright(LicenceSource):
    """The ``License`` of the matching ``Files`` paragraph of a machine-readable copyright file."""

    NAME = "dpkg-copyright"
    CERTAINTY = Certainty.DECLARED

    def candidate(self, module: Module) -> Candidate | None:
        package = self.ctx.owners.get(module.path)
        if package is None or package.manager != "dpkg":
            return None
        doc = read_copyright(self.ctx, package.name)
        if not isinstance(doc, Dep5):
            return None
        match = dep5_paragraph(doc, [module.path, *module.aliases], source_folders(module, package.name))
        if match is None:
            short, where = doc.header.first_line("license"), "header"
        else:
            short, where = match[1].first_line("license"), f"Files: {match[0]}"
        source = f"{self.NAME}:{doc.path} ({where})"
        if not short:
            return Candidate(None, source, self.CERTAINTY, package.label, why="no License short name")
        found = normalise(short)
        if found.expression is None:
            self.ctx.warn(doc.path, f"{where}: {found.why}")
        return Candidate(found.expression, source, self.CERTAINTY, package.label, why=found.why)


class DebianCopyrightText(LicenceSource):
    """The main licence of a free-text copyright file, when the file states it plainly."""

    NAME = "dpkg-copyright"
    CERTAINTY = Certainty.INFERRED

    def candidate(self, module: Module) -> Candidate | None:
        package = self.ctx.owners.get(module.path)
        if package is None or package.manager != "dpkg":
            return None
        doc = read_copyright(self.ctx, package.name)
        if not isinstance(doc, FreeText):
            return None
        licence = free_text_licence(doc.text)
        if licence is None:
            return None
        return Candidate(licence, f"{self.NAME}:{doc.path} (free text)", self.CERTAINTY, package.label)


def free_text_licence(text: str) -> str | None:
    """The licence a free-text copyright file names first, if it is unambiguous (see the module doc)."""
    first = _COMMON.search(text, 0, FREE_TEXT_WINDOW)
    if first is None:
        return None
    start = text.rfind("\n\n", 0, first.start())
    end = text.find("\n\n", first.end())
    paragraph = text[start + 1 if start >= 0 else 0 : end if end >= 0 else len(text)]
    named = {m.group(1).rstrip(".") for m in _COMMON.finditer(paragraph)}
    if len(named) != 1:
        return None
    spdx = names_data()["common_licenses"].get(named.pop().lower())
    if spdx is None:
        return None
    if spdx.startswith(("GPL-", "LGPL-", "AGPL-")):
        spdx += "-or-later" if _LATER.search(text, 0, first.start()) else "-only"
    return normalise(spdx).expression
