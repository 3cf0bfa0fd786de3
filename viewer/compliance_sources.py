"""The compliance report's "Source release" part (docs/sources.md, docs/licences.md): the release a
firmware was checked against, the modules per source status and each finding of the check: GPL and
LGPL modules without source, copyleft programs using modules with no source (with their symbols and
the build-file lines that link them), version mismatches, and what the release lacks to be built.
Page 1 gets one line for it (``statement``), also when no release was checked.

The rows are the named queries' (``source_findings``, the JSON report's ``source_check``); symbol
lists are cut as the rest of the report cuts them.
"""

from __future__ import annotations

from typing import Any

from ..loader.report.rows import Queryable, Row
from ..loader.report.source_findings import source_findings
from ..loader.sources.model import SourceStatus

NOT_RUN = "No source release was checked for this firmware (linkgraph scan --source RELEASE)"


def _uses_missing(rows: list[Row], cut: Any, limit: int) -> list[Row]:
    """One entry per program and module used, with every build-file line of the program's folder."""
    grouped: dict[tuple[str, str], Row] = {}
    for row in rows:
        key = (row["program"], row["uses"])
        if key not in grouped:
            grouped[key] = {**row, "symbols": cut(row.get("symbols") or [], limit), "lines": []}
        if row.get("file"):
            grouped[key]["lines"].append({"file": row["file"], "line": row["line"], "text": row.get("text") or ""})
    return list(grouped.values())


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _statement(release: str | None, missing: int, programs: int, mismatches: int, gaps: int) -> str:
    return (
        f"{release or '(no name)'} checked: "
        f"{_plural(missing, 'GPL or LGPL module', 'GPL or LGPL modules')} without source, "
        f"{_plural(programs, 'copyleft program uses', 'copyleft programs use')} modules with no source, "
        f"{_plural(mismatches, 'version mismatch', 'version mismatches')}, "
        f"{_plural(gaps, 'gap', 'gaps')} in what the release needs to be built"
    )


def source_release(store: Queryable, firmware_id: str, cut: Any, limit: int) -> Row:
    """Everything the report's "Source release" part shows (``cut(items, limit)``: the report's own
    way of cutting a symbol list); ``{"checked": False, "statement": …}`` when no release was checked."""
    found = source_findings(store, firmware_id)
    if not found["checked"]:
        return {"checked": False, "statement": NOT_RUN}
    uses = _uses_missing(found["uses_missing"], cut, limit)
    gaps = [g for g in found["release_gaps"] if not g["present"]] + [g for g in found["release_gaps"] if g["present"]]
    lacking = sum(1 for g in gaps if not g["present"])
    return {
        "checked": True,
        "release": found["release"],
        "statuses": [{"status": s.value, "modules": found["statuses"].get(s.value, 0)} for s in SourceStatus],
        "modules": sum(found["statuses"].values()),
        "missing": found["missing"],
        "uses_missing": uses,
        "version_mismatches": found["version_mismatches"],
        "release_gaps": gaps,
        "statement": _statement(
            found["release"],
            len(found["missing"]),
            len({u["program"] for u in uses}),
            len(found["version_mismatches"]),
            lacking,
        ),
    }
