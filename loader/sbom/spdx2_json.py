"""SPDX 2.3 JSON for one firmware (``linkgraph report --format spdx-json``, docs/sbom.md).

The firmware is a Package that contains its own packages (dpkg, opkg, ...) as Packages, and each
module is a File (``spdx2_files``) that its package or the firmware contains; every dependency
edge, dlopen edge and kernel link is a relationship between Files.

The document is written entry by entry as the store gives them (the modules are read four
times: for their package database, as files, as packages when they cannot be files, for their
CONTAINS relationships; their SHA1s once more in SHA1 order, for the verification codes), so its
memory does not grow with the firmware; what is held is one entry per package of the firmware's
own package data and per LicenseRef-. The files come before the packages in the document (JSON
members have no order), so that what the packages say of their files is known when they are
written. It is not built with spdx-tools: its writer takes a whole ``Document`` object, which is
the memory a stream avoids; spdx-tools' parser and validator judge what is written
(tests/test_sbom_spdx.py).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

from ..model import Status
from ..report.identities import by_module, components
from ..report.inventory import ModuleFile, module_files
from ..report.report_sections import firmware_header, section
from ..store.base import GraphStore
from .cyclonedx_component import firmware_manager, purl
from .source_reference import source_folders, source_note, source_statuses, spdx2_source_package
from .spdx2_files import (
    OwnPackage,
    annotation,
    contained_package,
    fallback_package,
    file_entry,
    is_file,
    verification_codes,
)
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
from .spdx_identity import contained_key, identity_comment, origin_comment

NOASSERTION = "NOASSERTION"
DOCUMENT = "SPDXRef-DOCUMENT"
FIRMWARE = "SPDXRef-Firmware"
_ID_CHARS = re.compile(r"[^A-Za-z0-9.]+")


def spdx_id(kind: str, text: str) -> str:
    """``SPDXRef-KIND-readable-hash``: the readable part from ``text``, the hash keeps ids apart."""
    readable = _ID_CHARS.sub("-", text).strip("-")[:80]
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"SPDXRef-{kind}-{readable}-{digest}" if readable else f"SPDXRef-{kind}-{digest}"


def module_id(path: str) -> str:
    return spdx_id("Module", path)


def package_id(package: str) -> str:
    return spdx_id("Package", package)


def source_id(folder: str) -> str:
    return spdx_id("Source", folder)


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
            "loaders found it: each module a file, each dependency edge a relationship whose comment "
            "gives its status and the symbols bound across it.",
        },
    }
    out.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in head.items()))
    manager = firmware_manager(m.licence_source for m in module_files(store, firmware))
    own: dict[str, OwnPackage] = {}
    refs: dict[str, str] = {}
    out.write(',\n "files": ')
    files = JsonList(out)
    identified = by_module(components(store, firmware))
    release, sources = source_statuses(store, firmware)
    notes = {path: source_note(release, row) for path, row in sources.items()}
    for module in module_files(store, firmware):
        for ref in licence_fact(module.licence).refs:
            refs.setdefault(ref, module.licence_source)
        if module.package:
            own.setdefault(module.package, OwnPackage()).add(module, purl(module, manager))
        if is_file(module):
            entry = file_entry(module, module_id(module.path))
            files.add(_annotated(entry, identified.get(module.path), module, notes.get(module.path)))
    files.close()
    inside = [(path, c) for path, found in sorted(identified.items()) for c in found["contains"]]
    for _path, c in inside:
        for ref in licence_fact(c["licence"]).refs:
            refs.setdefault(ref, "identified")
    firmware_code, codes = verification_codes(store.stream("module-sha1s", {"firmware": firmware}))
    out.write(',\n "packages": ')
    packages = JsonList(out)
    packages.add(_firmware_package(header, firmware_code))
    packages.extend(_own_package(package, own[package], codes.get(package)) for package in sorted(own))
    packages.extend(
        _annotated(fallback_package(m, module_id(m.path)), identified.get(m.path), m, notes.get(m.path))
        for m in module_files(store, firmware)
        if not is_file(m)
    )
    packages.extend(contained_package(path, c, component_id(path, c)) for path, c in inside)
    folders = source_folders(sources)
    packages.extend(spdx2_source_package(release, row, source_id(f)) for f, row in folders.items())
    packages.close()
    out.write(',\n "relationships": ')
    relationships = JsonList(out)
    relationships.add(_relationship(DOCUMENT, "DESCRIBES", FIRMWARE))
    relationships.extend(_relationship(FIRMWARE, "CONTAINS", package_id(p)) for p in sorted(own))
    relationships.extend(
        _relationship(package_id(m.package) if m.package else FIRMWARE, "CONTAINS", module_id(m.path))
        for m in module_files(store, firmware)
    )
    relationships.extend(_relationship(module_id(p), "CONTAINS", component_id(p, c)) for p, c in inside)
    relationships.extend(_edges(store, firmware))
    relationships.extend(
        _relationship(module_id(path), "GENERATED_FROM", source_id(row["folder"]))
        for path, row in sorted(sources.items())
        if row["folder"] in folders and row["status"] == "source"
    )
    relationships.close()
    out.write(',\n "hasExtractedLicensingInfos": ')
    infos = JsonList(out)
    infos.extend(_licence_info(ref, source) for ref, source in sorted(refs.items()))
    infos.close()
    out.write("\n}\n")


def component_id(path: str, inside: dict[str, Any]) -> str:
    """The id of a component found inside the module at ``path``."""
    return spdx_id("Component", contained_key(path, inside))


def _annotated(
    entry: dict[str, Any], found: dict[str, Any] | None, module: ModuleFile, source: str | None = None
) -> dict[str, Any]:
    """The module's own identification, whose vendor code it is, and its source status in the
    vendor's source release (docs/sources.md), as annotations of its File (or Package)."""
    notes = [annotation(identity_comment(found["identity"]))] if found and found["identity"] else []
    if module.origin:
        notes.append(annotation(origin_comment(module.origin, module.origin_evidence)))
    if source is not None:
        notes.append(annotation(source))
    if notes:
        entry["annotations"] = notes
    return entry


def _analysed(entry: dict[str, Any], code: str | None, what: str) -> None:
    """``filesAnalyzed`` and the verification code of a package that contains files (SPDX 2.3
    forbids files in a package that says false), over ``what``."""
    entry["filesAnalyzed"] = code is not None
    if code is not None:
        entry["packageVerificationCode"] = {"packageVerificationCodeValue": code}
        entry["comment"] += f"; its verification code covers {what}"


def _firmware_package(header: dict[str, Any], code: str | None) -> dict[str, Any]:
    source = header.get("source") or {}
    entry: dict[str, Any] = {
        "SPDXID": FIRMWARE,
        "name": header["name"],
        "downloadLocation": NOASSERTION,
        "primaryPackagePurpose": "FIRMWARE",
        "licenseConcluded": NOASSERTION,
        "licenseDeclared": NOASSERTION,
        "copyrightText": NOASSERTION,
        "comment": f"linkgraph firmware {header['sha256']}"
        + (f", the root {source['root']} of {source.get('target', '?')}" if source.get("root") else ""),
    }
    _analysed(entry, code, "the ELF files of the firmware this document lists (the files linkgraph reads)")
    return entry


def _own_package(package: str, facts: OwnPackage, code: str | None) -> dict[str, Any]:
    name, version = split_package(package)
    entry: dict[str, Any] = {"SPDXID": package_id(package), "name": name}
    if version:
        entry["versionInfo"] = version
    entry.update(
        {
            "downloadLocation": NOASSERTION,
            "licenseConcluded": NOASSERTION,
            "licenseDeclared": facts.licence_declared(),
            "copyrightText": NOASSERTION,
            "comment": "a package of the firmware's own package data, with the modules it installed",
        }
    )
    _analysed(entry, code, "its ELF files")
    if facts.purl:
        entry["externalRefs"] = [
            {"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": facts.purl}
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
