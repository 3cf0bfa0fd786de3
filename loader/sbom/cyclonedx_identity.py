"""The identification stage's answers in CycloneDX 1.6 (docs/sbom.md, docs/identify.md).

A module's own identification becomes its component's ``evidence.identity``: one identity object
per field it concludes (``name``, ``version``, ``purl``, ``cpe``), each with the identification's
confidence and the methods behind it (``binary-analysis`` for a string, a licence statement, the
exported API or the root's own copy; ``filename`` for a name), the matched text and its offset as
each method's ``value``. A component found inside a module is a component nested in the module's
(``components``), with its own licence, purl, CPE and identity evidence.
"""

from __future__ import annotations

from typing import Any

from ..identify import EvidenceKind
from ..model import Certainty

Entry = dict[str, Any]
# how sure an identification is, as CycloneDX's confidence (0 to 1)
CONFIDENCE = {Certainty.DECLARED: 1.0, Certainty.IDENTIFIED: 0.8, Certainty.INFERRED: 0.3}
# the technique of each kind of evidence, and how much that one piece says on its own
TECHNIQUES = {
    EvidenceKind.STRING: ("binary-analysis", 0.8),
    EvidenceKind.STATEMENT: ("binary-analysis", 1.0),
    EvidenceKind.SYMBOLS: ("binary-analysis", 0.7),
    EvidenceKind.ROOT: ("other", 0.5),
    EvidenceKind.NAME: ("filename", 0.3),
}


def method_value(evidence: Entry) -> str:
    """The evidence's text, and where it is in the file: "BusyBox v1.14.1 (at offset 0x7a9d8)"."""
    offset = evidence.get("offset")
    return evidence["text"] if offset is None else f"{evidence['text']} (at offset {offset:#x})"


def identity_evidence(ident: Entry) -> list[Entry]:
    """``evidence.identity`` of an identification: the fields it concludes, each with its methods."""
    methods = [
        {"technique": TECHNIQUES[EvidenceKind(e["kind"])][0], "confidence": TECHNIQUES[EvidenceKind(e["kind"])][1],
         "value": method_value(e)}
        for e in ident["evidence"]
    ]  # fmt: skip
    confidence = CONFIDENCE[Certainty(ident["certainty"])]
    fields = {"name": ident["component"], "version": ident["version"], "purl": ident["purl"], "cpe": ident["cpe"]}
    return [
        {"field": field, "confidence": confidence, "concludedValue": value, "methods": methods}
        for field, value in fields.items()
        if value
    ]


def contained_component(path: str, inside: Entry, licences: tuple[Entry, ...]) -> Entry:
    """A component found inside the module at ``path``, nested in its component."""
    entry: Entry = {
        "type": "library",
        "bom-ref": f"{path}#contains:{inside['component']}@{inside['version'] or ''}",
        "name": inside["component"],
    }
    if inside["version"]:
        entry["version"] = inside["version"]
    if licences:
        entry["licenses"] = list(licences)
    if inside["cpe"]:
        entry["cpe"] = inside["cpe"]
    if inside["purl"]:
        entry["purl"] = inside["purl"]
    entry["evidence"] = {"identity": identity_evidence(inside), "occurrences": [{"location": path}]}
    entry["properties"] = [
        {"name": "linkgraph:contained_in", "value": path},
        {"name": "linkgraph:licence_class", "value": inside["licence_class"]},
    ]
    return entry
