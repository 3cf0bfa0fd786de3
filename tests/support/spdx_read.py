"""SPDX SBOMs judged and read back by the maintained tools, never by linkgraph's own code.

SPDX 2.3: spdx-tools' JSON parser and ``validate_full_spdx_document``, its ``pyspdxtools``
command, and the specification's JSON schema. SPDX 3.0.1: the published JSON schema
(jsonschema-rs: the Python reference validator takes minutes on a few thousand elements; the
article's document is checked by both), the model's SHACL shapes through spdx3-validate's
checker (pyshacl), and spdx-python-model's reader. The schemas, context and model are vendored
under tests/fixtures/spdx2 and spdx3 (READMEs there: the published addresses are not reachable
from here).

Each reader gives the document's dependency edges as (from, status, to, soname, symbols), the
form the JSON report's ``dependencies`` section is compared in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SPDX2, SPDX3 = FIXTURES / "spdx2", FIXTURES / "spdx3"
Edge = tuple[str, str, str | None, str, tuple[str, ...]]


def report_edges(report: dict[str, Any]) -> set[Edge]:
    return {(e["from"], e["status"], e["to"], e["soname"], tuple(e["symbols"])) for e in report["dependencies"]}


# --------------------------------------------------------------------------- SPDX 2.3


def spdx2_messages(path: Path) -> list[str]:
    """spdx-tools' parser and full validation: its messages (none: valid)."""
    from spdx_tools.spdx.parser.parse_anything import parse_file
    from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document

    return [m.validation_message for m in validate_full_spdx_document(parse_file(str(path)))]


def spdx2_schema_errors(path: Path) -> list[str]:
    """The SPDX 2.3 JSON schema's errors (the specification's schema, vendored)."""
    import jsonschema

    schema = json.loads((SPDX2 / "spdx-schema.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{e.json_path}: {e.message[:300]}" for e in validator.iter_errors(json.loads(path.read_text()))]


def pyspdxtools(path: Path, *more: str) -> subprocess.CompletedProcess:
    """``pyspdxtools -i FILE [MORE]``: spdx-tools' command line reads and validates the file."""
    exe = Path(sys.executable).with_name("pyspdxtools")
    cmd = [str(exe), "-i", str(path), *more]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)


def _lines(comment: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in comment.splitlines()[1:] if ": " in line)


def _symbols(text: str | None) -> tuple[str, ...]:
    return tuple(text.split(" ")) if text else ()


def spdx2_edges(path: Path) -> set[Edge]:
    """The dependency edges of an SPDX 2.3 document as spdx-tools parses it."""
    from spdx_tools.spdx.parser.parse_anything import parse_file

    doc = parse_file(str(path))
    names = {p.spdx_id: p.name for p in doc.packages} | {f.spdx_id: f.name.removeprefix(".") for f in doc.files}
    edges: set[Edge] = set()
    for r in doc.relationships:
        head = (r.comment or "").split("\n", 1)[0]
        if not head.startswith("linkgraph dependency: "):
            continue
        status = head.removeprefix("linkgraph dependency: ")
        facts = _lines(r.comment or "")
        symbols = next((v for k, v in facts.items() if k.startswith("symbols (")), None)
        target = names.get(str(r.related_spdx_element_id))  # NOASSERTION: None
        edges.add((names[r.spdx_element_id], status, target, facts["soname"], _symbols(symbols)))
    return edges


def spdx2_types(path: Path) -> dict[str, set[str]]:
    """Status -> the SPDX relationship types its dependency relationships have."""
    data = json.loads(path.read_text())
    out: dict[str, set[str]] = {}
    for r in data["relationships"]:
        head = r.get("comment", "").split("\n", 1)[0]
        if head.startswith("linkgraph dependency: "):
            out.setdefault(head.removeprefix("linkgraph dependency: "), set()).add(r["relationshipType"])
    return out


# --------------------------------------------------------------------------- SPDX 3.0.1


@cache
def spdx3_schema() -> dict[str, Any]:
    return json.loads((SPDX3 / "spdx-json-schema.json").read_text())


def spdx3_schema_errors(doc: dict[str, Any], reference: bool = False) -> list[str]:
    """The published schema's errors: jsonschema-rs, or the Python reference validator."""
    if reference:
        import jsonschema

        validator = jsonschema.Draft202012Validator(spdx3_schema())
        return [f"{e.json_path}: {e.message[:300]}" for e in validator.iter_errors(doc)]
    import jsonschema_rs

    return [str(e)[:300] for e in jsonschema_rs.validator_for(spdx3_schema()).iter_errors(doc)]


def spdx3_shacl_violations(doc: dict[str, Any]) -> list[str]:
    """The SHACL violations (spdx3-validate's checker on the model's shapes); the document's
    context is the vendored copy of the published one."""
    import rdflib
    from spdx3_validate.core import check_graph
    from spdx3_validate.spdx_versions import find_version

    version = find_version(doc["@context"])
    assert version is not None, doc["@context"]
    shapes = rdflib.Graph().parse(SPDX3 / "spdx-model.ttl", format="turtle")
    local = {**doc, "@context": json.loads((SPDX3 / "spdx-context.jsonld").read_text())["@context"]}
    graph = rdflib.Graph().parse(data=json.dumps(local), format="json-ld")
    return check_graph(graph, shapes, version, True)


def spdx3_objects(doc: dict[str, Any]) -> tuple[Any, Any]:
    """spdx-python-model's reading of the document: (the model module, the object set)."""
    import spdx_python_model

    return spdx_python_model.load_data(doc)


def _name(element: Any) -> str | None:
    return None if isinstance(element, str) else element.name


def spdx3_relationships(doc: dict[str, Any], kind: str) -> Iterable[tuple[Any, str]]:
    """Each LifecycleScopedRelationship whose comment starts ``linkgraph KIND: ``, with the status."""
    model, objects = spdx3_objects(doc)
    for r in objects.foreach_type(model.LifecycleScopedRelationship):
        head = (r.comment or "").split("\n", 1)[0]
        if head.startswith(f"linkgraph {kind}: "):
            yield r, head.removeprefix(f"linkgraph {kind}: ")


def spdx3_edges(doc: dict[str, Any]) -> set[Edge]:
    """The dependency edges of an SPDX 3 document as spdx-python-model reads it: each target's
    line of the comment (in ``to`` order) gives its path, soname and symbols."""
    edges: set[Edge] = set()
    for r, status in spdx3_relationships(doc, "dependency"):
        source = _name(r.from_)
        assert source is not None
        parsed = [_target_line(line) for line in r.comment.splitlines()[1:]]
        targets = [_name(t) for t in r.to]
        assert targets == ([None] if status == "missing" else [p[0] for p in parsed]), (targets, r.comment)
        edges.update((source, status, None if status == "missing" else t, so, sy) for t, so, sy in parsed)
    return edges


def _target_line(line: str) -> tuple[str, str, tuple[str, ...]]:
    """``TARGET (SONAME); symbols (N): A B`` -> (target, soname, symbols)."""
    head, _, symbols = line.partition("; symbols (")
    target, _, soname = head.rpartition(" (")
    return target, soname.removesuffix(")"), _symbols(symbols.partition("): ")[2])
