"""How one module reaches another inside one program's process: the shortest chains of edges of
the program's link map (named query ``link-map-steps``), each edge with its status (used,
declared-unused, hidden, interposed, upcall, missing) and the number of symbols bound across it.

Only the edges that hold in the program's own link map count, so a library's edges into other
programs (a program that defines ``malloc`` interposes on libc in its own process only) never
make a path. A breadth-first search over those edges is a few lines; a variable-length Cypher
match would need a dialect per store and could not return every shortest path in both alike.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..loader.report.analysis import Queryable, Row, find_module

MAX_PATHS = 20  # the shortest chains listed (their number grows fast in a dense link map)


def link_map_steps(store: Queryable, firmware_id: str, program: str) -> list[Row]:
    """The edges of the program's link map: from, to, missing, status, count."""
    return store.query("link-map-steps", {"firmware": firmware_id, "program": program})


def shortest_paths(steps: list[Row], start: str, goal: str, limit: int = MAX_PATHS) -> list[list[Row]]:
    """Every shortest chain of `steps` from `start` to `goal` (at most `limit`, in path order)."""
    out_of: dict[str, list[Row]] = {}
    for step in steps:
        out_of.setdefault(step["from"], []).append(step)
    depth = {start: 0}
    came: dict[str, list[Row]] = {}
    ring = deque([start])
    while ring:
        here = ring.popleft()
        if here == goal:
            continue
        for step in out_of.get(here, []):
            there = step["to"]
            if there not in depth:
                depth[there] = depth[here] + 1
                ring.append(there)
            if depth[there] == depth[here] + 1:
                came.setdefault(there, []).append(step)
    if goal not in depth or goal == start:
        return []
    paths: list[list[Row]] = []

    def back(node: str, tail: list[Row]) -> None:
        if len(paths) >= limit:
            return
        if node == start:
            paths.append(tail)
            return
        for step in sorted(came[node], key=lambda s: (s["from"], s["status"])):
            back(step["from"], [step, *tail])

    back(goal, [])
    return paths


def process_path(store: Queryable, firmware_id: str, program: str, start: str, goal: str) -> dict[str, Any]:
    """The answer of /api/firmware/<id>/path (docs/viewer.md): paths (a symlink's path means its file)
    and a missing soname as `goal`."""
    program = find_module(store, firmware_id, program)["path"]
    start = find_module(store, firmware_id, start)["path"]
    if goal.startswith("/"):
        goal = find_module(store, firmware_id, goal)["path"]
    steps = link_map_steps(store, firmware_id, program)
    paths = shortest_paths(steps, start, goal)
    return {
        "program": program,
        "from": start,
        "to": goal,
        "edges_in_link_map": len(steps),
        "paths": [[_step(s) for s in path] for path in paths],
        "more": len(paths) >= MAX_PATHS,
    }


def _step(row: Row) -> dict[str, Any]:
    return {
        "from": row["from"],
        "to": row["to"],
        "missing": row["missing"],
        "status": row["status"],
        "count": row["count"],
    }
