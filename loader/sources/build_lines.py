"""Build-file lines that link or install libraries: ``-lNAME`` (in ``LDFLAGS``, ``LIBRARIES``, a
link command), and ``cp … libNAME…`` install lines, with file and line. Commented lines are not
read: they link nothing."""

from __future__ import annotations

import posixpath
import re

from .model import LinkLine

MAX_BUILD_FILE = 1 << 20
MAX_TEXT = 300  # a line's text kept up to this

_BUILD_NAMES = re.compile(r"^(?:(?:GNU)?[Mm]akefile(?:\..*)?|.*\.mk|.*\.sh|Rules\.make|Config\.make|.*\.am|build\..*)$")
_LINK = re.compile(r"(?:^|[\s\"'=])-l([A-Za-z_][\w+.-]*)")
_COPY = re.compile(r"^\s*(?:@?\s*)(?:cp|install)\s")
_LIBFILE = re.compile(r"\blib([A-Za-z_][\w+-]*?)(?:[-.][\d.]+)?\.(?:so|a)\b")


def is_build_file(path: str, size: int) -> bool:
    return size <= MAX_BUILD_FILE and _BUILD_NAMES.match(posixpath.basename(path)) is not None


def link_lines(path: str, data: bytes) -> list[LinkLine]:
    out = []
    if b"-l" not in data and b"lib" not in data:
        return out
    for number, raw in enumerate(data.split(b"\n"), 1):
        text = raw.decode("utf-8", "replace").strip()
        if not text or text.startswith("#"):
            continue
        names = _LINK.findall(text)
        if _COPY.match(text):
            names += _LIBFILE.findall(text)
        if names:
            out.append(LinkLine(path, number, text[:MAX_TEXT], tuple(dict.fromkeys(names))))
    return out
