"""The identification stage's answers as graph rows (``loader.identify``): the module's own
identity on its ``Module`` row, and a ``Component`` node with a ``CONTAINS`` edge for each copy
of a component found inside a module."""

from __future__ import annotations

import json

from ...cypher.schema import ComponentRow, ContainsRow
from ..identify import Identification, ModuleIdentity
from ..identify.model import Origin
from ..identify.version_order import version_key_or_none
from ..licences.classes import licence_class
from .graph_rows import GraphRows, key_part

IDENTITY_COLUMNS = (
    "component",
    "component_version",
    "identity",
    "component_licence",
    "component_certainty",
    "component_purl",
    "component_cpe",
    "component_evidence",
    "component_version_key",
)


def identity_columns(found: ModuleIdentity | None) -> dict[str, str | None]:
    """The identification columns of a module's row (``IDENTITY_COLUMNS``)."""
    own = found.own if found is not None else None
    if own is None:
        return dict.fromkeys(IDENTITY_COLUMNS)
    return {
        "component": own.component,
        "component_version": own.version,
        "identity": json.dumps(own.record(), sort_keys=True),
        "component_licence": own.licence,
        "component_certainty": own.certainty.value,
        "component_purl": own.purl,
        "component_cpe": own.cpe,
        "component_evidence": evidence_json(own),
        "component_version_key": version_key_or_none(own.version),
    }


def evidence_json(ident: Identification | Origin) -> str:
    return json.dumps([e.record() for e in ident.evidence])


def origin_columns(found: ModuleIdentity | None) -> dict[str, str | None]:
    """The vendor-code columns of a module's row: its origin and that origin's evidence."""
    origin = found.origin if found is not None else None
    if origin is None:
        return {"origin": None, "origin_evidence": None}
    return {"origin": origin.name, "origin_evidence": evidence_json(origin)}


def component_rows(rows: GraphRows, identities: dict[str, ModuleIdentity], mid: dict[str, str]) -> None:
    """One ``Component`` node per (name, version) of the copies found, one ``CONTAINS`` edge per copy."""
    fw = rows.firmware
    nodes: dict[str, ComponentRow] = {}
    edges: list[ContainsRow] = []
    for path, found in sorted(identities.items()):
        for inside in found.contains:
            cid = f"{fw}:component:{key_part(inside.component)}:{key_part(inside.version or '')}"
            nodes.setdefault(
                cid,
                {
                    "id": cid,
                    "firmware": fw,
                    "name": inside.component,
                    "version": inside.version,
                    "licence": inside.licence,
                    "licence_class": licence_class(inside.licence).value,
                    "purl": inside.purl,
                    "cpe": inside.cpe,
                },
            )
            edges.append(
                {"from": mid[path], "to": cid, "certainty": inside.certainty.value, "evidence": evidence_json(inside)}
            )
    rows.nodes["Component"] = list(nodes.values())
    rows.rels[("CONTAINS", "Module", "Component")] = edges
