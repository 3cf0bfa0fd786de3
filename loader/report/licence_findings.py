"""The licence findings of one firmware, from the ``licence-*`` named queries (docs/licences.md).

* ``gpl_used_by`` (a): modules under an incompatible or unknown licence that use GPL-only code,
  directly or through up to three other modules; each path names the programs in whose process
  every hop holds with its status (edges record the link maps they hold in, so a chain never
  joins bindings of different programs), and no hop is interposition. The classification stores
  it once (``Finding`` nodes); this reads it.
* ``gpl_uses`` (b): GPL modules that use modules under an incompatible or unknown licence.
* ``declared_only`` (c): DT_NEEDED links between GPL code and code under an incompatible or
  unknown licence where nothing binds, with the modules that do use the library.
* ``lgpl_used`` (d): LGPL libraries (or GPL with a linking exception) used dynamically.
* ``kernel_gpl_only`` (e): kernel modules the kernel treats as GPL-incompatible that bind to
  GPL-only exports, with the symbols (``kernel_view``, docs/kernel.md).
* ``gpl_contained`` (f): modules under an incompatible or unknown licence that carry a copy of a GPL
  component inside them (a ``CONTAINS`` edge of the identification stage, docs/identify.md).
* ``lgpl_static`` (g): statically linked programs that carry an LGPL component inside them.
* ``summary``: modules per licence class and certainty, and the count of each finding.
* ``coverage``: how many modules have no licence fact, and which (``licence_coverage``): every
  surface of the findings states it and lists them under *To review*.
"""

from __future__ import annotations

import json
from typing import Any

from .analysis import Queryable, Row
from .kernel_view import kernel_gpl_only
from .licence_coverage import licence_coverage


def gpl_used_by(store: Queryable, firmware_id: str) -> list[Row]:
    """Finding (a), as the classification stored it: one row per path and the programs in whose
    process every hop holds; each hop's symbols are read afterwards from its bindings in those
    programs. Nothing is filtered here: the query's rows are the finding."""
    found: list[Row] = []
    params = {"firmware": firmware_id}
    for module, licence, klass, gpl_module, gpl_licence, hops, statuses, programs in store.stream(
        "licence-gpl-used-by", params
    ):
        steps = zip(hops[:-1], hops[1:], statuses, strict=True)
        found.append(
            {
                "module": module,
                "licence": licence,
                "class": klass,
                "gpl_module": gpl_module,
                "gpl_licence": gpl_licence,
                "programs": sorted(programs or []),
                "hops": [{"from": a, "to": b, "status": s, "symbols": []} for a, b, s in steps],
            }
        )
    _add_hop_symbols(store, firmware_id, found)
    found.sort(key=lambda f: (f["module"], f["gpl_module"], len(f["hops"]), [h["to"] for h in f["hops"]]))
    return found


def _add_hop_symbols(store: Queryable, firmware_id: str, found: list[Row]) -> None:
    """Each hop's ``symbols``: those bound across it in the process of one of its row's programs
    (the evidence of that path, not of other programs), none interposed nor an upcall and, for a
    hidden hop, no copy relocation: the bindings that make the hop hold, as the classification
    counts them."""
    pairs = sorted({(h["from"], h["to"]) for f in found for h in f["hops"]})
    if not pairs:
        return
    params = {"firmware": firmware_id}
    held = {sid: frozenset(exes or []) for sid, exes in store.stream("scopes", params)}
    bound: dict[tuple[str, str], list[tuple[str, bool, str]]] = {}
    rows = store.stream("pair-bindings", {**params, "pairs": [{"from": a, "to": b} for a, b in pairs]})
    for source, target, symbol, copy, interposed, upcall, scope in rows:
        if not interposed and not upcall:
            bound.setdefault((source, target), []).append((symbol, bool(copy), scope))
    for row in found:
        programs = frozenset(row["programs"])
        for hop in row["hops"]:
            hidden = hop["status"] == "hidden"
            hop["symbols"] = sorted(
                {
                    symbol
                    for symbol, copy, scope in bound.get((hop["from"], hop["to"]), [])
                    if not (hidden and copy) and not programs.isdisjoint(held.get(scope, ()))
                }
            )


def gpl_uses(store: Queryable, firmware_id: str) -> list[Row]:
    return [
        {
            "module": r["module"],
            "licence": r["licence"],
            "status": r["status"],
            "uses": r["uses"],
            "uses_licence": r["uses_licence"],
            "uses_class": r["uses_class"],
            "symbols": sorted(r["symbols"] or []),
            "programs": list(r["programs"] or []),
        }
        for r in store.query("licence-gpl-uses", {"firmware": firmware_id})
    ]


def declared_only(store: Queryable, firmware_id: str) -> list[Row]:
    grouped: dict[tuple[str, str], Row] = {}
    for r in store.query("licence-declared-only", {"firmware": firmware_id}):
        entry = grouped.setdefault(
            (r["module"], r["library"]),
            {
                "module": r["module"],
                "licence": r["licence"],
                "class": r["class"],
                "library": r["library"],
                "library_licence": r["library_licence"],
                "library_class": r["library_class"],
                "used_by": [],
            },
        )
        if r["used_by"] is not None:
            entry["used_by"].append(
                {"module": r["used_by"], "status": r["used_by_status"], "symbols": sorted(r["used_by_symbols"] or [])}
            )
    for entry in grouped.values():
        entry["used_by"].sort(key=lambda u: u["module"])
    return [grouped[k] for k in sorted(grouped)]


def lgpl_used(store: Queryable, firmware_id: str) -> list[Row]:
    return [
        {
            "library": r["library"],
            "library_licence": r["library_licence"],
            "module": r["module"],
            "licence": r["licence"],
            "class": r["class"],
            "status": r["status"],
            "symbols": sorted(r["symbols"] or []),
            "programs": list(r["programs"] or []),
        }
        for r in store.query("licence-lgpl-used", {"firmware": firmware_id})
    ]


# each finding's letter, the same on every surface (docs/licences.md), in their order
FINDING_LETTERS = {
    "gpl_used_by": "a",
    "gpl_uses": "b",
    "declared_only": "c",
    "lgpl_used": "d",
    "kernel_gpl_only": "e",
    "gpl_contained": "f",
    "lgpl_static": "g",
}


def _contained(store: Queryable, firmware_id: str, query: str) -> list[Row]:
    """The rows of a finding about a component inside a module, its evidence as a list."""
    return [
        {**r, "evidence": json.loads(r["evidence"]) if r["evidence"] else []}
        for r in store.query(query, {"firmware": firmware_id})
    ]


def gpl_contained(store: Queryable, firmware_id: str) -> list[Row]:
    return _contained(store, firmware_id, "licence-gpl-contained")


def lgpl_static(store: Queryable, firmware_id: str) -> list[Row]:
    return _contained(store, firmware_id, "licence-lgpl-static")


def licence_findings(store: Queryable, firmware_id: str) -> dict[str, Any]:
    """Every finding (a)-(g), the summary and the coverage of one firmware, as plain data (the compliance
    report and the viewer)."""
    findings: dict[str, list[Row]] = {
        "gpl_used_by": gpl_used_by(store, firmware_id),
        "gpl_uses": gpl_uses(store, firmware_id),
        "declared_only": declared_only(store, firmware_id),
        "lgpl_used": lgpl_used(store, firmware_id),
        "kernel_gpl_only": kernel_gpl_only(store, firmware_id),
        "gpl_contained": gpl_contained(store, firmware_id),
        "lgpl_static": lgpl_static(store, firmware_id),
    }
    classes = store.query("licence-summary", {"firmware": firmware_id})
    summary = {
        "modules": [
            {"class": c["class"] or "unknown", "certainty": c["certainty"], "modules": c["modules"]} for c in classes
        ],
        "findings": {name: len(rows) for name, rows in findings.items()},
    }
    return {**findings, "summary": summary, "coverage": licence_coverage(store, firmware_id)}
