"""The compliance report's data: the licence findings (a)-(e) of one firmware, each with its diagram,
the symbols as evidence and the licence facts (source, certainty, package) of every module it names.

``compliance_data(store, firmware_id)`` gathers it from the named queries (``licence_findings``,
``dependency_graph``, ``licences``, ``firmware``); ``compliance_render`` turns it into HTML or PDF.

* The findings keep one letter everywhere (the report, the viewer's Licences page, docs/licences.md)
  and come in its order; the summary has none. (a) is grouped by the module that uses GPL code (its
  paths together, naming the links they take by number); each link of all (a) paths is listed once
  for the whole report with its symbols (``gpl_links``: the modules of a root share most links).
  (b) and (c) are grouped by the declaring module, (d) by LGPL library, (e) is one row per kernel
  module and provider. (a)-(c) get a diagram each: the finding's path, not the whole link map
  (``finding_diagram``), shown at its natural size (11 pt labels, nothing below 9 pt) or, when it
  is too large for that, never below 8 pt; the key (edge statuses, licence classes) is drawn once.
* Symbol lists are cut to ``SYMBOL_LIMIT`` ((d) gives each user's count only), program lists to
  ``PROGRAM_LIMIT``, with the number left out; the JSON report has them all.
* Every string from the firmware goes through ``display_text`` (control and bidirectional characters
  shown as ``\\xNN``); the template escapes it (autoescape). Diagrams are Graphviz images, embedded
  as base64 ``data:`` URLs: an ``<img>`` never runs a script inside an SVG.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from typing import Any

from .. import __version__
from ..loader.model import Status
from ..loader.report.analysis import Queryable, Row
from ..loader.report.identities import CERTAINTIES
from ..loader.report.licence_findings import FINDING_LETTERS, licence_findings
from ..loader.report.licence_inventory import licence_inventory
from ..loader.report.read_once import ReadOnce
from .compliance_sources import source_release
from .dot_text import display_text
from .drawing_style import LICENCE_NAMES, LICENCE_STYLES
from .finding_diagram import key_diagram
from .finding_drawings import Drawings, Progress

SYMBOL_LIMIT = 30
PROGRAM_LIMIT = 30


def cut(items: Iterable[Any], limit: int) -> Row:
    """The first ``limit`` items, and how many more there are."""
    items = list(items or [])
    return {"shown": items[:limit], "more": max(0, len(items) - limit), "total": len(items)}


def _group(rows: list[Row], key: str) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row[key], []).append(row)
    return grouped


def _gpl_uses(drawings: Drawings, rows: list[Row]) -> list[Row]:
    out = []
    for module, group in _group(rows, "module").items():
        edges = [{"from": module, "to": r["uses"], "status": r["status"], "symbols": r["symbols"]} for r in group]
        out.append(
            {
                "module": module,
                "licence": group[0]["licence"],
                "rows": [{**r, "symbols": cut(r["symbols"], SYMBOL_LIMIT)} for r in group],
                "modules": [module, *(r["uses"] for r in group)],
            }
        )
        drawings.add(out[-1], module, edges)
    return out


def _gpl_links(rows: list[Row]) -> dict[tuple[str, str], Row]:
    """Every link of (a)'s paths once, for the whole report, numbered from 1 in the order of the paths."""
    links: dict[tuple[str, str], Row] = {}
    for hop in (h for r in rows for h in r["hops"]):
        key = (hop["from"], hop["to"])
        if key not in links:
            links[key] = {**hop, "number": len(links) + 1, "symbols": cut(hop["symbols"], SYMBOL_LIMIT)}
    return links


def _gpl_used_by(drawings: Drawings, rows: list[Row], links: dict[tuple[str, str], Row]) -> list[Row]:
    out = []
    for module, group in _group(rows, "module").items():
        edges = {(h["from"], h["to"]): h for r in group for h in r["hops"]}
        paths = [
            {
                **r,
                "programs": cut(r["programs"], PROGRAM_LIMIT),
                "hops": [{**h, "symbols": cut(h["symbols"], SYMBOL_LIMIT)} for h in r["hops"]],
                "chain": [links[h["from"], h["to"]]["number"] for h in r["hops"]],
            }
            for r in group
        ]
        out.append(
            {
                "module": module,
                "licence": group[0]["licence"],
                "paths": paths,
                "modules": list(dict.fromkeys([module, *(p for e in edges for p in e)])),
            }
        )
        drawings.add(out[-1], module, list(edges.values()))
    return out


def _declared_only(drawings: Drawings, rows: list[Row]) -> list[Row]:
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
                "modules": [module, *(r["library"] for r in group)],
            }
        )
        drawings.add(out[-1], module, edges)
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
        return {k: v if k in ("diagram", "key") else shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown(v) for v in value]
    return value


def compliance_data(
    store: Queryable, firmware_id: str, image: str = "svg", today: str | None = None, progress: Progress | None = None
) -> Row:
    """Everything the compliance report shows, for one firmware (see the module docstring); ``progress``
    (stage, done, total) hears how far the diagrams are."""
    store = ReadOnce(store)  # each diagram walks its module's dependencies: the edges are read once
    found = licence_findings(store, firmware_id)
    licences = store.query("licences", {"firmware": firmware_id})  # the inventory's and the appendix's
    links = _gpl_links(found["gpl_used_by"])
    with Drawings(store, firmware_id, image, progress) as drawings:
        data = _sections(store, firmware_id, image, today, found, licences, links, drawings)
        drawings.done()
    return _with_facts(data, licences)


def _sections(
    store: Queryable,
    firmware_id: str,
    image: str,
    today: str | None,
    found: Row,
    licences: list[Row],
    links: dict[tuple[str, str], Row],
    drawings: Drawings,
) -> Row:
    return {
        "firmware": _firmware(store, firmware_id),
        "date": today or date.today().isoformat(),
        "version": __version__,
        "summary": _summary(found),
        "coverage": found["coverage"],
        "inventory": licence_inventory(store, firmware_id, licences),
        "licence_names": LICENCE_NAMES,
        "licence_styles": LICENCE_STYLES,
        "key": key_diagram(image),
        "limits": {"symbols": SYMBOL_LIMIT, "programs": PROGRAM_LIMIT},
        "gpl_uses": _gpl_uses(drawings, found["gpl_uses"]),
        "gpl_used_by": _gpl_used_by(drawings, found["gpl_used_by"], links),
        "gpl_links": list(links.values()),
        "declared_only": _declared_only(drawings, found["declared_only"]),
        "lgpl_used": _lgpl_used(found["lgpl_used"]),
        "kernel_gpl_only": [  # (e) docs/kernel.md: what the kernel itself refuses such a module
            {**r, "symbols": cut(r["symbols"], SYMBOL_LIMIT), "modules": [r["module"]]}
            for r in store.query("kernel-gpl-only-used", {"firmware": firmware_id})
        ],
        # (f), (g): a component found inside a module (docs/identify.md), one row each with its evidence
        **{key: [{**r, "modules": [r["module"]]} for r in found[key]] for key in ("gpl_contained", "lgpl_static")},
        "source_release": source_release(store, firmware_id, cut, SYMBOL_LIMIT),  # docs/sources.md
    }


def _with_facts(data: Row, licences: list[Row]) -> Row:
    """``data`` with the licence facts of each finding's modules, the appendix, every string shown."""
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
