"""One part of a Graphviz drawing as a drawing of its own, for a page that prints only that part.

A drawing split over pages (``print_sheets``) used to put the whole SVG on every page, clipped to the
page's part: WeasyPrint then drew every module and edge once per page (a 59-module program's 26
pages drew 26 times all 247 of them, 85 % of the time the PDF took). ``svg_part`` moves the SVG's
``viewBox`` to the part and leaves out the nodes and edges whose shapes lie wholly outside it, so
each page draws what it shows. ``root_box`` finds the drawn program (the node of class ``root``),
whose part is printed first.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .print_cuts import NUMBER, SVG, Box, points, svg_frame

SVG_NS = SVG.strip("{}")
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _kinds(group: ET.Element) -> list[str]:
    return (group.get("class") or "").split()


def _box(group: ET.Element, place: tuple[float, float, float, float]) -> Box | None:
    """The box in pt of the drawing of everything ``group`` draws (its paths' points too)."""
    sx, sy, tx, ty = place
    found = [xy for shape in group.iter() for xy in points(shape)]
    for path in group.iter(f"{SVG}path"):
        values = [float(v) for v in NUMBER.findall(path.get("d") or "")]
        found.extend(zip(values[0::2], values[1::2], strict=False))
    if not found:
        return None
    xs = [(x + tx) * sx for x, _ in found]
    ys = [(y + ty) * sy for _, y in found]
    return min(xs), min(ys), max(xs), max(ys)


def _read(svg: bytes) -> tuple[ET.Element, ET.Element, float, tuple[float, float, float, float]] | None:
    """The SVG's root, its top group, the pt in a unit, and what takes the group's points to pt of the drawing."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return None
    frame = svg_frame(root)
    if frame is None:
        return None
    graph, unit, (sx, sy, tx, ty) = frame
    return root, graph, unit, (sx * unit, sy * unit, tx, ty)


def svg_part(svg: bytes, part: Box) -> bytes:
    """The part ``part`` (x0, y0, x1, y1 in pt of the drawing) of Graphviz SVG ``svg`` as an SVG as large
    as the part; ``svg`` itself when it cannot be read."""
    read = _read(svg)
    if read is None:
        return svg
    root, graph, unit, place = read
    x0, y0, x1, y1 = part
    for group in list(graph):
        if group.tag != f"{SVG}g" or not {"node", "edge"} & set(_kinds(group)):
            continue
        box = _box(group, place)
        if box is not None and (box[2] < x0 or box[0] > x1 or box[3] < y0 or box[1] > y1):
            graph.remove(group)
    width, height = x1 - x0, y1 - y0
    root.set("viewBox", f"{x0 / unit:.2f} {y0 / unit:.2f} {width / unit:.2f} {height / unit:.2f}")
    root.set("width", f"{width:.2f}pt")
    root.set("height", f"{height:.2f}pt")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def root_box(svg: bytes) -> Box | None:
    """The box in pt of the drawing of its program (the node of class ``root``), None without one."""
    read = _read(svg)
    if read is None:
        return None
    _root, graph, _unit, place = read
    for group in graph.iter(f"{SVG}g"):
        if "node" in _kinds(group) and "root" in _kinds(group):
            return _box(group, place)
    return None
