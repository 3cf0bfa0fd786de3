"""Vendor code among the modules to review (docs/licences.md, "Coverage"): a module whose bytes show a
vendor SDK or the device maker (its ``origin``, loader.identify.vendor) is vendor code, to ask the
vendor about; the others are of unknown origin, to investigate. Every surface of "To review" (the
JSON report, the compliance report, the viewer's Licences page, the scan's summary) splits them
the same way, worded here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

Entry = dict[str, Any]

ASK = "vendor code: ask the vendor"
INVESTIGATE = "unknown origin: investigate"


def origin_entry(name: str | None, evidence: str | None) -> Entry | None:
    """A module's origin as the report gives it: ``{name, evidence}``, None when nothing shows one."""
    if name is None:
        return None
    return {"name": name, "evidence": json.loads(evidence) if evidence else []}


def origin_counts(to_review: Iterable[Entry]) -> tuple[dict[str, int], int]:
    """The modules to review per origin (most first, then by name), and how many have none."""
    entries = list(to_review)
    counts = Counter(e["origin"]["name"] for e in entries if e.get("origin"))
    ordered = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return ordered, len(entries) - sum(counts.values())


def origin_statement(vendor_code: dict[str, int], unknown: int) -> str:
    """The split in one sentence: ``11 are vendor code (Broadcom SDK 8, ...): ask the vendor; 39
    of unknown origin: investigate`` (empty when there is nothing to review)."""
    vendor = sum(vendor_code.values())
    if not vendor and not unknown:
        return ""
    parts = []
    if vendor:
        each = ", ".join(f"{name} {n}" for name, n in vendor_code.items())
        parts.append(f"{vendor} {'is' if vendor == 1 else 'are'} vendor code ({each}): ask the vendor")
    if unknown:
        parts.append(f"{unknown} {'is' if unknown == 1 else 'are'} of unknown origin: investigate")
    return "Of the modules to review, " + "; ".join(parts)


def split(to_review: Iterable[Entry]) -> tuple[list[Entry], list[Entry]]:
    """The modules to review as (vendor code, by origin then path; unknown origin, by path)."""
    entries = list(to_review)
    vendor = sorted((e for e in entries if e.get("origin")), key=lambda e: (e["origin"]["name"], e["path"]))
    return vendor, [e for e in entries if not e.get("origin")]
