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
staggered (Graphviz's ``unflatten``), and if it is still wider than ``WIDE_COLUMN_PT`` it is printed
at the width of that page (``shrunk``: the one case where its text is smaller).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess

from ..loader.report.analysis import Queryable, Row, dependency_graph, find_module, module_node
from .diagram import RENDER_TIMEOUT, render, to_dot
from .diagram_legend import foot_block

IMAGE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
MM_PT = 72 / 25.4
COLUMN_PT = 182 * MM_PT  # A4 portrait inside the report's margins (14 mm each side)
WIDE_COLUMN_PT = 269 * MM_PT  # A4 landscape inside the same margins
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


def diagram(store: Queryable, firmware_id: str, root: str, edges: list[Row], image: str) -> Row:
    """A finding's diagram as a ``data:`` URL (``image``: svg or png), the width (pt) to show it at, how
    it is placed (``column``, ``wide`` or ``shrunk``), and how many modules it leaves out."""
    graph, omitted = finding_graph(store, firmware_id, root, edges)
    source = to_dot(graph, None, {(e["from"], e["to"]) for e in edges}, legend=False)
    data = render(source, image)
    if natural_width(data, image) > WIDE_COLUMN_PT:
        data = min((data, render(_staggered(source), image)), key=lambda d: natural_width(d, image))
    width = natural_width(data, image)
    place = "column" if width <= COLUMN_PT else "wide" if width <= WIDE_COLUMN_PT else "shrunk"
    return {
        "src": _data_url(data, image),
        "width": round(min(width, WIDE_COLUMN_PT), 1),
        "place": place,
        "nodes": len(graph["nodes"]),
        "omitted": omitted,
    }


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
