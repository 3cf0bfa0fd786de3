"""The JSON API behind the pages (documented in docs/viewer.md); other tools may use it too."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, request

from ..loader.report import analysis, identities
from ..loader.report.hardening import hardening_by_module, module_hardening
from ..loader.report.identities import identification_overview, module_identification
from ..loader.report.kernel_view import kernel_edge, module_kernel_links
from ..loader.report.licence_findings import licence_findings
from ..loader.report.source_findings import source_findings
from ..loader.report.source_view import module_source
from . import process_path, whole_firmware
from .store_access import current_store, firmware_or_404

bp = Blueprint("api", __name__, url_prefix="/api")


def required_arg(name: str) -> str:
    """A query-string parameter the call cannot do without (400 when absent)."""
    value = request.args.get(name)
    if not value:
        abort(400, f"give the parameter {name}=… (see docs/viewer.md)")
    return value


def _firmware(firmware_id: str) -> dict[str, Any]:
    row = firmware_or_404(firmware_id)
    return {"id": row["id"], "name": row["name"]}


@bp.get("/firmware")
def firmware_list() -> Any:
    store = current_store()
    out = []
    for row in store.query("firmware"):
        count = store.query("summary-modules", {"firmware": row["id"]})
        out.append(
            {
                "id": row["id"],
                "name": row["name"],
                "scanned_at": row["scanned_at"],
                "modules": count[0]["modules"] if count else 0,
            }
        )
    return jsonify(out)


@bp.get("/firmware/<firmware_id>/tree")
def tree(firmware_id: str) -> Any:
    firmware, store = _firmware(firmware_id), current_store()
    found = analysis.file_tree(store, firmware["id"])
    facts = hardening_by_module(store, firmware["id"])  # a symlink has its target's, as its flags
    for entry in found["entries"]:
        entry["hardening"] = facts.get(entry["target"] or entry["path"])
    return jsonify({"firmware": firmware, **found})


@bp.get("/firmware/<firmware_id>/file")
def file(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    found = analysis.file_analysis(current_store(), firmware["id"], required_arg("path"))
    kernel = module_kernel_links(current_store(), firmware["id"], found["module"]["path"])
    identification = module_identification(current_store(), firmware["id"], found["module"]["path"])
    hardening = module_hardening(current_store(), firmware["id"], found["module"]["path"])
    source = module_source(current_store(), firmware["id"], found["module"]["path"])  # None: no release checked
    return jsonify(
        {
            "firmware": firmware,
            **found,
            **kernel,
            "identification": identification,
            "hardening": hardening,
            "source": source,
        }
    )


@bp.get("/firmware/<firmware_id>/graph")
def graph(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    found = analysis.dependency_graph(current_store(), firmware["id"], required_arg("path"))
    return jsonify({"firmware": firmware, **found})


@bp.get("/firmware/<firmware_id>/edge")
def edge(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    found = analysis.edge_symbols(current_store(), firmware["id"], required_arg("from"), required_arg("to"))
    return jsonify(found)


@bp.get("/firmware/<firmware_id>/kernel-link")
def kernel_link(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    found = kernel_edge(current_store(), firmware["id"], required_arg("from"), required_arg("to"))
    return jsonify(found)


@bp.get("/firmware/<firmware_id>/licences")
def licences(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    return jsonify({"firmware": firmware, **licence_findings(current_store(), firmware["id"])})


@bp.get("/firmware/<firmware_id>/sources")
def sources(firmware_id: str) -> Any:
    """The source-release check (docs/sources.md): ``{"checked": false}`` when no release was given;
    else the release, the modules per status, every module's status with its evidence and the
    findings, as the JSON report's ``source_check`` section."""
    firmware = _firmware(firmware_id)
    return jsonify({"firmware": firmware, **source_findings(current_store(), firmware["id"])})


@bp.get("/firmware/<firmware_id>/components")
def components(firmware_id: str) -> Any:
    """The identification overview (docs/identify.md): modules per certainty, the components found
    inside modules, and every identification."""
    firmware, store = _firmware(firmware_id), current_store()
    overview = identification_overview(store, firmware["id"])
    return jsonify({"firmware": firmware, **overview, "components": identities.components(store, firmware["id"])})


@bp.get("/firmware/<firmware_id>/whole")
def whole(firmware_id: str) -> Any:
    firmware = _firmware(firmware_id)
    return jsonify({"firmware": firmware, **whole_firmware.whole_graph(current_store(), firmware["id"])})


@bp.get("/firmware/<firmware_id>/path")
def path(firmware_id: str) -> Any:
    """How `from` reaches `to` in the process of `program` (default: `from`): the shortest chains of
    its link map's edges, with their statuses."""
    firmware = _firmware(firmware_id)
    start, goal = required_arg("from"), required_arg("to")
    program = request.args.get("program") or start
    try:
        found = process_path.process_path(current_store(), firmware["id"], program, start, goal)
    except process_path.AmbiguousName as exc:
        abort(400, str(exc))
    return jsonify({"firmware": firmware, **found})


@bp.get("/firmware/<firmware_id>/process")
def process(firmware_id: str) -> Any:
    """The edges of one program's link map (what "depends on" follows in the whole view's focus)."""
    firmware = _firmware(firmware_id)
    program = analysis.find_module(current_store(), firmware["id"], required_arg("program"))["path"]
    steps = process_path.link_map_steps(current_store(), firmware["id"], program)
    return jsonify({"firmware": firmware, "program": program, "edges": steps})
