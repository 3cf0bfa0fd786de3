"""The drawings of the compliance report: each finding's path as a small diagram, and the one key
(edge statuses, licence classes) the report shows once beside them.

A finding's diagram is not the whole link map: the module and the modules the finding's edges join
(with licences on the nodes), the finding's edges drawn thick and the module's other edges among
those modules thin (``finding_graph``). An edge of the finding that the module's graph does not
reach (a hop of a path through another module's hidden edge) is added; the report says how many
modules of the link map are not drawn.

Every diagram is shown at Graphviz's own size, so its smallest text (9 pt) prints at 9 pt: never
scaled down. One that is wider than the page's text column (``COLUMN_PT``, A4 portrait) is printed
on a landscape page of its own (``wide``); one wider than that is drawn again with its wide rows
staggered (Graphviz's ``unflatten``) and from left to right, and the drawing that keeps most of its
size is printed; if even that one does not fit the landscape page it is printed as large as fits
(``shrunk``: its text is smaller than 9 pt, never than 8 pt), or, when that would set its text below
8 pt, on pages of its own in parts, split as the diagram PDF splits a drawing (``split``,
``print_sheets``); the HTML report shows the whole drawing.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess

from markupsafe import Markup

from ..loader.report.analysis import Queryable, Row, dependency_graph, find_module, module_node
from .diagram import RENDER_TIMEOUT, render, to_dot
from .diagram_legend import foot_block
from .dot_text import display_text
from .print_cuts import drawing_boxes
from .print_sheets import MIN_SCALE, PageSize, page_layout, sheets_html

IMAGE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
MM_PT = 72 / 25.4
COLUMN_PT = 182 * MM_PT  # A4 portrait inside the report's margins (14 mm each side)
WIDE_COLUMN_PT = 269 * MM_PT  # A4 landscape inside the same margins
WIDE_HEIGHT_PT = 176 * MM_PT - 60  # A4 landscape inside the margins, less the caption
UNFLATTEN = ["-l", "4", "-f", "-c", "4"]  # stagger leaves over 4 ranks, fan out long rows


def finding_graph(store: Queryable, firmware_id: str, root: str, edges: list[Row]) -> tuple[Row, int]:
    """The finding's path: the dependency graph of ``root`` holding every edge in ``edges`` ({from, to,
    status, symbols}), cut to ``root`` and the modules those edges join; and how many modules were
    left out."""
    graph = dependency_graph(store, firmware_id, root)
    by_path = {n["path"]: n for n in graph["nodes"] if n["path"]}
    path_of = {n["id"]: n["path"] for n in graph["nodes"]}
    drawn = {(path_of.get(e["from"]), path_of.get(e["to"])) for e in graph["edges"]}
    for wanted in edges:
        for path in (wanted["from"], wanted["to"]):
            if path not in by_path:
                by_path[path] = module_node(find_module(store, firmware_id, path), f"n{len(graph['nodes'])}")
                graph["nodes"].append(by_path[path])
        if (wanted["from"], wanted["to"]) not in drawn:
            symbols = sorted(wanted.get("symbols") or [])
            graph["edges"].append(
                {
                    "id": f"e{len(graph['edges'])}",
                    "from": by_path[wanted["from"]]["id"],
                    "to": by_path[wanted["to"]]["id"],
                    "status": wanted["status"],
                    "soname": None,
                    "symbols": symbols,
                    "count": len(symbols),
                }
            )
            drawn.add((wanted["from"], wanted["to"]))
    keep = {by_path[root]["id"]} | {by_path[p]["id"] for e in edges for p in (e["from"], e["to"])}
    omitted = len(graph["nodes"]) - len(keep)
    graph["nodes"] = [n for n in graph["nodes"] if n["id"] in keep]
    graph["edges"] = [e for e in graph["edges"] if e["from"] in keep and e["to"] in keep]
    return graph, omitted


def natural_width(data: bytes, image: str) -> float:
    """The width in pt Graphviz drew ``data`` at (0 when it does not say)."""
    if image == "png":  # Graphviz draws PNG at 96 dpi
        return int.from_bytes(data[16:20], "big") * 72 / 96 if data[12:16] == b"IHDR" else 0.0
    found = re.search(rb'<svg[^>]*?\swidth="([0-9.]+)pt"', data[:4000])
    return float(found.group(1)) if found else 0.0


def _staggered(dot_source: str) -> str:
    """``dot_source`` with its wide rows staggered by Graphviz's ``unflatten`` (unchanged without it)."""
    program = shutil.which("unflatten")
    if program is None:
        return dot_source
    try:
        proc = subprocess.run(
            [program, *UNFLATTEN],
            input=dot_source.encode("utf-8", "backslashreplace"),
            capture_output=True,
            timeout=RENDER_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return dot_source
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 and proc.stdout else dot_source


def _data_url(data: bytes, image: str) -> str:
    return f"data:{IMAGE_TYPES[image]};base64,{base64.b64encode(data).decode('ascii')}"


def _size(data: bytes, image: str) -> tuple[float, float]:
    if image == "png":
        return natural_width(data, image), int.from_bytes(data[20:24], "big") * 72 / 96
    found = re.search(rb'<svg[^>]*?\sheight="([0-9.]+)pt"', data[:4000])
    return natural_width(data, image), float(found.group(1)) if found else 0.0


def _scale(size: tuple[float, float]) -> float:
    """How much of its size a drawing keeps on the report's landscape page (1: all of it)."""
    return min(1.0, WIDE_COLUMN_PT / max(size[0], 1.0), WIDE_HEIGHT_PT / max(size[1], 1.0))


def _fit(data: bytes, image: str) -> tuple[bool, int, float]:
    """How well a drawing prints in the report, larger is better: on one page with its text at 8 pt or
    more, then on the fewest pages of its own, then at the larger scale."""
    size = _size(data, image)
    scale = _scale(size)
    return scale >= MIN_SCALE, -page_layout(size, PageSize.A4).pages, scale


def diagram(store: Queryable, firmware_id: str, root: str, edges: list[Row], image: str) -> Row:
    """A finding's diagram as a ``data:`` URL (``image``: svg or png), the width (pt) to show it at, how
    it is placed (``column``, ``wide``, ``shrunk`` or ``split``; a split one with the HTML of its pages,
    ``sheets``), and how many modules it leaves out."""
    return draw(*finding_graph(store, firmware_id, root, edges), root, edges, image)


def draw(graph: Row, omitted: int, root: str, edges: list[Row], image: str) -> Row:
    """``diagram`` of a finding whose graph is known (``finding_graph``): Graphviz only, no store, so
    several can be drawn at once."""
    source = to_dot(graph, None, {(e["from"], e["to"]) for e in edges}, legend=False)
    data = render(source, image)
    size = _size(data, image)
    if size[0] > WIDE_COLUMN_PT:  # the first lines are ours (to_dot's header): no firmware text in them
        tried = [render(_staggered(source), image), render(source.replace("rankdir=TB", "rankdir=LR", 1), image)]
        data = max([data, *tried], key=lambda d: _fit(d, image))
        size = _size(data, image)
    scale = _scale(size)
    place = "column" if size[0] <= COLUMN_PT and size[1] <= WIDE_HEIGHT_PT else "wide" if scale >= 1 else "shrunk"
    found = {
        "src": _data_url(data, image),
        "width": round(size[0] * scale, 1),
        "place": place,
        "nodes": len(graph["nodes"]),
        "omitted": omitted,
    }
    if scale < MIN_SCALE:  # its text would print below 8 pt: on pages of its own, in parts
        sheets = page_layout(size, PageSize.A4, drawing_boxes(data) if image == "svg" else ())
        title = f"the dependency graph of {display_text(root)}"
        # escapes the title; an SVG's pages each draw their part alone
        parts = Markup(sheets_html(data if image == "svg" else found["src"], title, sheets, size))
        found.update(place="split", width=round(size[0], 1), sheets=parts, pages=sheets.pages)
    return found


def key_diagram(image: str) -> Row:
    """The report's key, drawn once: the edge statuses and the licence classes (the exports' foot block
    without a title block), and the width (pt) to show it at."""
    source = (
        'digraph key {\n  graph [fontname="Helvetica"];\n  node [fontname="Helvetica"];\n'
        + foot_block(True, None)
        + "\n}\n"
    )
    data = render(source, image)
    return {"src": _data_url(data, image), "width": round(natural_width(data, image), 1)}
