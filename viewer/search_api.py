"""The search box's and the "why is it loaded" panel's JSON calls (docs/viewer.md "Search"), on the
``api`` blueprint (its error form); ``create_app`` imports this module before registering it. The
answers come from ``loader/report/search`` and ``loader/report/why_loaded``, free of Flask."""

from __future__ import annotations

from typing import Any

from flask import abort, jsonify, request

from ..loader.report.search import DEFAULT_LIMIT, Page, search_modules, symbol_search
from ..loader.report.why_loaded import why_loaded
from . import api
from .store_access import current_store, firmware_or_404


def _page() -> Page:
    """``offset`` and ``limit`` of the query string (400 when they are no whole numbers in bounds)."""
    try:
        return Page(int(request.args.get("offset", "0")), int(request.args.get("limit", str(DEFAULT_LIMIT))))
    except ValueError as exc:
        abort(400, f"offset and limit: {exc} (see docs/viewer.md)")


@api.bp.get("/firmware/<firmware_id>/search")
def search(firmware_id: str) -> Any:
    """The modules whose path, soname or symlink contains ``q``, a page at a time."""
    firmware = firmware_or_404(firmware_id)
    found = search_modules(current_store(), firmware["id"], api.required_arg("q"), _page())
    return jsonify({"firmware": {"id": firmware["id"], "name": firmware["name"]}, **found})


@api.bp.get("/firmware/<firmware_id>/symbol")
def symbol(firmware_id: str) -> Any:
    """Who provides the symbol ``name`` and who binds it over which edge (the binders a page at a time)."""
    firmware = firmware_or_404(firmware_id)
    found = symbol_search(current_store(), firmware["id"], api.required_arg("name"), _page())
    return jsonify({"firmware": {"id": firmware["id"], "name": firmware["name"]}, **found})


@api.bp.get("/firmware/<firmware_id>/why")
def why(firmware_id: str) -> Any:
    """Why ``library`` is loaded in ``program``: the chain of DT_NEEDED edges and the bindings to it."""
    firmware = firmware_or_404(firmware_id)
    found = why_loaded(current_store(), firmware["id"], api.required_arg("program"), api.required_arg("library"))
    return jsonify({"firmware": {"id": firmware["id"], "name": firmware["name"]}, **found})
