"""Names from ELF string tables that are not UTF-8 (kept byte-exact while binding) are stored the
way paths are shown: undecodable bytes as ``\\xNN``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..rootfs import display_path
from .columns import Columns

if TYPE_CHECKING:
    from .graph_rows import GraphRows


def printable(value: object) -> object:
    """A string, or list of strings, with undecodable bytes shown escaped (others as they are)."""
    if isinstance(value, str):
        return value if value.isascii() else display_path(value)
    if isinstance(value, list) and not all(isinstance(v, str) and v.isascii() for v in value):
        return [printable(v) for v in value]
    return value


def make_printable(rows: GraphRows) -> None:
    """Every row of ``rows`` made printable, in place, in the columns that may hold firmware text.
    A column is looked at as a whole first (almost always plain ASCII); only a column with a
    non-ASCII string, or with lists, is gone through row by row."""
    for table in (*rows.nodes.values(), *rows.rels.values()):
        if not table:
            continue
        if isinstance(table, Columns):
            for key, values in table.columns.items():
                if key not in _MADE_HERE and _needs_a_look(values):
                    values[:] = [printable(value) for value in values]
            continue
        dicts = cast("Sequence[dict[str, Any]]", table)  # built here, as plain dicts
        for key in [key for key in table[0] if key not in _MADE_HERE]:
            values = [row[key] for row in dicts]
            if _needs_a_look(values):
                for row, value in zip(dicts, values, strict=True):
                    if (isinstance(value, str) and not value.isascii()) or isinstance(value, list):
                        row[key] = printable(value)


def _needs_a_look(values: list[Any]) -> bool:
    """A column with lists, or with a string that is not ASCII."""
    kinds = set(map(type, values))
    return list in kinds or (str in kinds and not "".join([v for v in values if type(v) is str]).isascii())


# columns whose values linkgraph makes itself, ASCII by construction (edge ends and scopes are ids
# from key_part, hashes, enum values); node ids are checked: a link map's id holds its path
_MADE_HERE = frozenset({"firmware", "from", "to", "scope", "sha256", "sha1", "kind", "machine", "endian", "class"})


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """Stored text fit for a terminal: every character Python does not call printable (control
    and format characters, line separators, unusual spaces) as a ``\\xNN`` / ``\\uNNNN`` escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)
