"""Exports for people outside the viewer: the per-file diagram rendered by Graphviz (SVG, PDF, PNG)
with its legend and title block, and the ELF-analysis table as CSV (docs/viewer.md)."""

from __future__ import annotations

import csv
import io
import posixpath
import re
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, jsonify, request

from ..loader.errors import DiagramError, LinkgraphError
from ..loader.model import Status
from ..loader.report import analysis
from ..loader.report.kernel_view import module_kernel_links
from ..loader.report.source_view import mark_graph, source_statuses
from .api import required_arg
from .diagram_export import DEFAULT_DPI, PageSize, check_dpi, export
from .diagram_fit import pane_size, screen_layout
from .dot_text import display_text
from .drawing_style import TitleBlock
from .graph_view import diagram_graph
from .store_access import current_store, firmware_or_404

bp = Blueprint("exports", __name__, url_prefix="/api/firmware")

MIMETYPES = {"svg": "image/svg+xml", "pdf": "application/pdf", "png": "image/png"}
CSV_COLUMNS = ["section", "from", "to", "soname", "status", "symbols", "executables"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# an SVG opened on its own may not run or fetch anything
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


def download_name(path: str, suffix: str) -> str:
    """A safe file name for a download: the file's base name reduced to [A-Za-z0-9._-], plus ``suffix``."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", posixpath.basename(path.rstrip("/"))).lstrip(".")[:100]
    return f"{base or 'file'}{suffix}"


def spreadsheet_safe(value: Any) -> str:
    """A CSV cell shown as the diagram shows it (control characters as ``\\xNN``), which a spreadsheet
    will not run as a formula (a leading apostrophe defuses one)."""
    text = "" if value is None else display_text(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _joined(items: Any) -> str:
    return " ".join(str(item) for item in items or [])


def analysis_rows(found: dict[str, Any]) -> Iterator[list[Any]]:
    """The ELF-analysis table of ``analysis.file_analysis``: one row per edge or symbol group."""
    path = found["module"]["path"]
    for e in found["declared"]:
        yield ["declared", path, e["to"], e["soname"], e["status"], _joined(e["symbols"]), ""]
    for e in found["used"]:
        yield ["used", path, e["to"], e["soname"], Status.USED.value, _joined(e["symbols"]), ""]
    for e in found["declared_unused"]:
        yield ["declared-unused", path, e["to"], e["soname"], Status.DECLARED_UNUSED.value, "", ""]
    for e in found["hidden"]:
        yield ["hidden", path, e["to"], e["soname"], Status.HIDDEN.value, _joined(e["symbols"]), ""]
    for status in (Status.INTERPOSED, Status.UPCALL):  # no dependency: each its own section
        for e in found.get(status.value, []):
            yield [status.value, path, e["to"], e["soname"], status.value, _joined(e["symbols"]), ""]
    for e in found["missing"]:
        yield ["missing", path, None, e["soname"], "missing", "", ""]
    for e in found["used_by"]:
        yield ["used-by", e["module"], path, None, e["status"], _joined(e["symbols"]), ""]
    for e in found.get("interposes_on", []):  # this file first in their lookup: no use of it
        yield ["interposes-on", e["module"], path, None, Status.INTERPOSED.value, _joined(e["symbols"]), ""]
    for e in found.get("called_back_by", []):  # upcalls into the file: no use of it
        yield ["called-back-by", e["module"], path, None, Status.UPCALL.value, _joined(e["symbols"]), ""]
    for u in found["unresolved"]:
        symbol = f"{u['symbol']}@{u['version']}" if u.get("version") else u["symbol"]
        yield ["unresolved", path, None, None, "weak" if u["weak"] else "strong", symbol, _joined(u["executables"])]
    for d in found["duplicates"]:
        for provider in d["providers"]:
            status = "chosen" if provider == d["chosen"] else "interposed"
            yield ["duplicate", provider, None, None, status, d["symbol"], _joined(d["executables"])]
    for section, key, inward in (("kernel-link", "kernel_links", False), ("kernel-used-by", "kernel_used_by", True)):
        for k in found.get(key, []):
            ends = [k["module"], path] if inward else [path, k["to"]]
            yield [section, *ends, None, k["state"], _joined(s["name"] for s in k["symbols"]), ""]
            if k["gpl_only"]:  # the GPL-only ones among them (docs/kernel.md)
                yield [f"{section}-gpl-only", *ends, None, k["state"], _joined(k["gpl_only"]), ""]


def analysis_csv(found: dict[str, Any]) -> str:
    """The ELF-analysis table as CSV text (header row first)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in analysis_rows(found):
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return out.getvalue()


def _view_graph(firmware_id: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(firmware row, the graph the diagram draws, the path asked for) of a diagram request:
    ``path``, ``direct=1`` (the file's own edges only), ``expand=PREFIX`` (repeatable: plugin
    families left unfolded)."""
    path = required_arg("path")
    firmware = firmware_or_404(firmware_id)
    graph = analysis.dependency_graph(current_store(), firmware["id"], path)
    graph = mark_graph(graph, source_statuses(current_store(), firmware["id"]))  # modules without source
    direct = request.args.get("direct", "") in ("1", "true", "yes")
    return firmware, diagram_graph(graph, direct, request.args.getlist("expand")), path


@bp.get("/<firmware_id>/diagram.json")
def diagram_json(firmware_id: str) -> Response:
    """The graph JSON the diagram draws (docs/viewer.md): the file's graph with ``direct`` and
    plugin families (nodes of kind ``group``, merged edges with ``members``) applied."""
    return jsonify(_view_graph(firmware_id)[1])


@bp.get("/<firmware_id>/diagram.<any(svg, pdf, png):fmt>")
def diagram(firmware_id: str, fmt: str) -> Response:
    """The per-file diagram: with its legend and title block (``view=screen``: the SVG without them,
    as the viewer shows it, laid out for a pane of ``width`` x ``height`` CSS px when given, the layout
    chosen in the header ``X-Diagram-Layout``: diagram_fit),
    PDF on ``page=a4`` (default) or ``letter``, PNG at ``dpi`` (default 192)."""
    firmware, graph, path = _view_graph(firmware_id)
    title = TitleBlock.today(firmware, graph, path)
    page = request.args.get("page", PageSize.A4.value)
    if page not in {p.value for p in PageSize}:
        abort(400, f"page {page!r}: choose one of {', '.join(p.value for p in PageSize)}")
    try:
        dpi = check_dpi(request.args.get("dpi", DEFAULT_DPI))
    except DiagramError as exc:
        abort(400, str(exc))
    layout = None
    try:
        if fmt == "svg" and request.args.get("view") == "screen":
            image, layout = screen_layout(graph, pane_size(request.args))
        else:
            image = export(graph, title, fmt, PageSize(page), dpi)
    except LinkgraphError as exc:
        abort(500, str(exc))
    response = Response(image, mimetype=MIMETYPES[fmt])
    if layout is not None:
        response.headers["X-Diagram-Layout"] = layout.describe()
    disposition = "inline" if fmt == "svg" else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{download_name(title.path, "." + fmt)}"'
    if fmt == "svg":
        response.headers["Content-Security-Policy"] = SVG_POLICY
    return response


@bp.get("/<firmware_id>/analysis.csv")
def analysis_table(firmware_id: str) -> Response:
    """The ELF-analysis table of one file as CSV."""
    path = required_arg("path")
    firmware = firmware_or_404(firmware_id)
    found = analysis.file_analysis(current_store(), firmware["id"], path)
    found |= module_kernel_links(current_store(), firmware["id"], found["module"]["path"])
    response = Response(analysis_csv(found), mimetype="text/csv")
    name = download_name(found["module"]["path"], "-analysis.csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
