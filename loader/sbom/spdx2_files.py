"""The modules of a firmware as SPDX 2.3 Files, and what the Packages that contain them need of
them: their verification codes and declared licences (docs/sbom.md, "SPDX 2.3").

A module is a File (clause 8) with its SHA1 and SHA256 checksums; one the store has no SHA1 for
(a store written before linkgraph kept it, or a file that could not be read again to be hashed)
cannot be one, since SPDX 2.3 requires a SHA1 of every File, and stays a Package
(``fallback_package``). Both have the same SPDX id, so every relationship reaches the module
either way.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..licences.modinfo import Modinfo
from ..model import Certainty
from ..report.inventory import ModuleFile
from .spdx_facts import created, licence_fact, tool_version
from .spdx_identity import identity_comment

NOASSERTION = "NOASSERTION"
_PURPOSE = {"executable": "APPLICATION", "library": "LIBRARY", "kernel-module": "OTHER", "other-elf": "FILE"}
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SHA1 = re.compile(r"[0-9a-f]{40}")


def is_file(m: ModuleFile) -> bool:
    """Whether the module can be an SPDX 2.3 File: the store holds its SHA1."""
    return m.sha1 is not None and bool(_SHA1.fullmatch(m.sha1))


def _checksums(m: ModuleFile) -> list[dict[str, str]]:
    out = []
    if m.sha1 and _SHA1.fullmatch(m.sha1):
        out.append({"algorithm": "SHA1", "checksumValue": m.sha1})
    if _SHA256.fullmatch(m.sha256):
        out.append({"algorithm": "SHA256", "checksumValue": m.sha256})
    return out


def _licence_comments(m: ModuleFile, note: str) -> str:
    notes = [f"source: {m.licence_source}"]
    if m.licence_certainty:
        notes.append(f"certainty: {m.licence_certainty}")
    if note:
        notes.append(note)
    return "; ".join(notes)


def _described(m: ModuleFile) -> str:
    described = [f"ELF {m.kind}", f"size {m.size}"] + (["statically linked"] if m.static else [])
    if m.soname:
        described.append(f"soname {m.soname}")
    if m.aliases:
        described.append(f"also reached as {' '.join(m.aliases)}")
    if m.package:
        described.append(f"package {m.package}")
    return ", ".join(described)


@functools.lru_cache(maxsize=1024)
def _licence_ids(expression: str) -> tuple[str, ...]:
    """The licences an expression names, each alone (``A WITH B`` stays whole), in its order."""
    from ..licences.spdx import spdx_licensing

    symbols = spdx_licensing().parse(expression, validate=False).symbols
    return tuple(dict.fromkeys(symbol.render() for symbol in symbols))


def info_in_file(m: ModuleFile) -> list[str]:
    """``licenseInfoInFiles``: the licence "actually found in the file" (clause 8.6). Of
    linkgraph's facts only a kernel module's ``.modinfo`` is read from the file itself; a
    package's licence is the package's (``licenseDeclared`` of the Package that contains it)."""
    expression = licence_fact(m.licence).expression
    if m.licence_source == Modinfo.NAME and expression:
        return list(_licence_ids(expression))
    return [NOASSERTION]


def file_entry(m: ModuleFile, id_: str) -> dict[str, Any]:
    """The module as a File: path, checksums, concluded licence and the one found in the file."""
    fact = licence_fact(m.licence)
    return {
        "SPDXID": id_,
        "fileName": "." + m.path,
        "fileTypes": ["BINARY"],
        "checksums": _checksums(m),
        "licenseConcluded": fact.expression or NOASSERTION,
        "licenseInfoInFiles": info_in_file(m),
        "licenseComments": _licence_comments(m, fact.note),
        "copyrightText": NOASSERTION,
        "comment": _described(m),
    }


def fallback_package(m: ModuleFile, id_: str) -> dict[str, Any]:
    """A module with no SHA1 as a Package (any checksum algorithm is allowed there), as linkgraph
    wrote every module before it kept SHA1s."""
    fact = licence_fact(m.licence)
    entry: dict[str, Any] = {
        "SPDXID": id_,
        "name": m.path,
        "packageFileName": "." + m.path,
        "downloadLocation": NOASSERTION,
        "filesAnalyzed": False,
        "primaryPackagePurpose": _PURPOSE.get(m.kind, "OTHER"),
    }
    checksums = _checksums(m)
    if checksums:
        entry["checksums"] = checksums
    expression = fact.expression or NOASSERTION
    entry["licenseConcluded"] = expression
    entry["licenseDeclared"] = expression if m.licence_certainty == Certainty.DECLARED else NOASSERTION
    entry["licenseComments"] = _licence_comments(m, fact.note)
    entry["copyrightText"] = NOASSERTION
    entry["comment"] = _described(m) + "; a package, not a file: the store holds no SHA1 of it"
    return entry


def annotation(comment: str) -> dict[str, Any]:
    """An annotation (clause 12) by linkgraph: what its analysis found of the element."""
    return {"annotationDate": created(), "annotationType": "OTHER", "annotator": f"Tool: linkgraph-{tool_version()}",
            "comment": comment}  # fmt: skip


def contained_package(path: str, inside: dict[str, Any], id_: str) -> dict[str, Any]:
    """A component found inside the module at ``path`` (docs/identify.md) as a Package: its
    version, the licence the identification gives it, its purl and CPE as external references and
    the evidence as an annotation; the module's File CONTAINS it."""
    fact = licence_fact(inside["licence"])
    entry: dict[str, Any] = {"SPDXID": id_, "name": inside["component"]}
    if inside["version"]:
        entry["versionInfo"] = inside["version"]
    entry.update(
        {
            "downloadLocation": NOASSERTION,
            "filesAnalyzed": False,
            "primaryPackagePurpose": "LIBRARY",
            "licenseConcluded": fact.expression or NOASSERTION,
            "licenseDeclared": NOASSERTION,
            "copyrightText": NOASSERTION,
            "comment": f"a copy of {inside['component']} found inside {path}",
        }
    )
    refs = [("PACKAGE-MANAGER", "purl", inside["purl"]), ("SECURITY", "cpe23Type", inside["cpe"])]
    found = [{"referenceCategory": c, "referenceType": t, "referenceLocator": v} for c, t, v in refs if v]
    if found:
        entry["externalRefs"] = found
    entry["annotations"] = [annotation(identity_comment(inside, contained=True))]
    return entry


@dataclass
class OwnPackage:
    """What a package of the firmware's own package data says, gathered from its modules: its purl
    (the first module that gives one) and the licences its data declares for them."""

    purl: str | None = None
    declared: set[str] = field(default_factory=set)

    def add(self, m: ModuleFile, purl: str | None) -> None:
        if self.purl is None:
            self.purl = purl
        expression = licence_fact(m.licence).expression
        if expression and m.licence_certainty == Certainty.DECLARED and m.licence_source != Modinfo.NAME:
            self.declared.add(expression)

    def licence_declared(self) -> str:
        """The licences the package data declares for its files, all of them (``AND``)."""
        if not self.declared:
            return NOASSERTION
        parts = sorted(self.declared)
        if len(parts) == 1:
            return parts[0]
        return " AND ".join(f"({p})" if " " in p else p for p in parts)


def verification_codes(rows: Iterable[tuple[str, str | None]]) -> tuple[str | None, dict[str, str]]:
    """SPDX 2.3's package verification code (clause 7.9: the SHA1 of the files' SHA1s in order,
    concatenated) of the firmware (all its files) and of each package (its files), from
    (sha1, package) rows in SHA1 order: one pass, one running hash per package. None: no file."""
    everything = hashlib.sha1()
    per_package: dict[str, Any] = {}
    count = 0
    for sha1, package in rows:
        if not _SHA1.fullmatch(sha1):
            continue
        count += 1
        everything.update(sha1.encode())
        if package:
            per_package.setdefault(package, hashlib.sha1()).update(sha1.encode())
    return (everything.hexdigest() if count else None), {p: h.hexdigest() for p, h in per_package.items()}
