"""The DLOPEN edge rows of a scan (``cypher.schema.DlopenRow``), for both stores."""

from __future__ import annotations

import json
from collections.abc import Mapping

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
            "bindings": json.dumps([list(b) for b in e.bindings]) if e.bindings else None,
            "hidden": list(e.hidden),
        }
        for e in edges
    ]
