"""The JSON report (schema ``linkgraph-report/1``), read back from the graph store.

The report is made only from named queries, so it says what the graph says, on either store.
Lists are sorted, so two stores holding the same graph give byte-identical reports.
"""

from __future__ import annotations

import json
from typing import Any

from ..licences.facts import NO_FACT
from ..store.base import GraphStore

SCHEMA = "linkgraph-report/1"


def _found_by(edge: dict[str, Any]) -> dict[str, Any]:
    """How the loader found a dependency (``rule``, ``directory``, ``via``), the paths it tried
    for a missing one (``tried``), and every way when link maps disagree (``found_by``)."""
    variants = json.loads(edge["found_by"]) if edge.get("found_by") else None
    return {
        "rule": edge.get("rule"),
        "directory": edge.get("directory"),
        "via": edge.get("via"),
        "tried": list(edge.get("tried") or []),
        "found_by": variants,
    }


def build_report(store: GraphStore, firmware: str) -> dict[str, Any]:
    p = {"firmware": firmware}
    info = next(f for f in store.firmware_ids() if f["id"] == firmware)
    modules = [
        {
            "path": m["path"],
            "kind": m["kind"],
            "soname": m["soname"],
            "machine": m["machine"],
            "class": m["class"],
            "endian": m["endian"],
            "interpreter": m["interpreter"],
            "needed": list(m["needed"] or []),
            "aliases": sorted(m["aliases"] or []),
            "licence": m["licence"],
            "licence_class": m["licence_class"] or "unknown",
            "licence_source": m["licence_source"] or NO_FACT,
            "licence_certainty": m["licence_certainty"],
            "package": m["package"],
        }
        for m in store.query("modules", p)
    ]
    dependencies = sorted(
        (
            {
                "from": d["from"],
                "soname": d["soname"],
                "to": d["to"],
                "status": d["status"],
                "symbols": sorted(set(d["symbols"] or [])),
                **_found_by(d),
            }
            for d in store.query("dependencies", p)
        ),
        key=lambda d: (d["from"], d["soname"], d["to"] or "", d["status"]),
    )
    link_maps = [
        {"executable": lm["executable"], "objects": list(lm["objects"]), "missing": list(lm["missing"] or [])}
        for lm in store.query("link-maps", p)
    ]
    bindings = sorted(
        (
            {
                "executable": exe,
                "module": b["module"],
                "symbol": b["symbol"],
                "version": b["version"],
                "provider": b["provider"],
            }
            for b in store.query("bindings", p)
            for exe in b["executables"]
        ),
        key=lambda b: (b["executable"], b["module"], b["symbol"], b["version"] or "", b["provider"]),
    )
    unresolved = sorted(
        (
            {
                "executable": exe,
                "module": u["module"],
                "symbol": u["symbol"],
                "version": u["version"],
                "weak": bool(u["weak"]),
            }
            for u in store.query("unresolved", p)
            for exe in u["executables"]
        ),
        key=lambda u: (u["executable"], u["module"], u["symbol"], u["version"] or ""),
    )
    duplicates = sorted(
        (
            {"executable": exe, "symbol": d["symbol"], "providers": list(d["providers"]), "chosen": d["chosen"]}
            for d in store.query("duplicates", p)
            for exe in d["executables"]
        ),
        key=lambda d: (d["executable"], d["symbol"], d["providers"]),
    )
    problems = [
        {"path": x["path"], "severity": x["severity"], "code": x["code"], "message": x["message"]}
        for x in store.query("problems", p)
    ]
    return {
        "schema": SCHEMA,
        "firmware": {
            "name": info["name"],
            "sha256": info["sha256"],
            **({"source": json.loads(info["source"])} if info.get("source") else {}),
        },
        "modules": modules,
        "dependencies": dependencies,
        "link_maps": link_maps,
        "bindings": bindings,
        "unresolved": unresolved,
        "duplicates": duplicates,
        "problems": problems,
    }
