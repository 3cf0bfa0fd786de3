"""``linkgraph report --format cyclonedx-json``: one firmware as a CycloneDX 1.6 JSON document
(docs/sbom.md, "CycloneDX 1.6"), written component by component as the store gives them.

The firmware is the metadata component; each module a component (``cyclonedx_component``); the
``dependencies`` list every module with the components its ``used`` and ``hidden`` edges lead to
(``dependsOn``), and the firmware with its programs.

The document is written here entry by entry, not by cyclonedx-python-lib's serialiser: that one
needs the whole ``Bom`` in memory, and its model keeps occurrences in sorted sets ordered by
their (unnamed) references, so it gives no stable order for the symbols. The library is used
for what it knows best: which SPDX ids the 1.6 schema accepts and which strings are SPDX
expressions (``cyclonedx.spdx``), purls through packageurl-python, and, in the tests, its 1.6
JSON validator and deserialiser check every document this writes.
"""

from __future__ import annotations

import importlib.metadata
import json
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from ..model import Kind
from ..report.hardening import hardening_by_module, hardening_properties
from ..report.identities import by_module, components
from ..report.inventory import ModuleFile, module_files
from ..report.report_sections import firmware_header, section
from ..store.base import GraphStore
from .cyclonedx_component import Entry, component, depends_on, edges_by_module, firmware_manager
from .source_reference import add_source, source_statuses

SPEC_VERSION = "1.6"
FIRMWARE_REF = "firmware"  # the metadata component's bom-ref (modules' are their paths: "/...")


def _dumps(value: Any) -> str:
    # ASCII with escapes: a file name that is no UTF-8 still gives a valid document
    return json.dumps(value, ensure_ascii=True)


def write_cyclonedx(store: GraphStore, firmware: str, out: TextIO) -> None:
    """The CycloneDX 1.6 JSON document of ``firmware`` to ``out``."""
    header = firmware_header(store, firmware)
    outgoing, incoming = edges_by_module(section(store, firmware, "dependencies"))
    dlopen: dict[str, list[tuple[str, str]]] = {}
    for edge in section(store, firmware, "dlopen"):
        dlopen.setdefault(edge["from"], []).append((edge["to"], edge["certainty"]))
    kernel: dict[str, list[tuple[str, str]]] = {}
    for link in section(store, firmware, "kernel_links"):
        kernel.setdefault(link["module"], []).append((link["target"], link["state"]))
    manager = firmware_manager(f.licence_source for f in module_files(store, firmware))
    identified = by_module(components(store, firmware))
    hardening = hardening_by_module(store, firmware)
    release, sources = source_statuses(store, firmware)

    out.write('{\n "bomFormat": "CycloneDX",\n "specVersion": "' + SPEC_VERSION + '",\n')
    out.write(' "serialNumber": ' + _dumps(_serial_number(header["sha256"])) + ',\n "version": 1,\n')
    out.write(' "metadata": ' + _dumps(_metadata(header, firmware)) + ',\n "components": [')
    programs: list[str] = []
    first = True
    for file in module_files(store, firmware):
        entry = component(
            file, manager, outgoing.get(file.path, []), incoming.get(file.path, []),
            dlopen.get(file.path, []), kernel.get(file.path, []), identified.get(file.path),
        )  # fmt: skip
        entry["properties"] = entry.get("properties", []) + hardening_properties(hardening.get(file.path))
        add_source(entry, release, sources.get(file.path))
        out.write(("\n  " if first else ",\n  ") + _dumps(entry))
        first = False
        if file.kind == Kind.EXECUTABLE:
            programs.append(file.path)
    out.write("\n ]" if not first else "]")
    out.write(',\n "dependencies": [\n  ' + _dumps({"ref": FIRMWARE_REF, "dependsOn": programs}))
    for entry in _dependencies(module_files(store, firmware), outgoing):
        out.write(",\n  " + _dumps(entry))
    out.write("\n ]\n}\n")


def _dependencies(files: Iterator[ModuleFile], outgoing: Mapping[str, list[Entry]]) -> Iterator[Entry]:
    """Every module with what it depends on (an empty list: nothing), as the spec asks."""
    for file in files:
        yield {"ref": file.path, "dependsOn": depends_on(outgoing.get(file.path, []))}


def _serial_number(firmware_sha256: str) -> str:
    """The same firmware described by the same linkgraph gets the same serial number."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"linkgraph:{_version()}:{firmware_sha256}").urn


def _version() -> str:
    try:
        return importlib.metadata.version("linkgraph")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _metadata(header: Entry, firmware: str) -> Entry:
    """The tool and the firmware: its name, the image file's hash when it was an image, and
    where its root came from."""
    source = header.get("source") or {}
    firmware_component: Entry = {"type": "firmware", "bom-ref": FIRMWARE_REF, "name": header["name"]}
    if source.get("target_sha256"):
        firmware_component["hashes"] = [{"alg": "SHA-256", "content": source["target_sha256"]}]
    properties = [{"name": "linkgraph:firmware_id", "value": firmware}]
    properties += (
        {"name": f"linkgraph:source_{key}", "value": str(source[key])}
        for key in ("kind", "target", "root")
        if source.get(key)
    )
    firmware_component["properties"] = properties
    return {
        "tools": {"components": [{"type": "application", "name": "linkgraph", "version": _version()}]},
        "component": firmware_component,
    }
