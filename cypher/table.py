"""A table of the graph (``schema``): its name, the typed row it holds, its columns and their types
(derived from the row's type hints), edge ends and the columns Neo4j indexes."""

from __future__ import annotations

import enum
import functools
import types
import typing
from dataclasses import dataclass


class ColumnType(enum.StrEnum):
    STRING = "STRING"
    INT64 = "INT64"
    BOOL = "BOOL"
    STRINGS = "STRING[]"


# A row's Python type gives its column's type; a None in the type lets the column be empty.
_COLUMN_TYPES = {str: ColumnType.STRING, int: ColumnType.INT64, bool: ColumnType.BOOL, list: ColumnType.STRINGS}


def _columns(row: type) -> tuple[tuple[str, ColumnType], ...]:
    """The columns of a row type, in its order (the end-node ids of an edge row are not columns)."""
    out = []
    for name, hint in typing.get_type_hints(row).items():
        if name in ("from", "to"):
            continue
        if isinstance(hint, types.UnionType):  # X | None
            hint = next(a for a in typing.get_args(hint) if a is not type(None))
        out.append((name, _COLUMN_TYPES[typing.get_origin(hint) or hint]))
    return tuple(out)


@dataclass(frozen=True)
class Table:
    """A node table (keyed by ``id``) or, with ``ends``, an edge table between those node tables."""

    name: str
    row: type  # the TypedDict of its rows; the columns derive from it
    ends: tuple[tuple[str, str], ...] = ()
    indexed: tuple[str, ...] = ()  # node columns Neo4j indexes for the named queries
    written: bool = True  # False: made by the classification in Cypher, never bulk-written (nor pushed)

    @functools.cached_property
    def columns(self) -> tuple[tuple[str, ColumnType], ...]:
        return _columns(self.row)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(name for name, _type in self.columns)
