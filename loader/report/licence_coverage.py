"""How far the licence findings can be trusted: how many modules have no licence fact, and which
(docs/licences.md, "Coverage"). Every findings surface states it (the JSON report, the compliance
report, the viewer's Licences page, ``linkgraph query licence-*`` and the scan's summary), lists
those modules under *To review*, and says "no finding" only with it: a module nobody has given a
licence may be GPL code, or proprietary code using it.

``licence_coverage`` reads it from the named queries ``licence-to-review`` and ``licence-summary``;
``coverage_statement`` and ``no_finding`` word it the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..licences.facts import NO_FACT
from .rows import Queryable, Row
from .vendor_code import origin_counts, origin_entry, origin_statement

TO_REVIEW = "To review"
KERNEL_NO_FINDING = (
    "No finding (the kernel's own rule: a module without license= counts as GPL-incompatible, so none is left out)"
)


@dataclass(frozen=True, slots=True)
class Coverage:
    """The counts behind the statement: all modules, those with no licence fact, those whose
    licence linkgraph does not classify."""

    modules: int
    without_fact: int
    unclassified: int

    @property
    def complete(self) -> bool:
        return not self.without_fact and not self.unclassified


def coverage_statement(c: Coverage) -> str:
    """The coverage in one sentence: 104 of 147 modules have no licence fact and are listed under To review."""
    if c.complete:
        return f"All {c.modules} modules have a licence fact linkgraph classifies; none is left to review"
    parts = []
    if c.without_fact:
        parts.append(f"{c.without_fact} of {c.modules} modules {_have(c.without_fact)} no licence fact")
    if c.unclassified:
        lead = f"{c.unclassified} more" if c.without_fact else f"{c.unclassified} of {c.modules} modules"
        parts.append(f"{lead} {_have(c.unclassified)} a licence linkgraph does not classify")
    return ", ".join(parts) + f" and {'are' if c.without_fact + c.unclassified > 1 else 'is'} listed under {TO_REVIEW}"


def _have(n: int) -> str:
    return "has" if n == 1 else "have"


def no_finding(c: Coverage, kernel: bool = False) -> str:
    """What to say when a finding lists nothing. Finding (e) follows the kernel's own reading of
    ``license=``, which counts a module without one as GPL-incompatible: no fact is missing there."""
    if kernel:
        return KERNEL_NO_FINDING
    if c.complete:
        return "No finding"
    return f"No finding among the modules whose licence is known; {coverage_statement(c)}"


def to_review_entry(row: Row) -> Row:
    """A row of ``licence-to-review`` as the surfaces list it."""
    return {
        "path": row["path"],
        "kind": row["kind"],
        "static": None if row["static"] is None else bool(row["static"]),
        "licence": row["licence"],
        "licence_source": row["source"] or NO_FACT,
        "package": row["package"],
        "origin": origin_entry(row.get("origin"), row.get("origin_evidence")),
    }


def count(rows: Iterable[Row], modules: int) -> Coverage:
    """The counts of ``to_review`` entries among ``modules`` modules."""
    rows = list(rows)
    without = sum(1 for r in rows if r["licence"] is None)
    return Coverage(modules=modules, without_fact=without, unclassified=len(rows) - without)


def licence_coverage(store: Queryable, firmware_id: str) -> Row:
    """``modules``, ``without_licence_fact``, ``unclassified``, the ``statement``, the
    ``to_review`` list (path order) of one firmware, and how many of those are vendor code
    (``vendor_code``: per origin) or of ``unknown_origin``, in words (``origin_statement``)."""
    params = {"firmware": firmware_id}
    modules = sum(int(r["modules"]) for r in store.query("licence-summary", params))
    to_review = [to_review_entry(r) for r in store.query("licence-to-review", params)]
    c = count(to_review, modules)
    vendor_code, unknown = origin_counts(to_review)
    return {
        "modules": c.modules,
        "without_licence_fact": c.without_fact,
        "unclassified": c.unclassified,
        "statement": coverage_statement(c),
        "no_finding": no_finding(c),
        "no_finding_kernel": no_finding(c, kernel=True),
        "to_review": to_review,
        "vendor_code": vendor_code,
        "unknown_origin": unknown,
        "origin_statement": origin_statement(vendor_code, unknown),
    }
