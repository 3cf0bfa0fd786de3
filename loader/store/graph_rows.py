"""What a store writes for one firmware (``GraphRows``: rows per node and edge table), and the
node ids the rows use."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cypher.schema import EDGES, NODES

NODE_TABLES = tuple(t.name for t in NODES if t.written)
REL_TABLES = tuple(t.name for t in EDGES if t.written)


Rows = Sequence[Mapping[str, Any]]  # the rows of one table: its TypedDict's, or as a store read them


@dataclass
class GraphRows:
    """What a store writes for one firmware: rows per node table and per (edge table, end tables)."""

    firmware: str
    nodes: dict[str, Rows] = field(default_factory=dict)
    # (table, from-label, to-label) -> rows with "from" and "to" ids
    rels: dict[tuple[str, str, str], Rows] = field(default_factory=dict)
    # True: a store may empty each table's rows once it has taken them (the scan writes them once)
    disposable: bool = False
    # the scan's last stage, still to run: it fills in the tables it finds (``complete``); a store
    # may write the other tables meanwhile
    later: Callable[[], None] | None = None

    def complete(self) -> None:
        if self.later is not None:
            later, self.later = self.later, None
            later()


def key_part(name: str) -> str:
    """An injective, ASCII form of a name from the firmware, for node ids: the name itself when it
    is ASCII without ``\\``, ``%`` or ``@``, else ``%`` and its exact bytes percent-encoded. (Displayed
    names escape undecodable bytes as ``\\xNN``, so a raw byte and a literal backslash look
    alike there; their ids never do.)"""
    if name.isascii() and "\\" not in name and "%" not in name and "@" not in name:
        return name
    return "%" + urllib.parse.quote(os.fsencode(name), safe="")


def module_id(firmware: str, path: str) -> str:
    return f"{firmware[:16]}:{key_part(path)}"


def symbol_id(firmware: str, name: str, version: str | None) -> str:
    return f"{firmware[:16]}:{key_part(name)}@{key_part(version or '')}"
