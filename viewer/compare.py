"""Two firmware of the store compared (``loader/compare``): the compare page and its JSON call.

``/compare?old=ID&new=ID`` shows the diff's tables (``linkgraph diff``'s, docs/diff.md), rendered
here by Jinja (everything escaped), with a form to pick the two firmware; without both ids it is
just the form. ``/api/compare?old=ID&new=ID`` answers the diff as JSON (``linkgraph-diff/1``).
IDs may be unique prefixes, as everywhere in the viewer. The routes join the ``pages`` and ``api``
blueprints (their headers and error forms); ``create_app`` imports this module before registering them."""

from __future__ import annotations

from typing import Any

from flask import abort, jsonify, render_template, request

from ..loader.compare.diff import compare
from ..loader.compare.tables import tables
from ..loader.errors import StoreError
from . import api, pages
from .store_access import current_store, firmware_or_404


def _diff(old_id: str, new_id: str) -> dict[str, Any]:
    old, new = firmware_or_404(old_id), firmware_or_404(new_id)
    try:
        with current_store().exclusive() as store:
            return compare(store, old["id"], new["id"])
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
    diff = _diff(old, new) if old and new else None
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
    )


@api.bp.get("/compare")
def compare_json() -> Any:
    """The diff of ``old`` and ``new`` as JSON (linkgraph-diff/1)."""
    old, new = request.args.get("old"), request.args.get("new")
    if not old or not new:
        abort(400, "give the parameters old=… and new=… (firmware ids, see docs/viewer.md)")
    return jsonify(_diff(old, new))
