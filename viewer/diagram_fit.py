"""The Graph tab's drawing laid out for the pane it is shown in (docs/viewer.md "Graph").

Graphviz's layered drawing puts every module of one rank on one row and gives each edge that spans
ranks room on every rank between: a program that needs fourteen libraries, which need each other, is
drawn some 2,200 pt wide and 900 pt high, a quarter of its size once fitted into a pane, too small to
read. So the screen drawing is laid out for the pane (``screen_layout(graph, pane)``, the pane's width
and height in CSS px): Graphviz ranks the modules and orders each rank (``dot -Tplain``: the sizes of the boxes,
their ranks and places); the ranks are then cut into rows of at most *k* modules, either rank by rank
(``LayoutKind.DEPTH``, each rank wrapped) or in reading order (``LayoutKind.READING``, rank after rank,
*k* a row), the rows stacked and centred, and Graphviz routes the edges around the placed modules
(``neato -n2``). The grid shown largest wins when the pane shows it whole and readable (its smallest
text at least 10 px: ``READABLE_SCALE`` of its natural size) and ``GAIN`` times larger than Graphviz's
own drawing; else Graphviz's own drawing is kept (when it is not readable whole either, the viewer
opens it readable at the file). Graphs of more than ``PLACE_LIMIT`` modules keep the layered drawing.

The answer says which layout was chosen (``Layout.describe``): the viewer puts it in the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from ..loader.errors import DiagramError
from .diagram import LAYERED, PLACED, render, to_dot

PX_PER_PT = 96 / 72  # CSS px per pt of the drawing at its natural size
NODE_GAP = 18.0  # pt between two modules of a row
ROW_GAP = 28.0  # pt between two rows: room for the edges and their counts
PAD = 8.0  # pt Graphviz leaves around a drawing, and some room for edges routed round the outside
READABLE_SCALE = 0.75  # the smallest text (10 pt: licences, symbol counts) 10 px on screen
SLACK = 1.03  # a layout is taken for readable whole with this much to spare: the pane may end a line lower
GAIN = 1.2  # how much larger a grid must show the drawing than the layered one to be chosen
PLACE_LIMIT = 80  # modules: larger graphs keep the layered drawing (routing grows fast)
FOCUS_TRIES = 3  # focus layouts tried, each with rows a step narrower, before the layered drawing
PANE_RANGE = (50, 20000)  # px a pane may be said to measure


class LayoutKind(StrEnum):
    """How the modules are placed."""

    LAYERED = "layered"  # Graphviz's own drawing
    DEPTH = "depth"  # each rank wrapped into rows of at most k
    READING = "reading"  # the ranks one after another, k modules a row
    FOCUS = "focus"  # the file, its direct dependencies, then each depth, in rows the pane shows readable


@dataclass(frozen=True)
class Box:
    """A module's box in points (centre, size), as Graphviz drew it."""

    x: float
    y: float
    width: float
    height: float


@dataclass
class Layout:
    """A layout and the size of its drawing in points."""

    kind: LayoutKind
    per_row: int
    width: float
    height: float
    rows: int = 0
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    direct: int = 0  # FOCUS: the file's direct dependencies, in the rows below it

    def scale(self, pane: tuple[float, float]) -> float:
        """The fraction of its natural size at which the drawing fits the pane (px), at most 1."""
        return min(1.0, pane[0] / (self.width * PX_PER_PT), pane[1] / (self.height * PX_PER_PT))

    def describe(self) -> str:
        """What the page says of it."""
        if self.kind is LayoutKind.LAYERED:
            return "Graphviz's layered drawing"
        if self.kind is LayoutKind.DEPTH:
            return f"each depth wrapped into rows of at most {self.per_row} modules ({self.rows} rows)"
        if self.kind is LayoutKind.FOCUS:
            return (
                f"the file, its {self.direct} direct dependencies below it, then each further depth ({self.rows} rows)"
            )
        return f"{self.per_row} modules a row in depth order ({self.rows} rows)"


def parse_plain(text: str) -> tuple[tuple[float, float], dict[str, Box]]:
    """The drawing's size and each node's box, in points, from Graphviz's ``plain`` output."""
    size = (0.0, 0.0)
    boxes: dict[str, Box] = {}
    for line in text.splitlines():
        part = line.split()
        try:
            if part[:1] == ["graph"] and len(part) >= 4:
                size = (float(part[2]) * 72, float(part[3]) * 72)
            elif part[:1] == ["node"] and len(part) >= 6:
                boxes[part[1]] = Box(*(float(v) * 72 for v in part[2:6]))
        except ValueError:
            continue
    return size, boxes


def ranks(boxes: dict[str, Box]) -> list[list[str]]:
    """The nodes by rank (Graphviz's rows, top first), each rank left to right."""
    by_y: dict[int, list[str]] = {}
    for name, box in boxes.items():
        by_y.setdefault(round(box.y), []).append(name)
    return [sorted(by_y[y], key=lambda n: boxes[n].x) for y in sorted(by_y, reverse=True)]


def _chunks(items: list[str], per_row: int) -> list[list[str]]:
    """``items`` cut into the fewest rows of at most ``per_row``, as even as can be."""
    count = -(-len(items) // per_row)
    size, extra = divmod(len(items), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(items[start:end])
        start = end
    return out


def rows_of(kind: LayoutKind, layers: list[list[str]], per_row: int) -> list[list[str]]:
    """The rows of a grid layout."""
    if kind is LayoutKind.DEPTH:
        return [row for layer in layers for row in _chunks(layer, per_row)]
    return _chunks([n for layer in layers for n in layer], per_row)


def place(
    kind: LayoutKind, per_row: int, rows: list[list[str]], boxes: dict[str, Box], row_gap: float = ROW_GAP
) -> Layout:
    """The rows stacked top down, each centred, the modules ``NODE_GAP`` apart, the rows ``row_gap``."""
    positions: dict[str, tuple[float, float]] = {}
    widths = [sum(boxes[n].width for n in row) + NODE_GAP * (len(row) - 1) for row in rows]
    widest = max(widths, default=0.0)
    top = 0.0
    for row, width in zip(rows, widths, strict=True):
        height = max(boxes[n].height for n in row)
        x = (widest - width) / 2
        for name in row:
            positions[name] = (x + boxes[name].width / 2, -(top + height / 2))
            x += boxes[name].width + NODE_GAP
        top += height + row_gap
    return Layout(kind, per_row, widest + 2 * PAD, top - row_gap + 2 * PAD, len(rows), positions)


def choose(natural: Layout, boxes: dict[str, Box], pane: tuple[float, float]) -> Layout:
    """Of the grids the one the pane shows largest (the first on a tie: by depth, then in reading
    order, wider rows first) when it is readable whole and at least ``GAIN`` times as large as
    Graphviz's layered drawing; else the layered drawing."""
    if len(boxes) > PLACE_LIMIT or natural.scale(pane) >= 1:
        return natural
    best = natural
    layers = ranks(boxes)
    widest = max((len(layer) for layer in layers), default=1)
    for kind in (LayoutKind.DEPTH, LayoutKind.READING):
        for per_row in range(len(boxes) if kind is LayoutKind.READING else widest, 0, -1):
            grid = place(kind, per_row, rows_of(kind, layers, per_row), boxes)
            if grid.scale(pane) > best.scale(pane) + 1e-3:
                best = grid
    # routed around placed modules, edges share more of their way than in the layered drawing: worth it
    # only when it makes the whole graph readable
    readable = READABLE_SCALE * SLACK
    wins = best.scale(pane) >= readable and best.scale(pane) >= GAIN * natural.scale(pane)
    return best if wins else natural


def screen_layout(graph: dict[str, Any], pane: tuple[float, float] | None) -> tuple[bytes, Layout | None]:
    """The Graph tab's SVG of ``graph`` (no foot block) laid out for a pane of ``pane`` CSS px (None:
    Graphviz's layered drawing, as before), and the layout chosen. A graph that no layout shows whole
    and readable is drawn by depth from the file (``diagram_focus``), so that the pane opens on the file
    and its direct dependencies."""
    from .diagram_focus import focus_layout  # it builds on this module's layouts

    source = to_dot(graph, legend=False)
    if pane is None:
        return render(source, "svg"), None
    plain, stop, layered = drawn(source).partition(b"\nstop\n")
    size, boxes = parse_plain(plain.decode("utf-8", "replace"))
    chosen = choose(Layout(LayoutKind.LAYERED, 0, *size), boxes, pane)
    tries = [chosen]
    if chosen.scale(pane) < READABLE_SCALE * SLACK and 1 < len(boxes) <= PLACE_LIMIT and "n0" in boxes:
        # Graphviz's router has crashed on some placed graphs: rows a little narrower route otherwise
        tries = [focus_layout(graph, boxes, pane, narrower) for narrower in range(FOCUS_TRIES)]
    for layout in tries:
        if layout.kind is LayoutKind.LAYERED:
            break
        try:
            return routed(to_dot(graph, legend=False, positions=layout.positions)), layout
        except DiagramError:
            continue
    return (layered if stop else render(source, "svg")), Layout(LayoutKind.LAYERED, 0, *size)


@lru_cache(maxsize=16)
def drawn(source: str) -> bytes:
    """Graphviz's layered drawing of ``source``, its sizes and places then its SVG (the same for every
    size of the pane)."""
    return render(source, "plain+svg", engine=LAYERED)


@lru_cache(maxsize=16)
def routed(placed: str) -> bytes:
    """The placed drawing with its edges routed (seconds for some hundred edges; a pane resized across
    widths that keep the same rows asks for the same drawing again)."""
    return render(placed, "svg", engine=PLACED)


def pane_size(args: Mapping[str, str]) -> tuple[float, float] | None:
    """The pane a request's ``width`` and ``height`` (CSS px) name, or None when either is absent or not
    a number of pixels in ``PANE_RANGE``."""
    try:
        width, height = float(args.get("width", "")), float(args.get("height", ""))
    except ValueError:
        return None
    low, high = PANE_RANGE
    return (width, height) if low <= width <= high and low <= height <= high else None
