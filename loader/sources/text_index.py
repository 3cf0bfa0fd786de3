"""A release's C sources as two lookups: the segments of its string literals and the functions it
defines, each with the file and line where they are (BAT's source check, with every place shown).

A literal's escapes are undone and it is cut where the program's bytes would break a printable run
(``\\n``, ``\\t``, other escapes), so a segment is what ``strings`` finds in a binary built from it.
A definition is a line starting in column 0 with a name and ``(`` and no ``;``: how C sources
write the function a binary exports (a call is indented, a prototype ends with ``;``)."""

from __future__ import annotations

import re

SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".S", ".y", ".l")
MAX_SOURCE = 2 << 20  # a source file larger than this is not indexed (generated tables)
MIN_SEGMENT = 6  # shorter pieces of text say nothing about their origin
MAX_PLACES = 6  # places kept per segment or function (enough to tell one folder from many)

# unrolled (a run of plain characters, then escapes each followed by one): linear, no alternation per
# character; a definition's line found from its line end (a literal "\n" the engine searches for fast)
_LITERAL = re.compile(rb'"([^"\\\n]*(?:\\.[^"\\\n]*)*)"')
MAX_LITERAL = 400
_ESCAPE = re.compile(r"\\(.)")
_DEFINITION = re.compile(rb"\n([A-Za-z_][\w \t\*]*)\([^;\n{}]*$", re.M)
_LAST_NAME = re.compile(rb"([A-Za-z_]\w{2,})[ \t]*$")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "defined", "define"})
_KEEP = {'"': '"', "\\": "\\", "'": "'", "?": "?"}


def segments(literal: str) -> list[str]:
    """A C literal's text (escapes undone) cut at the escapes that break a printable run."""
    parts = _ESCAPE.sub(lambda m: _KEEP.get(m.group(1), "\0"), literal).split("\0")
    return [p for p in (s.strip() for s in parts) if len(p) >= MIN_SEGMENT]


def binary_segments(text: str) -> list[str]:
    """A binary's printable run cut the same way (at tabs and line ends)."""
    parts = re.split(r"[\t\n\r\x0b\x0c]", text)
    return [p for p in (s.strip() for s in parts) if len(p) >= MIN_SEGMENT]


def is_source(path: str, size: int) -> bool:
    return path.endswith(SOURCE_SUFFIXES) and size <= MAX_SOURCE


def _add(table: dict[str, list[tuple[int, int]]], key: str, place: tuple[int, int]) -> None:
    places = table.get(key)
    if places is None:
        table[key] = [place]
    elif len(places) < MAX_PLACES:
        places.append(place)


def index_source(
    number: int,
    data: bytes,
    literals: dict[str, list[tuple[int, int]]],
    functions: dict[str, list[tuple[int, int]]],
) -> None:
    """Add one source file's literal segments and function definitions (with line numbers)."""
    line, seen = 1, 0  # matches come in order: lines are counted between them, in C
    for match in _LITERAL.finditer(data):
        raw = match.group(1)
        if not MIN_SEGMENT <= len(raw) <= MAX_LITERAL:
            continue
        found = segments(raw.decode("latin-1"))
        if found:
            line += data.count(b"\n", seen, match.start())
            seen = match.start()
            for segment in found:
                _add(literals, segment, (number, line))
    line, seen = 1, 0
    for match in _DEFINITION.finditer(data):
        named = _LAST_NAME.search(match.group(1))
        if named is None:
            continue
        name = named.group(1).decode("ascii")
        if name not in _NOT_FUNCTIONS:
            line += data.count(b"\n", seen, match.start() + 1)  # the match starts at the line end before it
            seen = match.start() + 1
            _add(functions, name, (number, line))
