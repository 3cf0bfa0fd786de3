"""What the read side's functions take and give: a store that answers named queries, and rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

Row = dict[str, Any]


class Queryable(Protocol):
    def query(self, name: str, params: dict[str, Any] | None = None) -> list[Row]: ...

    def stream(self, name: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]: ...
