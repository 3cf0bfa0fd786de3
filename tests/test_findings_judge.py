"""Licence finding (a) on every root and image of the shared firmware folder and on the host root, against
a judge of our own (tests/support/findings_judge.py: plain Python over the report's link maps and
bindings and the root's ELF files, per program; issue 26).

Each target is scanned with a licence override file chosen from its files alone (:func:`gpl_overrides`):
the three libraries most often named in ``DT_NEEDED`` (the C library and the loader left out) are
GPL-2.0-only, every other module proprietary. The firmware's own facts would leave (a) nearly empty (LEDE's
opkg data leaves six modules without a fact, and they use no GPL code); this way every module can start
or carry a path, and paths of two hops and more exist in every target (:data:`MIN_ROWS`,
:data:`MIN_MULTI_HOP`: the comparison cannot pass on empty answers), but for the Hi-Link root, whose
paths of several hops all ran through uClibc's reference to the program's ``main``, an upcall and
no use (issue 37): its seven rows of one hop remain (:data:`FEWER`).

Then the judge's rows must be exactly those of the ``licence-gpl-used-by`` query on LadybugDB and on a
real Neo4j server, of the JSON report's ``licence_findings`` and of the viewer's ``/licences`` API.

The TP-Link MR3020 image is left out: linkgraph finds no root filesystem in it (its squashfs uses
TP-Link's LZMA variant). The host root is the helper's root of 300 programs sampled evenly from
/usr/bin, with their closure (the whole /usr/bin gives a report of 650 MB).
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from elftools.common.exceptions import ELFError
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile
from support import hostroot
from support.findings_judge import Judge, Row, differences, query_rows, rows_of
from support.images import FFULM, LEDE, unpacked_root
from support.vendor_roots import VENDOR_ROOTS, extracted_root

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

GPL_LIBRARIES = 3
HOST_SAMPLE = 300
MIN_ROWS, MIN_MULTI_HOP = 10, 2
FEWER = {"hilink_hlk-rm04": (5, 0)}  # (rows, rows of several hops) where MIN_ROWS, MIN_MULTI_HOP are not reached
IMAGES = {"lede": LEDE, "ffulm": FFULM}
TARGETS = [*VENDOR_ROOTS, *IMAGES, "host"]
# the C library and the loader (with glibc's and uClibc's parts of the C library), never chosen as GPL
C_LIBRARY = re.compile(
    r"^(ld-|ld\.so|ld64\.so|libc\.so|libc-|libuClibc|libpthread|libdl\.|libm\.so|libm-|librt\.|libgcc_s|libutil\.|"
    r"libcrypt\.so|libresolv\.|libnsl\.)"
)


def needed_names(root: Path) -> collections.Counter[str]:
    """How many ELF files of the root (symlinks not followed) name each DT_NEEDED name."""
    counts: collections.Counter[str] = collections.Counter()
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                with open(path, "rb") as fh:
                    if fh.read(4) != b"\x7fELF":
                        continue
                    fh.seek(0)
                    for segment in ELFFile(fh).iter_segments():
                        if isinstance(segment, DynamicSegment):
                            counts.update({t.needed for t in segment.iter_tags("DT_NEEDED")})
            except (OSError, ELFError, ValueError, AssertionError):
                continue
    return counts


def gpl_overrides(root: Path, dest: Path) -> tuple[Path, list[str]]:
    """The override file: the most often needed libraries GPL-2.0-only, every other module proprietary."""
    ranked = [
        n for n, _ in sorted(needed_names(root).items(), key=lambda kv: (-kv[1], kv[0])) if not C_LIBRARY.match(n)
    ]
    chosen = ranked[:GPL_LIBRARIES]
    lines = [f"{json.dumps(n)}: GPL-2.0-only" for n in chosen] + ['"*": LicenseRef-Proprietary']
    dest.write_text("\n".join(lines) + "\n")
    return dest, chosen


@dataclass
class Judged:
    """One target scanned with its overrides, the judge's rows and the report's findings."""

    name: str
    source: Path  # what linkgraph scans: a root folder or an image
    root: Path  # the root folder the judge reads
    overrides: Path
    gpl: list[str]
    db: Path
    findings: dict[str, Any] | None  # the report's licence_findings
    rows: set[Row]
    seconds: float  # the judge's time
    counts: dict[str, int] = field(default_factory=dict)
    programs: int = 0
    loads: dict[str, frozenset[str]] = field(default_factory=dict)  # each link map's executable: its objects

    def figures(self) -> str:
        hops = collections.Counter(len(r[2]) - 1 for r in self.rows)
        return (
            f"{self.name}: {len(self.rows)} rows (by hops {dict(sorted(hops.items()))}) "
            f"over {self.programs} link maps, "
            f"judge {self.seconds:.2f} s; GPL: {', '.join(self.gpl)}; "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        )


def _target_root(name: str, base: Path) -> tuple[Path, Path]:
    """(what to scan, the root folder the judge reads)."""
    if name in VENDOR_ROOTS:
        root, _sha = extracted_root(name)
        return root, root
    if name in IMAGES:
        image = IMAGES[name]
        assert image.is_file(), f"{image} is missing: the shared firmware folder is part of the workplace"
        workdir = base / "unpacked"
        linkgraph("scan", str(image), "--db", str(base / "unpack.lbdb"), "--workdir", str(workdir), "--quiet")
        return image, unpacked_root(workdir)
    root = hostroot.cached_host_root(limit=HOST_SAMPLE)
    return root, root


@pytest.fixture(scope="session", params=TARGETS)
def judged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Judged:
    name: str = request.param
    base = tmp_path_factory.mktemp(f"judge-{name}")
    source, root = _target_root(name, base)
    overrides, gpl = gpl_overrides(root, base / "gpl.yaml")
    db = base / "fw.lbdb"
    linkgraph("scan", str(source), "--db", str(db), "--licences", str(overrides), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)
    started = time.monotonic()
    judge = Judge(report, root)
    rows = judge.rows()
    seconds = time.monotonic() - started
    return Judged(
        name, source, root, overrides, gpl, db, report.get("licence_findings"), rows, seconds,
        dict(judge.counts), len(report["link_maps"]),
        {lm["executable"]: frozenset(lm["objects"]) for lm in report["link_maps"]},
    )  # fmt: skip


def assert_same(judged: Judged, got: set[Row], what: str) -> None:
    """The product's rows are the judge's (on a difference, which rows and programs differ)."""
    difference = differences(judged.name, judged.rows, got, what)
    if difference:
        raise AssertionError(difference)


def test_the_judge_finds_paths_of_several_hops(judged: Judged) -> None:
    print(judged.figures())
    assert len(judged.gpl) == GPL_LIBRARIES
    least, multi_hop = FEWER.get(judged.name, (MIN_ROWS, MIN_MULTI_HOP))
    assert len(judged.rows) >= least, judged.figures()
    assert sum(1 for r in judged.rows if len(r[2]) > 2) >= multi_hop, judged.figures()
    assert all(r[4] for r in judged.rows) and all(r[0] == r[2][0] and r[1] == r[2][-1] for r in judged.rows)


def test_no_hop_runs_into_a_program_that_loads_its_source(judged: Judged) -> None:
    """Every row of the report, hop by hop against the link maps: no hop from X ends at a program
    whose link map loads X (an upcall, such as libc calling the program's main, is no use)."""
    if judged.findings is None:
        pytest.fail(f"{judged.name}: the JSON report has no licence_findings")
    for _module, _gpl, hops, _statuses, _programs in rows_of(judged.findings["gpl_used_by"]):
        back = [(a, b) for a, b in itertools.pairwise(hops) if a in judged.loads.get(b, ())]
        assert not back, f"{judged.name}: {' -> '.join(hops)} calls back into {back}"


def test_the_query_on_ladybug(judged: Judged) -> None:
    proc = linkgraph("query", "licence-gpl-used-by", "--db", str(judged.db), "--json")
    assert proc.returncode == 0, proc.stderr
    assert_same(judged, query_rows(json.loads(proc.stdout)), "the query on LadybugDB")


def test_the_query_on_neo4j(judged: Judged, neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    server = ["--neo4j", neo4j_server.uri]
    name = f"judge-{judged.name}"
    scan = linkgraph(
        "scan", str(judged.source), *server, "--name", name, "--licences", str(judged.overrides), "--quiet",
        env=neo4j_env,
    )  # fmt: skip
    assert scan.returncode in (0, 1), scan.stderr
    proc = linkgraph("query", "licence-gpl-used-by", *server, "--firmware", name, "--json", env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert_same(judged, query_rows(json.loads(proc.stdout)), "the query on Neo4j")


def test_the_json_report(judged: Judged) -> None:
    if judged.findings is None:
        pytest.fail(f"{judged.name}: the JSON report has no licence_findings")
    assert_same(judged, rows_of(judged.findings["gpl_used_by"]), "the JSON report")


def test_the_viewer_api(judged: Judged) -> None:
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(judged.db), "TESTING": True}).test_client()
    listing = client.get("/api/firmware").get_json()
    assert len(listing) == 1, listing
    answer = client.get(f"/api/firmware/{listing[0]['id']}/licences")
    assert answer.status_code == 200
    assert_same(judged, rows_of(answer.get_json()["gpl_used_by"]), "the viewer's API")
