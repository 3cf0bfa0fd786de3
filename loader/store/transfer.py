"""Copy one firmware's graph from one store to another (``linkgraph push``).

The rows are read back table by table and written with the target's own bulk writer, so the
target ends up exactly as if it had scanned the firmware itself (classification included).
"""

from __future__ import annotations

from typing import Any

from .base import GraphStore
from .ladybug_store import COLUMNS
from .rows import NODE_TABLES, REL_TABLES, GraphRows


def _node_query(label: str) -> str:
    key = "id" if label == "Firmware" else "firmware"
    props = ", ".join(f"n.{p} AS {p}" for p in COLUMNS[label])
    return f"MATCH (n:{label} {{{key}: $firmware}}) RETURN {props}"


def _rel_query(rel: str, src: str, dst: str) -> str:
    key = "id" if src == "Firmware" else "firmware"
    props = "".join(f", e.{p} AS {p}" for p in COLUMNS[rel] if p not in ("status", "symbols"))
    return f"MATCH (a:{src} {{{key}: $firmware}})-[e:{rel}]->(b:{dst}) RETURN a.id AS from, b.id AS to{props}"


def copy_firmware(source: GraphStore, target: GraphStore, firmware: str) -> dict[str, Any]:
    """Write ``firmware`` of ``source`` into ``target``, replacing it there."""
    rows = GraphRows(firmware)
    params = {"firmware": firmware}
    for label in NODE_TABLES:
        rows.nodes[label] = source.execute(_node_query(label), params)
    pairs = [
        ("CONTAINS", "Firmware", "Module"),
        ("NEEDED", "Module", "Module"),
        ("NEEDED", "Module", "Missing"),
        ("RESOLVES_TO", "Module", "Module"),
        ("PROVIDES", "Module", "Symbol"),
        ("UNRESOLVED", "Module", "Symbol"),
    ]
    assert {p[0] for p in pairs} == set(REL_TABLES)
    for rel, src, dst in pairs:
        found = source.execute(_rel_query(rel, src, dst), params)
        if rel == "NEEDED":
            for row in found:
                row.update(status=None, symbols=[])
        rows.rels[(rel, src, dst)] = found
    target.replace_firmware(rows)
    name = rows.nodes["Firmware"][0]["name"] if rows.nodes["Firmware"] else firmware
    edges = sum(len(v) for v in rows.rels.values())
    return {"name": name, "modules": len(rows.nodes["Module"]), "edges": edges}
