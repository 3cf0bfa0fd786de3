"""The report's ``source_check`` section (docs/sources.md): the release a firmware was checked
against, the source status of every module, and the check's findings, from the named queries."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .rows import Queryable

FINDINGS = {
    "missing": "source-missing",
    "uses_missing": "source-uses-missing",
    "version_mismatches": "source-version-mismatch",
    "release_gaps": "source-release-gaps",
}


def finding_rows(store: Queryable, name: str, firmware: str) -> list[dict[str, Any]]:
    """A finding's rows with each edge's symbols sorted (the stores keep them in their own order)."""
    rows = store.query(name, {"firmware": firmware})
    for row in rows:
        if isinstance(row.get("symbols"), list):
            row["symbols"] = sorted(row["symbols"])
    return rows


def source_findings(store: Queryable, firmware: str) -> dict[str, Any]:
    """``{"checked": False}`` when no release was given; else the release, the counts per status,
    every module's status with its evidence, and each finding's rows."""
    p = {"firmware": firmware}
    modules = store.query("source-status", p)
    if not modules:
        return {"checked": False}
    for row in modules:
        row["evidence"] = json.loads(row["evidence"]) if row["evidence"] else []
    gaps = store.query("source-release-gaps", p)
    return {
        "checked": True,
        "release": gaps[0]["release"] if gaps else None,
        "statuses": dict(sorted(Counter(r["status"] for r in modules).items())),
        "modules": modules,
        **{key: finding_rows(store, name, firmware) for key, name in FINDINGS.items()},
    }
