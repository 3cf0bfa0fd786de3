"""How one module reaches another inside one program's process: the shortest chains of edges of
the program's link map (named query ``link-map-steps``), each edge with its status (used,
declared-unused, hidden, interposed, upcall, missing) and the number of symbols bound across it.

Only the edges that hold in the program's own link map count, so a library's edges into other
programs (a program that defines ``malloc`` interposes on libc in its own process only) never
make a path. A breadth-first search over those edges is a few lines; a variable-length Cypher
match would need a dialect per store and could not return every shortest path in both alike.

The search is iterative and its work bounded per request (nodes visited, hops, paths listed): a
link map of any depth or width answers with what was found and a note when a bound was reached.
What a person types is taken as the command line takes a path (docs/viewer.md): a module's path
or a symlink's, the path without its leading slash, a file name or soname that names one module
(in the program's process first), else a message with the closest names.
"""

from __future__ import annotations

import posixpath
from collections import deque
from typing import Any

from ..loader.errors import NotFoundError, QueryError
from ..loader.near_names import close_paths, did_you_mean
from ..loader.report.analysis import Queryable, Row

MAX_PATHS = 20  # the shortest chains listed (their number grows fast in a dense link map)
MAX_VISITED = 50_000  # modules and sonames reached by the search (a link map holds a few thousand)
MAX_HOPS = 10_000  # edges on one path
MAX_TRIES = 10_000  # partial chains taken off the stack while the paths are listed


class AmbiguousName(QueryError):
    """A name that fits several modules (a 400: the message lists them)."""


def link_map_steps(store: Queryable, firmware_id: str, program: str) -> list[Row]:
    """The edges of the program's link map: from, to, missing, status, count."""
    return store.query("link-map-steps", {"firmware": firmware_id, "program": program})


def shortest_paths(steps: list[Row], start: str, goal: str, limit: int = MAX_PATHS) -> tuple[list[list[Row]], str]:
    """Every shortest chain of `steps` from `start` to `goal` (at most `limit`, in path order), and
    a note when a bound of the search was reached ("" otherwise). Iterative: no depth of link map
    reaches Python's recursion limit."""
    out_of: dict[str, list[Row]] = {}
    for step in steps:
        out_of.setdefault(step["from"], []).append(step)
    depth = {start: 0}
    came: dict[str, list[Row]] = {}
    ring = deque([start])
    note = ""
    while ring:
        here = ring.popleft()
        if here == goal or depth[here] >= MAX_HOPS:
            continue
        for step in out_of.get(here, []):
            there = step["to"]
            if there not in depth:
                if len(depth) >= MAX_VISITED:
                    note = f"the search stopped after {MAX_VISITED:,} modules"
                    ring.clear()
                    break
                depth[there] = depth[here] + 1
                ring.append(there)
            if depth[there] == depth[here] + 1:
                came.setdefault(there, []).append(step)
    if goal not in depth or goal == start:
        return [], note
    for node in came:
        came[node].sort(key=lambda s: (s["from"], s["status"]))
    paths: list[list[Row]] = []
    stack: list[tuple[str, list[Row]]] = [(goal, [])]  # (node, the chain from it to the goal)
    tries = 0
    while stack and len(paths) < limit:
        tries += 1
        if tries > MAX_TRIES:
            note = note or f"the listing stopped after {MAX_TRIES:,} steps"
            break
        node, tail = stack.pop()
        if node == start:
            paths.append(tail)
            continue
        # pushed in reverse, so that the chains come out in the order of their steps
        stack.extend((step["from"], [step, *tail]) for step in reversed(came[node]))
    return paths, note


def resolve(store: Queryable, firmware_id: str, typed: str, steps: list[Row] | None = None) -> str:
    """The module (or missing soname, when ``steps`` are given) a person means by ``typed``: a path
    or symlink's path, the same without its leading slash, else a file name, symlink name or
    soname naming one module (in the process of ``steps`` first). NotFoundError with the closest
    paths, or AmbiguousName listing the candidates."""
    text = typed.strip()
    for candidate in dict.fromkeys((text, posixpath.normpath("/" + text.lstrip("/")))):
        rows = store.query("module", {"firmware": firmware_id, "path": candidate})
        if rows:
            return next((r["path"] for r in rows if r["path"] == candidate), rows[0]["path"])
    name = posixpath.basename(text.rstrip("/"))
    named: dict[str, set[str]] = {}  # a name (file name, symlink name, soname) -> module paths
    known: list[str] = []
    for row in store.query("module-names", {"firmware": firmware_id}):
        known += [row["path"], *(row["aliases"] or [])]
        for alias in [row["path"], *(row["aliases"] or [])]:
            named.setdefault(posixpath.basename(alias), set()).add(row["path"])
        if row["soname"]:
            named.setdefault(row["soname"], set()).add(row["path"])
    found = named.get(name, set())
    if steps is not None:
        in_process = {s["from"] for s in steps} | {s["to"] for s in steps}
        found = (found & in_process) or found
        missing = {s["to"] for s in steps if s["missing"]}
        if not found and name in missing:
            return name
    if len(found) == 1:
        return next(iter(found))
    if found:
        listed = ", ".join(sorted(found)[:5])
        raise AmbiguousName(f"{typed!r} names {len(found)} files: {listed}; give the whole path")
    near = did_you_mean(close_paths(text, known))
    raise NotFoundError(f"no ELF file named {typed!r} in this firmware{near}")


def process_path(store: Queryable, firmware_id: str, program: str, start: str, goal: str) -> dict[str, Any]:
    """The answer of /api/firmware/<id>/path (docs/viewer.md): each name resolved (``resolve``),
    a missing soname as `goal`."""
    program = resolve(store, firmware_id, program)
    start = resolve(store, firmware_id, start)
    steps = link_map_steps(store, firmware_id, program)
    goal = resolve(store, firmware_id, goal, steps)
    paths, note = shortest_paths(steps, start, goal)
    return {
        "program": program,
        "from": start,
        "to": goal,
        "edges_in_link_map": len(steps),
        "paths": [[_step(s) for s in path] for path in paths],
        "more": len(paths) >= MAX_PATHS,
        "note": note,
    }


def _step(row: Row) -> dict[str, Any]:
    return {
        "from": row["from"],
        "to": row["to"],
        "missing": row["missing"],
        "status": row["status"],
        "count": row["count"],
    }
