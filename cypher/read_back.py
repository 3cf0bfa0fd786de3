"""The read-back of ``linkgraph push``: one firmware's nodes and edges of each table of the schema
(``schema``), every written column, as the writers take them."""

from __future__ import annotations

import json
from collections.abc import Mapping

from .schema import CLASSIFIED, TABLES


def read_nodes(label: str) -> str:
    """One firmware's nodes of one table, every column (``$firmware``)."""
    table = TABLES[label]
    key = "id" if label == "Firmware" else "firmware"
    props = ", ".join(f"n.{p} AS {p}" for p in table.column_names)
    return f"MATCH (n:{table.name} {{{key}: $firmware}}) RETURN {props}"


def read_edges(table: str, src: str, dst: str, absent: Mapping[str, object] | None = None) -> str:
    """One firmware's edges of one table between two node tables, as the writers take them; a column
    in ``absent`` (Neo4j's ``ABSENT``: left out where it has that value) reads as that value there."""
    edge, key, absent = TABLES[table], "id" if src == "Firmware" else "firmware", absent or {}
    value = {p: f"coalesce(e.{p}, {json.dumps(absent[p])})" if p in absent else f"e.{p}" for p in edge.column_names}
    props = "".join(f", {value[p]} AS {p}" for p in edge.column_names if p not in CLASSIFIED)
    return (
        f"MATCH (a:{TABLES[src].name} {{{key}: $firmware}})-[e:{edge.name}]->(b:{TABLES[dst].name}) "
        f"RETURN a.id AS from, b.id AS to{props}"
    )
