"""SPDX 3.0.1 JSON-LD for one firmware (``linkgraph report --format spdx3-json``, docs/sbom.md).

One ``@graph`` written element by element as the store gives them: nothing holds the document;
what is held is the firmware's own packages (each written after the modules, with its purl) and
the licence expressions already written,
and one module's edges while they are grouped. It is not built with spdx-python-model: its
serializer writes a whole object set, which is the memory a stream avoids; the published SPDX
3.0.1 JSON schema and spdx-python-model's reader judge what is written (tests/test_sbom_spdx.py).

Each module's edges of one status are one ``LifecycleScopedRelationship`` (scope ``runtime``):
``hasDynamicLink`` to the libraries it binds symbols in (used and hidden), ``dependsOn`` to
those it declares without binding (declared-unused) and to ``NoAssertionElement`` for the
missing ones, ``completeness`` ``complete`` (the start-up linking is fully determined by the
loader's rules) or ``noAssertion`` (dlopen: a name built at run time is not seen; missing: no
element). Its comment gives, per target in ``to`` order, the soname and the symbols bound.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO
from urllib.parse import quote

from ..model import Status
from ..report.identities import by_module, components
from ..report.inventory import ModuleFile, module_files
from ..report.report_sections import firmware_header, section
from ..store.base import GraphStore
from .cyclonedx_component import firmware_manager, purl
from .source_reference import SOURCE_COMMENT, source_folders, source_info, source_note, source_statuses
from .spdx3_identity import annotation, contained_elements, identified_file
from .spdx_facts import (
    DEPENDENCY,
    DLOPEN,
    KERNEL,
    SPDX3_TYPE,
    JsonList,
    created,
    kernel_is_element,
    licence_fact,
    split_package,
    tool_version,
)
from .spdx_identity import contained_key, identity_comment, origin_comment

CONTEXT = "https://spdx.org/rdf/3.0.1/spdx-context.jsonld"
NO_ELEMENT = "spdx:Core/NoAssertionElement"
NO_LICENCE = "spdx:ExpandedLicensing/NoAssertionLicense"
CREATION = "_:creationinfo"
_PURPOSE = {"executable": "executable", "library": "library", "kernel-module": "module", "other-elf": "file"}


class _Ids:
    """The IRIs of one firmware's elements: under a base made of its content hash."""

    def __init__(self, firmware_sha256: str) -> None:
        self.base = f"https://linkgraph.invalid/spdx/{firmware_sha256}/"
        self._relationships = itertools.count(1)

    def module(self, path: str) -> str:
        return self.base + "module" + quote(path.encode("utf-8", "surrogateescape"), safe="/")

    def package(self, package: str) -> str:
        return self.base + "package/" + quote(package.encode("utf-8", "surrogateescape"), safe="")

    def licence(self, expression: str) -> str:
        return self.base + "licence/" + hashlib.sha256(expression.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    def relationship(self) -> str:
        return self.base + f"relationship/{next(self._relationships)}"


def write_spdx3(store: GraphStore, firmware: str, out: TextIO) -> None:
    """The SPDX 3.0.1 JSON-LD document of ``firmware`` to ``out``."""
    header = firmware_header(store, firmware)
    ids = _Ids(header["sha256"])
    out.write('{\n "@context": ' + json.dumps(CONTEXT) + ',\n "@graph": ')
    graph = JsonList(out)
    firmware_id = ids.base + "firmware"
    graph.extend(_preamble(ids, header, firmware_id))
    manager = firmware_manager(m.licence_source for m in module_files(store, firmware))
    packages: dict[str, str | None] = {}  # package -> its purl (the first of its modules that gives one)
    licences: set[str] = {"CC0-1.0"}
    identified = by_module(components(store, firmware))
    release, sources = source_statuses(store, firmware)
    for module in module_files(store, firmware):
        holder = firmware_id
        if module.package:
            holder = ids.package(module.package)
            if module.package not in packages:
                graph.add(_relationship(ids, firmware_id, "contains", [holder]))
            if packages.get(module.package) is None:
                packages[module.package] = purl(module, manager)
        file = _file(ids, module)
        own = (identified.get(module.path) or {}).get("identity")
        if own:
            identified_file(file, own)
        graph.add(file)
        graph.add(_relationship(ids, holder, "contains", [ids.module(module.path)]))
        graph.extend(_licence(ids, module, licences))
        if own:
            subject = ids.module(module.path)
            graph.add(annotation(_element, ids.base + "identification/" + subject[len(ids.base) :], subject,
                                 identity_comment(own)))  # fmt: skip
        if module.origin:  # whose vendor code it is: an origin, never a licence
            subject = ids.module(module.path)
            graph.add(annotation(_element, ids.base + "origin/" + subject[len(ids.base) :], subject,
                                 origin_comment(module.origin, module.origin_evidence)))  # fmt: skip
        if module.path in sources:  # its source status in the vendor's release (docs/sources.md)
            subject = ids.module(module.path)
            graph.add(annotation(_element, ids.base + "source/" + subject[len(ids.base) :], subject,
                                 source_note(release, sources[module.path])))  # fmt: skip
        for inside in (identified.get(module.path) or {}).get("contains", []):
            graph.extend(_contained(ids, module.path, inside, licences))
    graph.extend(_package(ids.package(p), p, packages[p]) for p in sorted(packages))
    graph.extend(_source_folders(ids, release, sources))
    graph.extend(_dependencies(ids, section(store, firmware, "dependencies")))
    graph.extend(_dlopen(ids, section(store, firmware, "dlopen")))
    graph.extend(_kernel_links(ids, section(store, firmware, "kernel_links")))
    graph.close()
    out.write("\n}\n")


def _source_folders(ids: _Ids, release: str | None, sources: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each release folder modules were built from: a source package that ``generates`` them."""
    for folder, row in source_folders(sources).items():
        iri = ids.base + "source/" + quote(folder.encode("utf-8", "surrogateescape"), safe="/")
        fields = {"name": row["package"] or folder, "software_packageVersion": row["version"]}
        yield _element("software_Package", iri, **{k: v for k, v in fields.items() if v},
                       software_primaryPurpose="source", software_sourceInfo=source_info(release, row),
                       comment=SOURCE_COMMENT)  # fmt: skip
        built = [ids.module(p) for p, r in sorted(sources.items()) if r["status"] == "source" and r["folder"] == folder]
        yield _relationship(ids, iri, "generates", built)


def _element(kind: str, spdx_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "spdxId": spdx_id, "creationInfo": CREATION, **fields}


def _preamble(ids: _Ids, header: dict[str, Any], firmware_id: str) -> Iterator[dict[str, Any]]:
    agent, tool, sbom = ids.base + "agent/linkgraph", ids.base + "tool/linkgraph", ids.base + "sbom"
    yield {
        "type": "CreationInfo",
        "@id": CREATION,
        "created": created(),
        "createdBy": [agent],
        "createdUsing": [tool],
        "specVersion": "3.0.1",
    }
    yield _element("SoftwareAgent", agent, name="linkgraph")
    yield _element("Tool", tool, name=f"linkgraph {tool_version()}")
    yield _element(
        "simplelicensing_LicenseExpression", ids.licence("CC0-1.0"), simplelicensing_licenseExpression="CC0-1.0"
    )
    yield _element(
        "SpdxDocument",
        ids.base + "document",
        name=header["name"],
        dataLicense=ids.licence("CC0-1.0"),
        rootElement=[sbom],
        profileConformance=["core", "software", "simpleLicensing"],
    )
    yield _element("software_Sbom", sbom, rootElement=[firmware_id], software_sbomType=["analyzed"])
    source = header.get("source") or {}
    comment = f"linkgraph firmware {header['sha256']}"
    if source.get("root"):
        comment += f", the root {source['root']} of {source.get('target', '?')}"
    yield _element(
        "software_Package", firmware_id, name=header["name"], software_primaryPurpose="firmware", comment=comment
    )


def _package(package_iri: str, package: str, package_url: str | None) -> dict[str, Any]:
    name, version = split_package(package)
    fields: dict[str, Any] = {"name": name}
    if version:
        fields["software_packageVersion"] = version
    if package_url:
        fields["software_packageUrl"] = package_url
    fields["comment"] = "a package of the firmware's own package data, with the modules it installed"
    return _element("software_Package", package_iri, **fields)


def _file(ids: _Ids, m: ModuleFile) -> dict[str, Any]:
    described = [f"ELF {m.kind}", f"size {m.size}"] + (["statically linked"] if m.static else [])
    if m.soname:
        described.append(f"soname {m.soname}")
    if m.aliases:
        described.append(f"also reached as {' '.join(m.aliases)}")
    fields: dict[str, Any] = {"name": m.path}
    if len(m.sha256) == 64:
        fields["verifiedUsing"] = [{"type": "Hash", "algorithm": "sha256", "hashValue": m.sha256}]
    fields["software_primaryPurpose"] = _PURPOSE.get(m.kind, "file")
    fields["software_fileKind"] = "file"
    fields["comment"] = ", ".join(described)
    return _element("software_File", ids.module(m.path), **fields)


def _licence(ids: _Ids, m: ModuleFile, written: set[str]) -> Iterator[dict[str, Any]]:
    """The module's concluded licence (NoAssertionLicense where none) and, when its package data
    declares it, its declared licence: relationships to one expression element each."""
    fact = licence_fact(m.licence)
    target = ids.licence(fact.expression) if fact.expression else NO_LICENCE
    yield from _expression(ids, fact.expression, written)
    notes = [f"source: {m.licence_source}"] + ([f"certainty: {m.licence_certainty}"] if m.licence_certainty else [])
    if fact.note:
        notes.append(fact.note)
    file_id = ids.module(m.path)
    yield _relationship(ids, file_id, "hasConcludedLicense", [target], comment="; ".join(notes))
    if m.licence_certainty == "declared":
        yield _relationship(ids, file_id, "hasDeclaredLicense", [target])


def _expression(ids: _Ids, expression: str | None, written: set[str]) -> Iterator[dict[str, Any]]:
    """The licence expression's element, once per document."""
    if expression and expression not in written:
        written.add(expression)
        yield _element("simplelicensing_LicenseExpression", ids.licence(expression),
                       simplelicensing_licenseExpression=expression)  # fmt: skip


def _contained(ids: _Ids, path: str, inside: dict[str, Any], written: set[str]) -> Iterator[dict[str, Any]]:
    """A component found inside the module at ``path`` (docs/identify.md): a package the File
    contains, with its concluded licence and the evidence as an annotation."""
    package = ids.base + "component/" + quote(contained_key(path, inside).encode("utf-8", "surrogateescape"), safe="")
    yield from contained_elements(_element, package, path, inside)
    yield _relationship(ids, ids.module(path), "contains", [package])
    expression = licence_fact(inside["licence"]).expression
    yield from _expression(ids, expression, written)
    yield _relationship(ids, package, "hasConcludedLicense", [ids.licence(expression) if expression else NO_LICENCE])


def _relationship(ids: _Ids, source: str, kind: str, targets: list[str], **fields: Any) -> dict[str, Any]:
    return _element(
        "Relationship", ids.relationship(), **{"from": source, "relationshipType": kind, "to": targets}, **fields
    )


def _scoped(ids: _Ids, source: str, kind: str, targets: list[str], completeness: str, comment: str) -> dict[str, Any]:
    return _element(
        "LifecycleScopedRelationship",
        ids.relationship(),
        **{"from": source, "relationshipType": kind, "to": targets},
        scope="runtime",
        completeness=completeness,
        comment=comment,
    )


def _groups(
    entries: Iterable[dict[str, Any]], source: str, key: Callable[[dict[str, Any]], Any]
) -> Iterator[tuple[str, Any, list[dict[str, Any]]]]:
    """Entries sorted by ``source``: per source, per ``key`` (in first-seen order), the entries."""
    for origin, same_source in itertools.groupby(entries, key=lambda e: e[source]):
        by_key: dict[Any, list[dict[str, Any]]] = {}
        for entry in same_source:
            by_key.setdefault(key(entry), []).append(entry)
        for k, group in by_key.items():
            yield origin, k, group


def _symbols(symbols: list[str]) -> str:
    return f"; symbols ({len(symbols)}): {' '.join(symbols)}" if symbols else ""


def _dependencies(ids: _Ids, edges: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for origin, status, group in _groups(edges, "from", lambda e: Status(e["status"])):
        lines = [f"linkgraph {DEPENDENCY}: {status}"]
        lines.extend(f"{e['to'] or 'missing'} ({e['soname']}){_symbols(e['symbols'])}" for e in group)
        if status == Status.MISSING:
            targets, completeness = [NO_ELEMENT], "noAssertion"
        else:
            targets, completeness = [ids.module(e["to"]) for e in group], "complete"
        yield _scoped(ids, ids.module(origin), SPDX3_TYPE[status], targets, completeness, "\n".join(lines))


def _dlopen(ids: _Ids, edges: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for origin, certainty, group in _groups(edges, "from", lambda e: e["certainty"]):
        lines = [f"linkgraph {DLOPEN}: {certainty}"]
        lines.extend(f"{e['to']} ({e['found_in']}: {e['evidence']})" for e in group)
        targets = [ids.module(e["to"]) for e in group]
        yield _scoped(ids, ids.module(origin), "hasDynamicLink", targets, "noAssertion", "\n".join(lines))


def _kernel_links(ids: _Ids, links: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for origin, (state, element), group in _groups(
        links, "module", lambda e: (Status(e["state"]), kernel_is_element(e))
    ):
        lines = [f"linkgraph {KERNEL}: {state}"]
        lines.extend(f"{e['target']}{_symbols(e['symbols'])}" for e in group)
        targets = [ids.module(e["target"]) for e in group] if element else [NO_ELEMENT]
        completeness = "complete" if element else "noAssertion"
        yield _scoped(ids, ids.module(origin), SPDX3_TYPE[state], targets, completeness, "\n".join(lines))
