"""Copy one firmware's graph from one store to another (``linkgraph push``).

The rows are read back table by table and written with the target's own bulk writer, so the
target ends up exactly as if it had scanned the firmware itself (classification included).
"""

from __future__ import annotations

from typing import Any

from ...cypher.neo4j_schema import ABSENT
from ...cypher.read_back import read_edges, read_nodes
from ...cypher.schema import EDGES
from .base import GraphStore
from .graph_rows import NODE_TABLES, GraphRows


def copy_firmware(source: GraphStore, target: GraphStore, firmware: str) -> dict[str, Any]:
    """Write ``firmware`` of ``source`` into ``target``, replacing it there."""
    rows = GraphRows(firmware)
    params = {"firmware": firmware}
    for label in NODE_TABLES:
        rows.nodes[label] = source.execute(read_nodes(label), params)
    pairs = [(t.name, src, dst) for t in EDGES if t.written for src, dst in t.ends]
    for rel, src, dst in pairs:
        found = source.execute(read_edges(rel, src, dst, ABSENT.get(rel)), params)
        if rel == "NEEDED":  # classified again by the target
            for row in found:
                row.update(status=None, symbols=[])
        rows.rels[(rel, src, dst)] = found
    target.replace_firmware(rows)
    name = rows.nodes["Firmware"][0]["name"] if rows.nodes["Firmware"] else firmware
    edges = sum(len(v) for v in rows.rels.values())
    return {"name": name, "modules": len(rows.nodes["Module"]), "edges": edges}
