"""An SPDX 2.3 document's Files and the Packages holding them, checked against the JSON report and
the unpacked files themselves (hashlib, the verification-code algorithm of clause 7.9 written out
here, license-expression for the licence ids): never against linkgraph's own writer code.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

FIRMWARE = "SPDXRef-Firmware"
NOASSERTION = "NOASSERTION"


def _verification_code(sha1s: list[str]) -> str:
    """Clause 7.9.4: the SHA1 of the files' SHA1s, sorted and concatenated."""
    return hashlib.sha1("".join(sorted(sha1s)).encode()).hexdigest()


def _licence_ids(expression: str) -> list[str]:
    from license_expression import get_spdx_licensing

    return list(dict.fromkeys(s.render() for s in get_spdx_licensing().parse(expression).symbols))


def _package_of(entry: dict[str, Any]) -> str:
    return f"{entry['name']} {entry['versionInfo']}" if entry.get("versionInfo") else entry["name"]


def check_files(path: Path, root: Path, report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every module of the report is a File whose SHA1 and SHA256 are hashlib's of its file under
    ``root``, contained exactly once, by the Package of its own package data or else by the
    firmware; the only other Packages are the firmware and those packages, each with the
    verification code of its files (the firmware's: of all of them) and, declared, the licences
    its package data gives its files; licenseInfoInFiles says
    what a ``.modinfo`` fact read from the file and NOASSERTION otherwise; every relationship
    with a linkgraph comment goes from a File to a File or to NOASSERTION. The Files by path."""
    data = json.loads(path.read_text())
    modules = {m["path"]: m for m in report["modules"]}
    files = {f["fileName"].removeprefix("."): f for f in data["files"]}
    assert set(files) == set(modules)
    sha1s: dict[str | None, list[str]] = {}
    for name, entry in files.items():
        content = (root / name.lstrip("/")).read_bytes()
        sha1 = hashlib.sha1(content).hexdigest()
        assert entry["checksums"] == [
            {"algorithm": "SHA1", "checksumValue": sha1},
            {"algorithm": "SHA256", "checksumValue": hashlib.sha256(content).hexdigest()},
        ], name
        sha1s.setdefault(modules[name]["package"], []).append(sha1)
        module = modules[name]
        if module["licence_source"] == "modinfo" and entry["licenseConcluded"] != NOASSERTION:
            assert entry["licenseInfoInFiles"] == _licence_ids(module["licence"]), name
        else:
            assert entry["licenseInfoInFiles"] == [NOASSERTION], name

    packages = {p["SPDXID"]: p for p in data["packages"]}
    own = {_package_of(p): p for i, p in packages.items() if i != FIRMWARE}
    assert set(own) == {m["package"] for m in report["modules"] if m["package"]}
    every = [s for group in sha1s.values() for s in group]
    assert packages[FIRMWARE]["packageVerificationCode"]["packageVerificationCodeValue"] == _verification_code(every)
    for package, entry in own.items():
        assert entry["filesAnalyzed"] is True
        assert entry["packageVerificationCode"]["packageVerificationCodeValue"] == _verification_code(sha1s[package])
        declared = {
            files[m["path"]]["licenseConcluded"]
            for m in report["modules"]
            if m["package"] == package and m["licence_certainty"] == "declared" and m["licence_source"] != "modinfo"
        } - {NOASSERTION}
        if len(declared) <= 1:
            assert entry["licenseDeclared"] == (declared.pop() if declared else NOASSERTION), package
        else:
            assert all(d in entry["licenseDeclared"] for d in declared), package

    ids = {entry["SPDXID"]: name for name, entry in files.items()}
    container: dict[str, str] = {}
    for r in data["relationships"]:
        if r["relationshipType"] == "CONTAINS" and r["relatedSpdxElement"] in ids:
            name = ids[r["relatedSpdxElement"]]
            assert name not in container, name
            container[name] = r["spdxElementId"]
        if r.get("comment", "").startswith("linkgraph "):
            assert r["spdxElementId"] in ids, r
            assert r["relatedSpdxElement"] in ids or r["relatedSpdxElement"] == NOASSERTION, r
    assert set(container) == set(modules)
    for name, holder in container.items():
        package = modules[name]["package"]
        assert holder == (own[package]["SPDXID"] if package else FIRMWARE), name
    return files
