"""The identification stage's answers in SPDX 3.0.1 (docs/sbom.md, docs/identify.md): a module's own
identification as the purl and CPE of its File (``externalIdentifier``) and an ``Annotation`` with
the evidence; each component found inside a module as a ``software_Package`` the File
``contains``, with its version, purl, CPE, concluded licence and an ``Annotation`` of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .spdx_identity import identity_comment

Entry = dict[str, Any]
Element = Callable[..., Entry]  # _element(kind, spdx_id, **fields)


def external_identifiers(ident: Entry) -> list[Entry]:
    """The identification's purl and CPE as external identifiers of an element."""
    found = [("packageUrl", ident["purl"]), ("cpe23", ident["cpe"])]
    return [{"type": "ExternalIdentifier", "externalIdentifierType": t, "identifier": v} for t, v in found if v]


def annotation(element: Element, spdx_id: str, subject: str, comment: str) -> Entry:
    return element("Annotation", spdx_id, annotationType="other", subject=subject, statement=comment)


def identified_file(file: Entry, ident: Entry) -> None:
    """The module's File with the identification's purl and CPE."""
    found = external_identifiers(ident)
    if found:
        file["externalIdentifier"] = found


def contained_elements(element: Element, package_id: str, path: str, inside: Entry) -> list[Entry]:
    """A component found inside the module at ``path``: its package and the annotation with the evidence."""
    fields: Entry = {"name": inside["component"]}
    if inside["version"]:
        fields["software_packageVersion"] = inside["version"]
    if inside["purl"]:
        fields["software_packageUrl"] = inside["purl"]
    cpe = [e for e in external_identifiers(inside) if e["externalIdentifierType"] == "cpe23"]
    if cpe:
        fields["externalIdentifier"] = cpe
    fields["software_primaryPurpose"] = "library"
    fields["comment"] = f"a copy of {inside['component']} found inside {path}"
    comment = identity_comment(inside, contained=True)
    return [
        element("software_Package", package_id, **fields),
        annotation(element, package_id + "/identification", package_id, comment),
    ]
