"""The identification stage's answers in the SPDX documents (docs/sbom.md, docs/identify.md): what a
module is and the components found inside it, said in words with every piece of evidence and its
offset, each contained component as a package of its own, and whose vendor code a module is
(SPDX 2.3 and 3.0 alike)."""

from __future__ import annotations

import json
from typing import Any

Entry = dict[str, Any]


def evidence_text(evidence: list[Entry]) -> str:
    """``string "BusyBox v1.14.1" at offset 0x7a9d8; name "busybox"``"""
    parts = []
    for e in evidence:
        offset = e.get("offset")
        parts.append(f'{e["kind"]} "{e["text"]}"' + (f" at offset {offset:#x}" if offset is not None else ""))
    return "; ".join(parts)


def identity_comment(ident: Entry, contained: bool = False) -> str:
    """What the identification found, in one line: the component, its version, certainty,
    licence, purl, CPE and evidence."""
    label = f"{ident['component']} {ident['version']}" if ident["version"] else ident["component"]
    facts = [f"certainty {ident['certainty']}", f"licence {ident['licence'] or 'unknown'}"]
    facts += [f"{key} {ident[key]}" for key in ("purl", "cpe") if ident[key]]
    what = "contains a copy of" if contained else "identified as"
    return (
        f"linkgraph identification: {what} {label} ({'; '.join(facts)}); evidence: {evidence_text(ident['evidence'])}"
    )


def contained_key(path: str, inside: Entry) -> str:
    """What names a contained component apart from every other element: its module and itself."""
    return f"{path}#{inside['component']}@{inside['version'] or ''}"


def origin_comment(origin: str, evidence: str | None) -> str:
    """Whose vendor code the module is, in one line, with the evidence (``evidence``: its JSON list)."""
    shown = evidence_text(json.loads(evidence) if evidence else [])
    return f"linkgraph origin: vendor code of {origin} (an origin, not a licence); evidence: {shown}"
