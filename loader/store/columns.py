"""The rows of a large table held column by column: one list per column instead of a dict per row.

A scan's RESOLVES_TO table has hundreds of thousands of rows. As columns they take a fraction of the
memory, and LadybugDB's Arrow tables are made from the lists as they are; a store that takes rows
one at a time (Neo4j) reads them as dicts, made as it goes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload


class Columns(Sequence[Mapping[str, Any]]):
    """Rows as a list per column, all of one length; ``append`` adds a row given in column order."""

    __slots__ = ("columns",)

    def __init__(self, names: Sequence[str]) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in names}

    def append(self, *values: Any) -> None:
        for column, value in zip(self.columns.values(), values, strict=True):
            column.append(value)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()), ()))

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return {name: column[index] for name, column in self.columns.items()}

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        names = list(self.columns)
        for values in zip(*self.columns.values(), strict=True):
            yield dict(zip(names, values, strict=True))

    def clear(self) -> None:
        for column in self.columns.values():
            column.clear()


def column_values(data: Sequence[Mapping[str, Any]], name: str) -> Sequence[Any]:
    """One column's values in row order: a ``Columns`` table's own list, else read from its rows
    (``None`` where a row lacks the column)."""
    if isinstance(data, Columns):
        return data.columns[name]
    return [row.get(name) for row in data]
