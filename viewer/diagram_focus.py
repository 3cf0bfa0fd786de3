"""The Graph tab's drawing of a graph too large to be read whole in its pane (docs/viewer.md "The
Graph tab"): the program on top, its direct dependencies in the rows below it, then the modules two
steps away, and so on, each depth wrapped into rows as wide as the pane shows at the readable zoom.
The tab opens at that zoom at the program, so the program and its direct dependencies are what the
pane shows first (when they fit its height), the rest below, one drag or *Fit* away.

Graphviz's layered drawing ranks a module by its longest chain from the program, not its shortest:
gdb's 21 direct dependencies sit on five ranks among 37 others, spread over 5,600 pt; at the readable
zoom the pane shows five modules. Here the depth is the fewest edges from the program (breadth-first),
and within a depth the modules keep Graphviz's order (rank, then left to right), which keeps the
crossings Graphviz avoided avoided.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .diagram_fit import NODE_GAP, PAD, PX_PER_PT, READABLE_SCALE, Box, Layout, LayoutKind, place

FOCUS_ROW_GAP = 20.0  # pt between two rows: a symbol count's height and some room for the edges
ROOM_STEP = 40.0  # pt: the width the rows may fill, rounded down to a multiple of this


def depths(graph: dict[str, Any], root: str = "n0") -> dict[str, int]:
    """Each node's fewest edges from ``root`` along the graph's edges (unreached nodes: one deeper than
    the deepest reached)."""
    out: dict[str, list[str]] = {}
    for edge in graph.get("edges") or []:
        out.setdefault(str(edge.get("from")), []).append(str(edge.get("to")))
    found = {root: 0}
    todo = deque([root])
    while todo:
        node = todo.popleft()
        for nxt in out.get(node, []):
            if nxt not in found:
                found[nxt] = found[node] + 1
                todo.append(nxt)
    deepest = max(found.values(), default=0)
    return {str(n.get("id")): found.get(str(n.get("id")), deepest + 1) for n in graph.get("nodes") or []}


def _rows(order: list[str], boxes: dict[str, Box], room: float) -> list[list[str]]:
    """``order`` cut into rows no wider than ``room`` points (one module at least a row)."""
    rows: list[list[str]] = []
    width = 0.0
    for name in order:
        grown = width + NODE_GAP + boxes[name].width
        if rows and grown <= room:
            rows[-1].append(name)
            width = grown
        else:
            rows.append([name])
            width = boxes[name].width
    return rows


def focus_layout(graph: dict[str, Any], boxes: dict[str, Box], pane: tuple[float, float], narrower: int = 0) -> Layout:
    """The modules by depth from the file (``n0``), each depth in rows that the pane (CSS px) shows
    whole across at the readable zoom (``narrower``: that many steps of ``ROOM_STEP`` narrower)."""
    depth = depths(graph)
    rank = {name: index for index, name in enumerate(sorted(boxes, key=lambda n: (-round(boxes[n].y), boxes[n].x)))}
    room = pane[0] / (READABLE_SCALE * PX_PER_PT) - 2 * PAD
    room = max(ROOM_STEP, (room // ROOM_STEP - narrower) * ROOM_STEP)  # widths share a drawing (routing takes seconds)
    rows: list[list[str]] = []
    for level in sorted({depth.get(n, 0) for n in boxes}):
        members = sorted((n for n in boxes if depth.get(n, 0) == level), key=lambda n: rank[n])
        rows += _rows(members, boxes, room)
    layout = place(LayoutKind.FOCUS, 0, rows, boxes, FOCUS_ROW_GAP)
    layout.direct = sum(1 for n in boxes if depth.get(n) == 1)
    return layout
