"""SPDX 2.3 JSON for one firmware (``linkgraph report --format spdx-json``, docs/sbom.md).

The document is written entry by entry as the store gives them (the modules are read three
times: for their package database, as packages, for their CONTAINS relationships), so its memory
does not grow with the firmware; what is held is one line per package of the firmware's own
package data and per LicenseRef-. It is not built with spdx-tools: its writer takes a whole
``Document`` object, which is the memory a stream avoids; spdx-tools' parser and validator judge
what is written (tests/test_sbom_spdx.py).

A module is a Package, not a File: SPDX 2.3 requires a SHA1 checksum on every File (clause 8.4)
and the store holds each module's SHA256 only; a Package takes any checksum algorithm.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

from ..model import Status
from ..report.inventory import ModuleFile, module_files
from ..report.report_sections import firmware_header, section
from ..store.base import GraphStore
from .cyclonedx_component import firmware_manager, purl
from .spdx_facts import (
    SPDX2_TYPE,
    JsonList,
    created,
    dependency_comment,
    dlopen_comment,
    kernel_comment,
    kernel_is_element,
    licence_fact,
    split_package,
    tool_version,
)

NOASSERTION = "NOASSERTION"
DOCUMENT = "SPDXRef-DOCUMENT"
FIRMWARE = "SPDXRef-Firmware"
_PURPOSE = {"executable": "APPLICATION", "library": "LIBRARY", "kernel-module": "OTHER", "other-elf": "FILE"}
_ID_CHARS = re.compile(r"[^A-Za-z0-9.]+")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def spdx_id(kind: str, text: str) -> str:
    """``SPDXRef-KIND-readable-hash``: the readable part from ``text``, the hash keeps ids apart."""
    readable = _ID_CHARS.sub("-", text).strip("-")[:80]
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"SPDXRef-{kind}-{readable}-{digest}" if readable else f"SPDXRef-{kind}-{digest}"


def module_id(path: str) -> str:
    return spdx_id("Module", path)


def package_id(package: str) -> str:
    return spdx_id("Package", package)


def write_spdx2(store: GraphStore, firmware: str, out: TextIO) -> None:
    """The SPDX 2.3 JSON document of ``firmware`` to ``out``."""
    header = firmware_header(store, firmware)
    head = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": DOCUMENT,
        "name": header["name"],
        "documentNamespace": f"https://linkgraph.invalid/spdx/{header['sha256']}",
        "creationInfo": {
            "created": created(),
            "creators": [f"Tool: linkgraph-{tool_version()}"],
            "comment": "The dynamic linking of the firmware's modules as linkgraph's static analysis of its "
            "loaders found it: each module a package, each dependency edge a relationship whose comment "
            "gives its status and the symbols bound across it.",
        },
    }
    out.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in head.items()))
    out.write(',\n "packages": ')
    packages = JsonList(out)
    packages.add(_firmware_package(header))
    manager = firmware_manager(m.licence_source for m in module_files(store, firmware))
    own: dict[str, str | None] = {}  # package -> its purl (the first of its modules that gives one)
    refs: dict[str, str] = {}
    for module in module_files(store, firmware):
        fact = licence_fact(module.licence)
        for ref in fact.refs:
            refs.setdefault(ref, module.licence_source)
        packages.add(_module_package(module))
        if module.package and own.get(module.package) is None:
            own[module.package] = purl(module, manager)
    packages.extend(_own_package(package, own[package]) for package in sorted(own))
    packages.close()
    out.write(',\n "relationships": ')
    relationships = JsonList(out)
    relationships.add(_relationship(DOCUMENT, "DESCRIBES", FIRMWARE))
    relationships.extend(_relationship(FIRMWARE, "CONTAINS", package_id(p)) for p in sorted(own))
    relationships.extend(
        _relationship(package_id(m.package) if m.package else FIRMWARE, "CONTAINS", module_id(m.path))
        for m in module_files(store, firmware)
    )
    relationships.extend(_edges(store, firmware))
    relationships.close()
    out.write(',\n "hasExtractedLicensingInfos": ')
    infos = JsonList(out)
    infos.extend(_licence_info(ref, source) for ref, source in sorted(refs.items()))
    infos.close()
    out.write("\n}\n")


def _firmware_package(header: dict[str, Any]) -> dict[str, Any]:
    source = header.get("source") or {}
    return {
        "SPDXID": FIRMWARE,
        "name": header["name"],
        "downloadLocation": NOASSERTION,
        "filesAnalyzed": False,
        "primaryPackagePurpose": "FIRMWARE",
        "licenseConcluded": NOASSERTION,
        "licenseDeclared": NOASSERTION,
        "copyrightText": NOASSERTION,
        "comment": f"linkgraph firmware {header['sha256']}"
        + (f", the root {source['root']} of {source.get('target', '?')}" if source.get("root") else ""),
    }


def _module_package(m: ModuleFile) -> dict[str, Any]:
    fact = licence_fact(m.licence)
    expression = fact.expression or NOASSERTION
    notes = [f"source: {m.licence_source}"]
    if m.licence_certainty:
        notes.append(f"certainty: {m.licence_certainty}")
    if fact.note:
        notes.append(fact.note)
    described = [f"ELF {m.kind}", f"size {m.size}"]
    if m.soname:
        described.append(f"soname {m.soname}")
    if m.aliases:
        described.append(f"also reached as {' '.join(m.aliases)}")
    entry: dict[str, Any] = {
        "SPDXID": module_id(m.path),
        "name": m.path,
        "packageFileName": "." + m.path,
        "downloadLocation": NOASSERTION,
        "filesAnalyzed": False,
        "primaryPackagePurpose": _PURPOSE.get(m.kind, "OTHER"),
    }
    if _SHA256.fullmatch(m.sha256):
        entry["checksums"] = [{"algorithm": "SHA256", "checksumValue": m.sha256}]
    entry["licenseConcluded"] = expression
    entry["licenseDeclared"] = expression if m.licence_certainty == "declared" else NOASSERTION
    entry["licenseComments"] = "; ".join(notes)
    entry["copyrightText"] = NOASSERTION
    entry["comment"] = ", ".join(described)
    return entry


def _own_package(package: str, package_url: str | None) -> dict[str, Any]:
    name, version = split_package(package)
    entry: dict[str, Any] = {"SPDXID": package_id(package), "name": name}
    if version:
        entry["versionInfo"] = version
    entry.update(
        {
            "downloadLocation": NOASSERTION,
            "filesAnalyzed": False,
            "copyrightText": NOASSERTION,
            "comment": "a package of the firmware's own package data, with the modules it installed",
        }
    )
    if package_url:
        entry["externalRefs"] = [
            {"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": package_url}
        ]
    return entry


def _relationship(source: str, kind: str, target: str, comment: str | None = None) -> dict[str, Any]:
    entry = {"spdxElementId": source, "relationshipType": kind, "relatedSpdxElement": target}
    if comment is not None:
        entry["comment"] = comment
    return entry


def _edges(store: GraphStore, firmware: str) -> Iterator[dict[str, Any]]:
    """Every dependency edge, dlopen edge and kernel link as a relationship (docs/sbom.md)."""
    for edge in section(store, firmware, "dependencies"):
        target = module_id(edge["to"]) if edge["to"] else NOASSERTION
        kind = SPDX2_TYPE[Status(edge["status"])]
        yield _relationship(module_id(edge["from"]), kind, target, dependency_comment(edge))
    for edge in section(store, firmware, "dlopen"):
        yield _relationship(module_id(edge["from"]), "DYNAMIC_LINK", module_id(edge["to"]), dlopen_comment(edge))
    for link in section(store, firmware, "kernel_links"):
        target = module_id(link["target"]) if kernel_is_element(link) else NOASSERTION
        kind = SPDX2_TYPE[Status(link["state"])]
        yield _relationship(module_id(link["module"]), kind, target, kernel_comment(link))


def _licence_info(ref: str, source: str) -> dict[str, Any]:
    return {
        "licenseId": ref,
        "name": ref,
        "extractedText": f"The licence {ref}, as linkgraph's licence facts name it ({source}); "
        "its text is not part of what linkgraph read.",
    }
