"""``linkgraph diff`` on two real versions of one device: the LEDE 17.01.4 and Freifunk Ulm 0.6.5
images of the TP-Link TL-WR841N v11 (musl against uClibc, other packages and licences).

Every row of the diff is checked against the two firmware's JSON reports, made independently by
``linkgraph report`` (tests/support/diff_expected.py applies docs/diff.md's rules to them), and
each file hash against the unpacked files themselves; both stores give the same diff."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, linkgraph
from support import diff_expected as expected
from support.images import FFULM, LEDE, unpacked_root

pytestmark = pytest.mark.slow
SCHEMA = json.loads((REPO / "docs" / "diff.schema.json").read_text())
OLD, NEW = "diff-lede-17.01.4", "diff-ffulm-0.6.5"


@dataclass
class Version:
    report: dict[str, Any]
    root: Path

    def sha256(self, path: str) -> str:
        return hashlib.sha256((self.root / path.lstrip("/")).read_bytes()).hexdigest()


@dataclass
class Compared:
    old: Version
    new: Version
    diff: dict[str, Any]
    db: Path


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Compared:
    tmp = tmp_path_factory.mktemp("diff-images")
    db = tmp / "both.lbdb"
    versions = []
    for image, name in ((LEDE, OLD), (FFULM, NEW)):
        assert image.is_file(), f"{image} is missing: the shared firmware folder is part of the workplace"
        work = tmp / name
        linkgraph("scan", str(image), "--db", str(db), "--name", name, "--workdir", str(work), "--quiet")
        report = json.loads(linkgraph("report", "--db", str(db), "--firmware", name).stdout)
        versions.append(Version(report, unpacked_root(work)))
    proc = linkgraph("diff", OLD, NEW, "--db", str(db), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    diff = json.loads(proc.stdout)
    jsonschema.validate(diff, SCHEMA)
    return Compared(versions[0], versions[1], diff, db)


def test_modules_added_removed_and_changed(compared: Compared) -> None:
    old, new = compared.old, compared.new
    want = expected.modules(old.report, new.report, old.sha256, new.sha256)
    got = expected.module_rows(compared.diff["modules"])
    for part in ("added", "removed", "changed"):
        assert got[part] == want[part], part
    # the two images share most programs by path and differ in their C library
    renamed = expected.matching(old.report, new.report)
    assert compared.diff["matched"] == {
        "by_path": sum(1 for o, n in renamed.items() if o == n),
        "by_soname": sum(1 for o, n in renamed.items() if o != n),
    }
    assert want["added"] and want["removed"] and want["changed"]


def test_dependency_edges_added_removed_and_changed(compared: Compared) -> None:
    want = expected.edges(compared.old.report, compared.new.report)
    got = expected.edge_rows(compared.diff["dependencies"])
    for part in ("added", "removed", "changed"):
        assert got[part] == want[part], part
    assert want["added"] and want["removed"] and want["changed"]


def test_unresolved_and_duplicates_new_and_gone(compared: Compared) -> None:
    old, new = compared.old.report, compared.new.report
    assert expected.unresolved_rows(compared.diff["unresolved"]) == expected.unresolved(old, new)
    assert expected.duplicate_rows(compared.diff["duplicates"]) == expected.duplicates(old, new)


def test_licence_findings_new_and_gone(compared: Compared) -> None:
    want = expected.findings(compared.old.report, compared.new.report)
    assert expected.finding_rows(compared.diff["licence_findings"]) == want
    assert any(rows for part in want.values() for rows in part.values())


def test_the_summary_counts_the_rows(compared: Compared) -> None:
    diff = compared.diff
    for part in ("modules", "dependencies", "unresolved", "duplicates"):
        assert diff["summary"][part] == {w: len(rows) for w, rows in diff[part].items()}
    for kind, part in diff["licence_findings"].items():
        assert diff["summary"]["licence_findings"][kind] == {w: len(rows) for w, rows in part.items()}


def test_both_stores_give_the_same_diff_of_the_images(
    compared: Compared, neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    for name in (OLD, NEW):
        pushed = linkgraph(
            "push", "--db", str(compared.db), "--neo4j", neo4j_server.uri, "--firmware", name, env=neo4j_env
        )
        assert pushed.returncode == 0, pushed.stderr
    proc = linkgraph("diff", OLD, NEW, "--neo4j", neo4j_server.uri, "--format", "json", env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == compared.diff
