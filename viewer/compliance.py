"""The compliance report's data: the licence findings (a)-(e) of one firmware, each with its diagram,
the symbols as evidence and the licence facts (source, certainty, package) of every module it names.

``compliance_data(store, firmware_id)`` gathers it from the named queries (``licence_findings``,
``dependency_graph``, ``licences``, ``firmware``); ``compliance_render`` turns it into HTML or PDF.

* The findings keep one letter everywhere (the report, the viewer's Licences page, docs/licences.md)
  and come in its order; the summary has none. (a) is grouped by the module that uses GPL code (its
  paths together), (b) and (c) by the declaring module, (d) by LGPL library, (e) is one row per
  kernel module and provider. (a)-(c) get a diagram each: the finding's path, not the whole link
  map: the module and the modules the finding's edges join (with licences on the nodes), the
  finding's edges drawn thick and the module's other edges among those modules thin. An edge of the
  finding that the module's graph does not reach (a hop of a path through another module's hidden
  edge) is added; the text says how many modules of the link map are not drawn. The diagrams carry
  the exports' foot block without a title block (edge statuses, licence classes) and are shown at
  their natural size (11 pt labels).
* Symbol lists are cut to ``SYMBOL_LIMIT`` ((d) gives each user's count only), program lists to
  ``PROGRAM_LIMIT``, with the number left out; the JSON report has them all.
* Every string from the firmware goes through ``display_text`` (control and bidirectional characters
  shown as ``\\xNN``); the template escapes it (autoescape). Diagrams are Graphviz images, embedded
  as base64 ``data:`` URLs: an ``<img>`` never runs a script inside an SVG.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from datetime import date
from typing import Any

from .. import __version__
from ..loader.model import Status
from ..loader.report.analysis import Queryable, Row, dependency_graph, find_module, module_node
from ..loader.report.identities import CERTAINTIES
from ..loader.report.licence_findings import FINDING_LETTERS, licence_findings
from ..loader.report.licence_inventory import licence_inventory
from .diagram import render, to_dot
from .dot_text import display_text
from .drawing_style import LICENCE_NAMES, LICENCE_STYLES

SYMBOL_LIMIT = 30
PROGRAM_LIMIT = 30
DIAGRAM_SCALE = 1.0  # node labels of 11 pt print at 11 pt
IMAGE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


def cut(items: Iterable[Any], limit: int) -> Row:
    """The first ``limit`` items, and how many more there are."""
    items = list(items or [])
    return {"shown": items[:limit], "more": max(0, len(items) - limit), "total": len(items)}


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


def diagram(store: Queryable, firmware_id: str, root: str, edges: list[Row], image: str) -> Row:
    """A finding's diagram as a ``data:`` URL (``image``: svg or png), and how many modules it leaves out."""
    graph, omitted = finding_graph(store, firmware_id, root, edges)
    data = render(to_dot(graph, None, {(e["from"], e["to"]) for e in edges}), image)
    return {
        "src": f"data:{IMAGE_TYPES[image]};base64,{base64.b64encode(data).decode('ascii')}",
        "width": _shown_width(data, image),
        "nodes": len(graph["nodes"]),
        "omitted": omitted,
    }


def _shown_width(data: bytes, image: str) -> int:
    """The width (in pt) to show a diagram at: ``DIAGRAM_SCALE`` of Graphviz's own (the page may cut it)."""
    if image == "png":  # Graphviz draws PNG at 96 dpi
        width = int.from_bytes(data[16:20], "big") * 72 / 96 if data[12:16] == b"IHDR" else 0
    else:
        found = re.search(rb'<svg[^>]*?\swidth="([0-9.]+)pt"', data[:4000])
        width = float(found.group(1)) if found else 0
    return max(1, round(width * DIAGRAM_SCALE)) if width else 0


def _group(rows: list[Row], key: str) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row[key], []).append(row)
    return grouped


def _gpl_uses(store: Queryable, fw: str, rows: list[Row], image: str) -> list[Row]:
    out = []
    for module, group in _group(rows, "module").items():
        edges = [{"from": module, "to": r["uses"], "status": r["status"], "symbols": r["symbols"]} for r in group]
        out.append(
            {
                "module": module,
                "licence": group[0]["licence"],
                "diagram": diagram(store, fw, module, edges, image),
                "rows": [{**r, "symbols": cut(r["symbols"], SYMBOL_LIMIT)} for r in group],
                "modules": [module, *(r["uses"] for r in group)],
            }
        )
    return out


def _gpl_used_by(store: Queryable, fw: str, rows: list[Row], image: str) -> list[Row]:
    out = []
    for module, group in _group(rows, "module").items():
        edges = {(h["from"], h["to"]): h for r in group for h in r["hops"]}
        paths = [
            {
                **r,
                "programs": cut(r["programs"], PROGRAM_LIMIT),
                "hops": [{**h, "symbols": cut(h["symbols"], SYMBOL_LIMIT)} for h in r["hops"]],
            }
            for r in group
        ]
        out.append(
            {
                "module": module,
                "licence": group[0]["licence"],
                "paths": paths,
                "diagram": diagram(store, fw, module, list(edges.values()), image),
                "modules": list(dict.fromkeys([module, *(p for e in edges for p in e)])),
            }
        )
    return out


def _declared_only(store: Queryable, fw: str, rows: list[Row], image: str) -> list[Row]:
    out = []
    for module, group in _group(rows, "module").items():
        edges = [
            {"from": module, "to": r["library"], "status": Status.DECLARED_UNUSED.value, "symbols": []} for r in group
        ]
        entries = [
            {**r, "used_by": [{**u, "symbols": cut(u["symbols"], SYMBOL_LIMIT)} for u in r["used_by"]]} for r in group
        ]
        out.append(
            {
                "module": module,
                "licence": group[0]["licence"],
                "class": group[0]["class"],
                "rows": entries,
                "diagram": diagram(store, fw, module, edges, image),
                "modules": [module, *(r["library"] for r in group)],
            }
        )
    return out


def _lgpl_used(rows: list[Row]) -> list[Row]:
    return [
        {
            "library": library,
            "library_licence": group[0]["library_licence"],
            "users": [{**r, "symbols": cut(r["symbols"], SYMBOL_LIMIT)} for r in group],
            "modules": [library, *(r["module"] for r in group)],
        }
        for library, group in _group(rows, "library").items()
    ]


def _summary(findings: Row) -> Row:
    counts: dict[str, dict[Any, int]] = {k: {} for k in LICENCE_STYLES}
    for row in findings["summary"]["modules"]:
        klass = row["class"] if row["class"] in counts else "unknown"
        counts[klass][row["certainty"]] = counts[klass].get(row["certainty"], 0) + row["modules"]
    classes = [
        {
            "class": k,
            "name": LICENCE_NAMES[k],
            **{cert: c.get(cert, 0) for cert in CERTAINTIES},
            "total": sum(c.values()),
            "none": sum(v for cert, v in c.items() if cert not in CERTAINTIES),
        }
        for k, c in counts.items()
    ]
    return {
        "classes": classes,
        "modules": sum(c["total"] for c in classes),
        "findings": findings["summary"]["findings"],
    }


def _firmware(store: Queryable, firmware_id: str) -> Row:
    row = next((f for f in store.query("firmware") if f["id"] == firmware_id), {"id": firmware_id})
    try:
        source = json.loads(row["source"]) if row.get("source") else {}
    except (TypeError, ValueError):
        source = {}
    overrides = source.get("licence_overrides") or None
    return {
        "id": firmware_id,
        "name": row.get("name") or "",
        "sha256": row.get("sha256") or firmware_id,
        "scanned_at": row.get("scanned_at"),
        "kind": source.get("kind"),
        "target": source.get("target"),
        "target_sha256": source.get("target_sha256"),
        "root": source.get("root"),
        "carved": source.get("carved") or [],
        "overrides": {k: overrides.get(k) for k in ("file", "sha256", "rules")} if overrides else None,
    }


def shown(value: Any) -> Any:
    """``value`` with every string as ``display_text`` shows it (diagram URLs are ours and stay)."""
    if isinstance(value, str):
        return display_text(value)
    if isinstance(value, dict):
        return {k: v if k == "diagram" else shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown(v) for v in value]
    return value


def compliance_data(store: Queryable, firmware_id: str, image: str = "svg", today: str | None = None) -> Row:
    """Everything the compliance report shows, for one firmware (see the module docstring)."""
    found = licence_findings(store, firmware_id)
    licences = store.query("licences", {"firmware": firmware_id})  # the inventory's and the appendix's
    data = {
        "firmware": _firmware(store, firmware_id),
        "date": today or date.today().isoformat(),
        "version": __version__,
        "summary": _summary(found),
        "coverage": found["coverage"],
        "inventory": licence_inventory(store, firmware_id, licences),
        "licence_names": LICENCE_NAMES,
        "licence_styles": LICENCE_STYLES,
        "limits": {"symbols": SYMBOL_LIMIT, "programs": PROGRAM_LIMIT},
        "gpl_uses": _gpl_uses(store, firmware_id, found["gpl_uses"], image),
        "gpl_used_by": _gpl_used_by(store, firmware_id, found["gpl_used_by"], image),
        "declared_only": _declared_only(store, firmware_id, found["declared_only"], image),
        "lgpl_used": _lgpl_used(found["lgpl_used"]),
        "kernel_gpl_only": [  # (e) docs/kernel.md: what the kernel itself refuses such a module
            {**r, "symbols": cut(r["symbols"], SYMBOL_LIMIT), "modules": [r["module"]]}
            for r in store.query("kernel-gpl-only-used", {"firmware": firmware_id})
        ],
        # (f), (g): a component found inside a module (docs/identify.md), one row each with its evidence
        **{key: [{**r, "modules": [r["module"]]} for r in found[key]] for key in ("gpl_contained", "lgpl_static")},
    }
    facts = {
        r["path"]: {
            "path": r["path"],
            "licence": r["licence"],
            "class": r["class"] or "unknown",
            "certainty": r["certainty"],
            "source": r["source"],
            "package": r["package"],
            "static": bool(r["static"]),
            "findings": [],
        }
        for r in licences
    }
    for section, letter in FINDING_LETTERS.items():
        for group in data[section]:
            group["facts"] = [facts[p] for p in dict.fromkeys(group["modules"]) if p in facts]
            for path in dict.fromkeys(group["modules"]):
                if path in facts and letter not in facts[path]["findings"]:
                    facts[path]["findings"].append(letter)
    # (d) names every user of an LGPL library (most of a root): their facts are in the inventory
    data["appendix"] = sorted((f for f in facts.values() if set(f["findings"]) - {"d"}), key=lambda f: f["path"])
    return shown(data)
