"""The DLOPEN edge rows of a scan (``cypher.schema.DlopenRow``), for both stores, and the form
their bindings are stored in.

An edge's ``bindings`` are stored as compact JSON: ``{"paths": [...], "bindings": [[m, symbol,
version, p], ...]}`` where ``m`` and ``p`` are positions in ``paths`` (a module's path recurs in
hundreds of bindings: on the /usr+/opt root the form is 7 MiB instead of 24, which the store
copies in a third of the time). ``decode_bindings`` also reads the plain list of
``[module, symbol, version, provider]`` an older linkgraph stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...cypher.schema import DlopenRow
from .edges import DlopenEdge


def dlopen_rows(edges: list[DlopenEdge], module_ids: Mapping[str, str]) -> list[DlopenRow]:
    """One row per edge; ``module_ids`` maps a module's path to its node id."""
    return [
        {
            "from": module_ids[e.source],
            "to": module_ids[e.target],
            "certainty": e.certainty.value,
            "found_in": e.found_in.value,
            "evidence": e.evidence,
            "host": e.host,
            "loaded_at_start": e.loaded_at_start,
            "bindings": encode_bindings(e.bindings),
            "hidden": list(e.hidden),
        }
        for e in edges
    ]


def encode_bindings(bindings: Sequence[Sequence[Any]]) -> str | None:
    """(module, symbol, version, provider) bindings in their stored form; None for none."""
    if not bindings:
        return None
    paths: dict[str, int] = {}
    rows = [[paths.setdefault(m, len(paths)), s, v, paths.setdefault(p, len(paths))] for m, s, v, p in bindings]
    return json.dumps({"paths": list(paths), "bindings": rows}, separators=(",", ":"))


def decode_bindings(stored: str | None) -> list[tuple[str, str, str | None, str]]:
    """The (module, symbol, version, provider) bindings of a stored ``bindings`` value, in order."""
    if not stored:
        return []
    found = json.loads(stored)
    if isinstance(found, list):  # an older linkgraph's plain list
        return [(m, s, v, p) for m, s, v, p in found]
    paths = found["paths"]
    return [(paths[m], s, v, paths[p]) for m, s, v, p in found["bindings"]]
