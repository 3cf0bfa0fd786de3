"""Two firmware of the store compared (``loader/compare``): the compare page and its JSON call.

``/compare?old=ID&new=ID`` shows the diff's tables (``linkgraph diff``'s, docs/diff.md), rendered
here by Jinja (everything escaped), with a form to pick the two firmware; without both ids it is
just the form. ``/api/compare?old=ID&new=ID`` answers the diff as JSON (``linkgraph-diff/1``).
IDs may be unique prefixes, as everywhere in the viewer. The routes join the ``pages`` and ``api``
blueprints (their headers and error forms); ``create_app`` imports this module before registering them."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, jsonify, render_template, request

from ..loader.compare.diff import changed_programs, compare, compare_dependencies
from ..loader.compare.tables import tables
from ..loader.errors import DiagramError, StoreError
from ..loader.report import analysis
from . import api, pages
from .diagram import render, to_dot
from .drawing_style import TitleBlock
from .exports import SVG_POLICY
from .store_access import current_store, firmware_or_404

# the programs whose graphs the page shows at most (each drawn only when opened)
MAX_GRAPHS = 100


def _diff(old_id: str, new_id: str, programs: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The diff, and (``programs``) the new firmware's link maps that hold an added or changed edge."""
    old, new = firmware_or_404(old_id), firmware_or_404(new_id)
    try:
        with current_store().exclusive() as store:
            diff = compare(store, old["id"], new["id"])
            return diff, (changed_programs(store, new["id"], diff["dependencies"]) if programs else [])
    except StoreError as exc:
        abort(503, str(exc))


@pages.bp.get("/compare")
def compare_page() -> Any:
    """The form picking two firmware (the first two preselected) and, given both, the tables."""
    try:
        known = current_store().query("firmware")
    except StoreError as exc:
        abort(503, str(exc))
    old, new = request.args.get("old") or "", request.args.get("new") or ""
    diff, programs = _diff(old, new, programs=True) if old and new else (None, [])
    ids = [f["id"] for f in known]
    picked = (
        {"old": firmware_or_404(old)["id"], "new": firmware_or_404(new)["id"]}
        if diff
        else {"old": ids[0] if ids else None, "new": ids[1] if len(ids) > 1 else None}
    )
    return render_template(
        "compare.html",
        firmware=known,
        picked=picked,
        old=diff["old"] if diff else None,
        new=diff["new"] if diff else None,
        tables=tables(diff) if diff else [],
        programs=programs[:MAX_GRAPHS],
        more_programs=max(0, len(programs) - MAX_GRAPHS),
    )


@api.bp.get("/compare")
def compare_json() -> Any:
    """The diff of ``old`` and ``new`` as JSON (linkgraph-diff/1)."""
    old, new = request.args.get("old"), request.args.get("new")
    if not old or not new:
        abort(400, "give the parameters old=… and new=… (firmware ids, see docs/viewer.md)")
    return jsonify(_diff(old, new)[0])


@api.bp.get("/compare/diagram.svg")
def compare_diagram() -> Response:
    """The new firmware's diagram of ``path`` (docs/viewer.md), the edges added or changed since
    the old firmware drawn thick (``highlight``); rendered by Graphviz."""
    old, new = firmware_or_404(api.required_arg("old")), firmware_or_404(api.required_arg("new"))
    path = api.required_arg("path")
    try:
        with current_store().exclusive() as store:
            dependencies = compare_dependencies(store, old["id"], new["id"])
    except StoreError as exc:
        abort(503, str(exc))
    graph = analysis.dependency_graph(current_store(), new["id"], path)
    marked = {(e["from"], e["to"]) for e in (*dependencies["added"], *dependencies["changed"])}
    try:
        image = render(to_dot(graph, TitleBlock.today(new, graph, path), marked), "svg")
    except DiagramError as exc:
        abort(500, str(exc))
    response = Response(image, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = SVG_POLICY
    return response
