"""The JSON report written as it is read: the document is exactly what ``json.dumps(indent=1)``
gives for its content, ``--format jsonl`` holds the same entries one per line, ``--sections``
chooses parts, and a report written to a file appears only when complete."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, linkgraph
from support.host_programs import HOST_PROGRAM, copy_with_libraries

SECTIONS = [
    "modules",
    "dependencies",
    "dlopen",
    "link_maps",
    "bindings",
    "unresolved",
    "duplicates",
    "problems",
    "kernel_links",
    "licence_findings",
    "source_check",
]
TYPES = ["module", "dependency", "dlopen", "link_map", "binding", "unresolved", "duplicate", "problem", "kernel_link"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("stream")
    root = base / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    copy_with_libraries("/usr/bin/curl", root)  # two link maps: bindings shared between them
    db = base / "graph.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet")
    return db


def test_the_streamed_document_is_what_json_dumps_gives(db: Path) -> None:
    text = linkgraph("report", "--db", str(db)).stdout
    report = json.loads(text)
    assert text == json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    jsonschema.validate(report, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    assert list(report) == ["schema", "firmware", "modules", "licence_coverage", *SECTIONS[1:]]
    assert set(report["licence_findings"]) >= {"gpl_used_by", "summary"}
    executables = {b["executable"] for b in report["bindings"]}
    assert len(executables) >= 2 and len(report["bindings"]) > 1000
    keys = [(b["executable"], b["module"], b["symbol"], b["version"] or "", b["provider"]) for b in report["bindings"]]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_jsonl_holds_the_same_entries(db: Path) -> None:
    report = json.loads(linkgraph("report", "--db", str(db)).stdout)
    lines = linkgraph("report", "--db", str(db), "--format", "jsonl").stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert records[0] == {"type": "report", "schema": "linkgraph-report/1", "firmware": report["firmware"]}
    for section, kind in zip(SECTIONS[:-2], TYPES, strict=True):
        entries = [{k: v for k, v in r.items() if k != "type"} for r in records[1:] if r["type"] == kind]
        assert entries == report[section], section
    for one in ("licence_coverage", "licence_findings", "source_check"):  # one object each, not a list
        found = [{k: v for k, v in r.items() if k != "type"} for r in records if r["type"] == one]
        assert found == [report[one]], one
    assert len(records) == 4 + sum(len(report[s]) for s in SECTIONS[:-2])


def test_sections_choose_the_parts(db: Path, tmp_path: Path) -> None:
    full = json.loads(linkgraph("report", "--db", str(db)).stdout)
    out = tmp_path / "part.json"
    linkgraph("report", "--db", str(db), "--sections", "modules,dependencies", "-o", str(out))
    part = json.loads(out.read_text())
    assert list(part) == ["schema", "firmware", "modules", "dependencies"]
    assert part["modules"] == full["modules"] and part["dependencies"] == full["dependencies"]
    assert not (tmp_path / "part.json.partial").exists()
    lines = linkgraph("report", "--db", str(db), "--format", "jsonl", "--sections", "problems,link_maps").stdout
    assert {json.loads(line)["type"] for line in lines.splitlines()} <= {"report", "link_map", "problem"}
    bad = linkgraph("report", "--db", str(db), "--sections", "modules,symbols", check=False)
    assert bad.returncode == 2 and "symbols" in bad.stderr and "choose from" in bad.stderr


def test_module_files_are_the_reports_modules_with_their_hashes(db: Path) -> None:
    """``module_files`` (what the SBOMs and diff describe modules by) lists the report's modules,
    with the sha256 and sha1 of each file (one read in the scan) as hashlib gives them."""
    import hashlib

    from linkgraph.loader.report.inventory import module_files
    from linkgraph.loader.store.base import open_store

    report = json.loads(linkgraph("report", "--db", str(db), "--sections", "modules").stdout)
    with open_store(db=str(db), read_only=True) as store:
        files = list(module_files(store, store.resolve_firmware(None)))
    assert [f.path for f in files] == [m["path"] for m in report["modules"]]
    assert [f.licence for f in files] == [m["licence"] for m in report["modules"]]
    assert len(files) > 2
    for f in files:
        data = (db.parent / "root" / f.path.lstrip("/")).read_bytes()
        assert f.sha256 == hashlib.sha256(data).hexdigest(), f.path
        assert f.sha1 == hashlib.sha1(data).hexdigest(), f.path
        assert f.size == len(data)


@pytest.mark.parametrize("workers", [1, 2], ids=["hashed-by-a-child", "hashed-in-workers"])
def test_the_scan_reads_each_files_sha256_and_sha1(db: Path, workers: int) -> None:
    """Both ways the scan hashes (a child process beside the link maps with one worker, the worker
    processes with several) give each module the sha256 and sha1 hashlib gives its file."""
    import hashlib

    from linkgraph.loader.scan.root import scan_root

    root = db.parent / "root"
    modules = scan_root(str(root), workers=workers).modules
    assert len(modules) > 2
    for m in modules:
        data = (root / m.path.lstrip("/")).read_bytes()
        assert (m.facts.sha256, m.facts.sha1) == (hashlib.sha256(data).hexdigest(), hashlib.sha1(data).hexdigest())


def test_hard_links_and_many_files_are_hashed_by_the_child(tmp_path: Path) -> None:
    """The child gets the paths as they are parsed and answers for every path in order: each
    module's digests are hashlib's over its own file. A file under several names (hard links) is
    one module, under the name the walk meets first, the others its aliases."""
    import hashlib
    import os
    import shutil

    from linkgraph.loader.scan.root import scan_root

    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    for name in ("true", "false", "sleep", "echo", "cat"):
        shutil.copy(f"/bin/{name}", root / "bin" / name)
    for i in range(40):  # busybox-style applets: one file under many names
        os.link(root / "bin" / "true", root / "bin" / f"applet{i}")
    modules = scan_root(str(root), workers=1).modules
    assert len(modules) == 5
    (applets,) = [m for m in modules if m.aliases]
    assert applets.path == "/bin/applet0"  # sorted: applet0 .. applet9, cat, echo, false, sleep, true
    assert sorted(applets.aliases) == sorted([f"/bin/applet{i}" for i in range(1, 40)] + ["/bin/true"])
    for m in modules:
        data = (root / m.path.lstrip("/")).read_bytes()
        assert (m.facts.sha256, m.facts.sha1) == (hashlib.sha256(data).hexdigest(), hashlib.sha1(data).hexdigest())
