"""The identification stage's answers as the read side shows them (docs/identify.md): every
identification of a firmware from the ``components`` named query, what each module is and which
components it contains, and the counts the viewer's Overview gives."""

from __future__ import annotations

import json
from collections import Counter

from ..licences.classes import licence_class
from ..model import Certainty
from .rows import Queryable, Row

# the certainties in the order every surface lists them; None: a module nothing identified
CERTAINTIES: tuple[str, ...] = tuple(c.value for c in Certainty)


def components(store: Queryable, firmware_id: str) -> list[Row]:
    """Every identification: ``path``, ``component``, ``version``, ``licence``, ``licence_class``,
    ``certainty``, ``contained``, ``purl``, ``cpe`` and ``evidence`` (a list of {kind, text,
    offset}); the module's own one first, then its contained components by name."""
    out = [
        {
            "path": r["path"],
            "component": r["component"],
            "version": r["version"],
            "licence": r["licence"],
            "licence_class": licence_class(r["licence"]).value,
            "certainty": r["certainty"],
            "contained": bool(r["contained"]),
            "purl": r["purl"],
            "cpe": r["cpe"],
            "evidence": json.loads(r["evidence"]) if r["evidence"] else [],
        }
        for r in store.query("components", {"firmware": firmware_id})
    ]
    out.sort(key=lambda r: (r["path"], r["contained"], r["component"], r["version"] or ""))
    return out


def contained_entry(row: Row) -> Row:
    """A contained component as a module lists it (the report's ``contains``, the SBOMs)."""
    keys = ("component", "version", "licence", "licence_class", "certainty", "purl", "cpe", "evidence")
    return {k: row[k] for k in keys}


def contained_by_module(rows: list[Row]) -> dict[str, list[Row]]:
    """The contained components of ``components`` rows, by the path of the module holding them."""
    found: dict[str, list[Row]] = {}
    for r in rows:
        if r["contained"]:
            found.setdefault(r["path"], []).append(contained_entry(r))
    return found


def by_module(rows: list[Row]) -> dict[str, Row]:
    """``components`` rows by module: its ``identity`` (its own identification, or None) and what
    it ``contains``; only the modules something was found for."""
    found: dict[str, Row] = {}
    for r in rows:
        entry = found.setdefault(r["path"], {"identity": None, "contains": []})
        if r["contained"]:
            entry["contains"].append(contained_entry(r))
        else:
            entry["identity"] = {k: v for k, v in r.items() if k not in ("path", "contained")}
    return found


def module_identification(store: Queryable, firmware_id: str, path: str) -> Row:
    """One module's ``identity`` (its own identification, or None) and what it ``contains``."""
    found = by_module([r for r in components(store, firmware_id) if r["path"] == path])
    return found.get(path, {"identity": None, "contains": []})


def identification_overview(store: Queryable, firmware_id: str) -> Row:
    """The Overview's numbers: modules per certainty of their own identification (None for the
    modules nothing identified), and every contained component with the modules holding it."""
    rows = components(store, firmware_id)
    count = store.query("summary-modules", {"firmware": firmware_id})
    modules = count[0]["modules"] if count else 0
    own = Counter(r["certainty"] for r in rows if not r["contained"])
    per = [{"certainty": c, "modules": own.get(c, 0)} for c in CERTAINTIES]
    per.append({"certainty": None, "modules": modules - sum(own.values())})
    held: dict[tuple[str, str | None], Row] = {}
    for r in rows:
        if r["contained"]:
            entry = held.setdefault(
                (r["component"], r["version"]),
                {k: r[k] for k in ("component", "version", "licence", "licence_class", "purl", "cpe")}
                | {"modules": []},
            )
            entry["modules"].append(r["path"])
    contained = [held[k] for k in sorted(held, key=lambda k: (k[0], k[1] or ""))]
    return {"certainties": per, "contained": contained}
