"""Where a drawing split over several pages is cut: between its modules, never through one.

A Graphviz drawing too large for one page at a readable size is printed in parts (``print_sheets``).
Equal parts cut wherever the page ends, through a module's box and its name, so that neither page
shows it whole. Here each cut is placed near the even division, at the place that crosses the fewest
boxes, and the next part starts there: a part is never larger than a page, a box is whole on
one page where the drawing allows it, and the drawing may take a page more.

The boxes are read from the SVG Graphviz wrote: each node's shapes and texts, and each edge's label
(its text's width estimated from its length and font size, as no font metrics are at hand here).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence

SVG = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in the drawing's pt, y downwards
TEXT_WIDTH_EM = 0.62  # a Helvetica character's mean advance, in ems (an estimate, on the safe side)
NUMBER = re.compile(r"-?[0-9.]+(?:e-?[0-9]+)?")


def _transform(graph: ET.Element) -> tuple[float, float, float, float]:
    """(sx, sy, tx, ty) of the top group's ``scale(..) rotate(0) translate(..)``."""
    text = graph.get("transform") or ""
    scale = re.search(r"scale\(([^)]*)\)", text)
    move = re.search(r"translate\(([^)]*)\)", text)
    sx, sy = [*map(float, NUMBER.findall(scale.group(1))), 1.0, 1.0][:2] if scale else (1.0, 1.0)
    tx, ty = [*map(float, NUMBER.findall(move.group(1))), 0.0, 0.0][:2] if move else (0.0, 0.0)
    return sx, sy, tx, ty


def points(element: ET.Element) -> Iterator[tuple[float, float]]:
    tag = element.tag.removeprefix(SVG)
    if tag in ("polygon", "polyline"):
        values = list(map(float, NUMBER.findall(element.get("points") or "")))
        yield from zip(values[0::2], values[1::2], strict=False)
    elif tag == "ellipse":
        cx, cy = float(element.get("cx", 0)), float(element.get("cy", 0))
        rx, ry = float(element.get("rx", 0)), float(element.get("ry", 0))
        yield from ((cx - rx, cy - ry), (cx + rx, cy + ry))
    elif tag == "text":
        x, y = float(element.get("x", 0)), float(element.get("y", 0))
        size = float(element.get("font-size", 9))
        width = len("".join(element.itertext())) * size * TEXT_WIDTH_EM
        anchor = element.get("text-anchor", "start")
        left = x - (width / 2 if anchor == "middle" else width if anchor == "end" else 0)
        yield from ((left, y - size), (left + width, y + size * 0.25))


def svg_frame(root: ET.Element) -> tuple[ET.Element, float, tuple[float, float, float, float]] | None:
    """A Graphviz SVG's top group, the pt in one unit of its ``viewBox``, and the group's (sx, sy, tx,
    ty) (``_transform``); None when it has no group or no ``viewBox``."""
    graph = root.find(f"{SVG}g")
    view = list(map(float, NUMBER.findall(root.get("viewBox") or "")))
    width = float((NUMBER.findall(root.get("width") or "") or [0])[0])
    if graph is None or len(view) != 4 or view[2] <= 0:
        return None
    return graph, width / view[2] if width else 1.0, _transform(graph)


def drawing_boxes(svg: bytes) -> list[Box]:
    """The boxes of a Graphviz SVG's nodes and edge labels, in pt of its ``width``/``height``."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return []
    frame = svg_frame(root)
    if frame is None:
        return []
    graph, unit, (sx, sy, tx, ty) = frame
    boxes = []
    for group in graph.iter(f"{SVG}g"):
        kinds = (group.get("class") or "").split()
        if "node" in kinds:
            shapes = list(group.iter())
        elif "edge" in kinds:
            shapes = list(group.iter(f"{SVG}text"))
        else:
            continue
        found = [((x + tx) * sx * unit, (y + ty) * sy * unit) for shape in shapes for x, y in points(shape)]
        if found:
            xs, ys = [p[0] for p in found], [p[1] for p in found]
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
    return boxes


def cuts(length: float, part: float, spans: Sequence[tuple[float, float]]) -> list[float]:
    """Where a length ``length`` is cut into parts of at most ``part``: near the even division of what
    is left (within a quarter of a part, never less than half a part), at the place that crosses the
    fewest of ``spans`` (each (start, end)), the nearest to the even cut of those."""
    out: list[float] = []
    start = 0.0
    while start + part < length - 1e-6:
        target = start + (length - start) / math.ceil((length - start) / part - 1e-9)
        high = start + part
        low = min(target, max(start + part / 2, target - part / 4))
        places = {target, high} | {edge for span in spans for edge in span if low <= edge < high}
        cut = min(places, key=lambda c: (sum(a < c < b for a, b in spans), abs(c - target)))
        out.append(cut)
        start = cut
    return out
