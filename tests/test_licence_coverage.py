"""Honest coverage and the inventory (docs/licences.md, "Coverage" and "Inventory"), on the stock
D-Link DIR-880L root (uClibc ARM, a static busybox, the proprietary kernel modules ctf, emf, et and
igs beside GPL ones) and on host programs built here.

* ``static``: judged by ``file`` (its own reading of the program headers) for every executable of
  the D-Link root and for programs built with ``gcc -static``, ``-static-pie`` and dynamically.
* Every findings surface states how many modules have no licence fact, lists them under "To review"
  and says no bare "No finding": the JSON report (against the report's own module list), the scan's
  summary, ``linkgraph query licence-summary`` and the findings queries, the compliance report as
  HTML and as PDF (``pdftotext``). The viewer's Licences page: tests/test_viewer_licences.py.
* The viewer marks the static busybox in the tree and says in its Overview that it is statically
  linked, where a dynamic program gets its count of declared dependencies (real Chromium).
* The compliance report's inventory names the static busybox and the proprietary kernel modules;
  the SBOMs mark the static busybox.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.cypher.schema import TABLES
from support.browser import Pages, ViewerServer, q
from support.host_programs import HOST_PROGRAM, copy_with_libraries
from support.vendor_roots import extracted_root

PROPRIETARY_KMODS = {f"/lib/modules/{name}.ko" for name in ("ctf", "emf", "et", "igs")}
BUSYBOX = "/bin/busybox"


@pytest.fixture(scope="module")
def dlink(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root, _sha = extracted_root("dlink_dir880l")
    db = tmp_path_factory.mktemp("coverage") / "dlink.lbdb"
    # without the identification, the stock root as package data alone knows it: most modules
    # without a licence fact and no finding, the case every surface must state plainly
    scan = linkgraph("scan", str(root), "--db", str(db), "--name", "dir880l", "--no-identify")
    assert scan.returncode == 0, scan.stderr
    report = json.loads(linkgraph("report", "--db", str(db)).stdout)
    return {"root": root, "db": db, "scan": scan, "report": report}


def statement(report: dict[str, Any]) -> str:
    """The coverage statement, counted from the report's own modules."""
    modules = report["modules"]
    unknown = sum(1 for m in modules if m["licence"] is None)
    return f"{unknown} of {len(modules)} modules have no licence fact and are listed under To review"


def no_fact(report: dict[str, Any]) -> list[str]:
    return [m["path"] for m in report["modules"] if m["licence"] is None]


def file_says_static(path: Path) -> bool:
    out = subprocess.run(["file", "-b", str(path)], capture_output=True, text=True, check=True).stdout
    return "statically linked" in out or "static-pie linked" in out


# --------------------------------------------------------------------------- static


def test_static_is_what_file_says(dlink: dict[str, Any]) -> None:
    executables = [m for m in dlink["report"]["modules"] if m["kind"] == "executable"]
    assert len(executables) > 80
    judged = {m["path"]: file_says_static(dlink["root"] / m["path"].lstrip("/")) for m in executables}
    assert {m["path"]: m["static"] for m in executables} == judged
    assert [p for p, s in judged.items() if s] == [BUSYBOX]
    assert all(m["static"] is False for m in dlink["report"]["modules"] if m["kind"] != "executable")


def test_static_pie_static_and_dynamic_host_programs(tmp_path: Path) -> None:
    source = tmp_path / "hello.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n')
    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    for name, flags in (("static", ["-static"]), ("static-pie", ["-static-pie"]), ("dynamic", []), ("pie", ["-pie"])):
        subprocess.run(["gcc", "-O1", *flags, "-o", str(root / "bin" / name), str(source)], check=True)
    report_db = tmp_path / "db"
    linkgraph("scan", str(root), "--db", str(report_db), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(report_db)).stdout)
    found = {m["path"]: m["static"] for m in report["modules"] if m["path"].startswith("/bin/")}
    assert found == {
        f"/bin/{n}": file_says_static(root / "bin" / n) for n in ("static", "static-pie", "dynamic", "pie")
    }
    assert found == {"/bin/static": True, "/bin/static-pie": True, "/bin/dynamic": False, "/bin/pie": False}


def test_a_store_written_before_static_still_reads(dlink: dict[str, Any], tmp_path: Path) -> None:
    """A database of an older linkgraph has no static column (nor the later ones); scanning another
    firmware into it adds them, empty for the modules already there: they read as static null, and
    nothing else moves."""
    import jsonschema
    import ladybug
    from linkgraph.viewer import create_app

    db = tmp_path / "old.lbdb"
    shutil.copy(dlink["db"], db)
    database = ladybug.Database(str(db))
    connection = ladybug.Connection(database)
    columns = TABLES["Module"].column_names  # an older store has none of the columns from static on
    for column in columns[columns.index("static") :]:
        connection.execute(f"ALTER TABLE Module DROP {column}")
    connection.close()
    database.close()
    copy_with_libraries(HOST_PROGRAM, tmp_path / "host")
    linkgraph("scan", str(tmp_path / "host"), "--db", str(db), "--name", "host", "--quiet")
    report = json.loads(linkgraph("report", "--db", str(db), "--firmware", "dir880l").stdout)
    jsonschema.validate(report, json.loads((Path(__file__).parents[1] / "docs" / "report.schema.json").read_text()))
    assert {m["static"] for m in report["modules"]} == {None}
    assert {m["static"] for m in report["licence_coverage"]["to_review"]} == {None}
    assert {m["identity"] is None for m in report["modules"]} == {True}
    fresh = dlink["report"]
    assert report["licence_coverage"]["statement"] == fresh["licence_coverage"]["statement"]
    later = ("static", "identity", "contains", "hardening")  # kept since: empty in the older store
    strip = [{k: v for k, v in m.items() if k not in later} for m in report["modules"]]
    assert strip == [{k: v for k, v in m.items() if k not in later} for m in fresh["modules"]]
    client = create_app({"LINKGRAPH_DB": str(db), "TESTING": True}).test_client()
    fw = next(f["id"] for f in client.get("/api/firmware").get_json() if f["name"] == "dir880l")
    tree = client.get(f"/api/firmware/{fw}/tree").get_json()
    assert not any(e.get("static") for e in tree["entries"]) and len(tree["entries"]) > 147


# --------------------------------------------------------------------------- the JSON report and the CLI


def test_json_report_states_the_coverage(dlink: dict[str, Any]) -> None:
    report = dlink["report"]
    coverage = report["licence_coverage"]
    assert coverage["statement"] == statement(report)
    assert coverage["statement"].startswith("104 of 147 modules")  # the stock root as shipped
    assert [m["path"] for m in coverage["to_review"]] == no_fact(report)
    assert coverage["without_licence_fact"] == 104 and coverage["unclassified"] == 0 and coverage["modules"] == 147
    ufsd = next(m for m in coverage["to_review"] if m["path"] == "/lib/modules/ufsd.ko")
    assert "'Commercial product' is not an SPDX expression" in ufsd["licence_source"]
    kmods = {m["path"]: m for m in report["modules"] if m["path"] in PROPRIETARY_KMODS}
    proprietary = ("LicenseRef-Proprietary", "modinfo")
    assert {p: (m["licence"], m["licence_source"]) for p, m in kmods.items()} == dict.fromkeys(kmods, proprietary)
    assert set(kmods) == PROPRIETARY_KMODS


def test_scan_summary_states_the_coverage(dlink: dict[str, Any]) -> None:
    err = dlink["scan"].stderr
    assert f"{statement(dlink['report'])}." in err
    assert re.search(r"executables statically linked\s*│\s*1\s*│", err), err
    listed = re.findall(r"^  (/\S+)  \(", err, re.M)
    assert listed == no_fact(dlink["report"])[:30]
    assert "… 74 more: `linkgraph query licence-to-review` lists them all" in err


def test_query_output_states_the_coverage(dlink: dict[str, Any]) -> None:
    db, report = str(dlink["db"]), dlink["report"]
    summary = linkgraph("query", "licence-summary", "--db", db).stdout
    assert f"{statement(report)}.\nTo review:\n" in summary
    assert re.findall(r"^  (/\S+)  \(", summary, re.M) == no_fact(report)
    empty = linkgraph("query", "licence-gpl-uses", "--db", db)
    assert empty.stdout.startswith(f"No finding among the modules whose licence is known; {statement(report)}.")
    assert "(no rows)" not in empty.stdout
    as_json = linkgraph("query", "licence-gpl-uses", "--db", db, "--json")
    assert json.loads(as_json.stdout) == [] and f"{statement(report)}." in as_json.stderr
    review = json.loads(linkgraph("query", "licence-to-review", "--db", db, "--json").stdout)
    assert [r["path"] for r in review] == no_fact(report)


def test_query_list_gives_each_finding_its_letter() -> None:
    listing = dict(line.split(None, 1) for line in linkgraph("query", "--list").stdout.splitlines())
    letters = {name: re.match(r"\((\w)\)", text) for name, text in listing.items()}
    found = {name: m.group(1) for name, m in letters.items() if m}
    assert found == {
        "licence-gpl-used-by": "a",
        "licence-gpl-uses": "b",
        "licence-declared-only": "c",
        "licence-lgpl-used": "d",
        "kernel-gpl-only-used": "e",
        "licence-gpl-contained": "f",
        "licence-lgpl-static": "g",
    }
    assert "no letter" in listing["licence-summary"]


# --------------------------------------------------------------------------- the compliance report


class _Text(HTMLParser):
    """The text of each section (by id) of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.sections: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            self.section = dict(attrs).get("id")

    def handle_data(self, data: str) -> None:
        if self.section:
            self.sections.setdefault(self.section, []).append(data)

    def text(self, section: str) -> str:
        return " ".join(" ".join(self.sections.get(section, [])).split())


def test_html_report_states_the_coverage_and_the_inventory(dlink: dict[str, Any]) -> None:
    html = linkgraph("report", "--db", str(dlink["db"]), "--format", "html").stdout
    page = _Text()
    page.feed(html)
    said = statement(dlink["report"])
    assert f"{said}." in page.text("summary")
    review = page.text("to-review")
    assert review.startswith(f"To review {said}.")
    positions = [review.find(f" {p} ") for p in no_fact(dlink["report"])]
    assert -1 not in positions and positions == sorted(positions)
    for letter, section in (("a", "gpl-used-by"), ("b", "gpl-uses"), ("c", "declared-only")):
        assert f"({letter}) No finding among the modules whose licence is known; {said}." in page.text(section)
    assert "(e) No finding (the kernel's own rule" in page.text("kernel-gpl-only")
    assert "No finding of this kind" not in html
    inventory = page.text("inventory")
    assert f"{BUSYBOX} statically linked executable GPL-2.0-only" in inventory
    heading = (
        f"incompatible {sum(1 for m in dlink['report']['modules'] if m['licence_class'] == 'incompatible')} modules"
    )
    incompatible = inventory[inventory.index(heading) : inventory.index("unknown 104 modules")]
    for kmod in sorted(PROPRIETARY_KMODS):
        assert f"{kmod} kernel-module LicenseRef-Proprietary declared modinfo" in incompatible, kmod
    assert re.search(
        r"/lib/modules/nf_nat_sip\.ko kernel-module GPL-2\.0-only declared modinfo — 13 from nf_conntrack_sip",
        inventory,
    )


def test_pdf_report_states_the_coverage_and_the_inventory(dlink: dict[str, Any], tmp_path: Path) -> None:
    pdf = tmp_path / "dlink.pdf"
    linkgraph("report", "--db", str(dlink["db"]), "--format", "pdf", "-o", str(pdf))
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = " ".join(text.split())
    said = statement(dlink["report"])
    assert flat.count(f"{said}.") >= 5  # the summary, To review, (a), (b), (c)
    assert "To review" in flat and "Inventory: every module by licence class" in flat
    assert all(p in flat for p in no_fact(dlink["report"]) if len(p) < 40)  # long ones wrap in the table
    assert re.search(r"/bin/busybox\s+statically\s+linked", text)
    for kmod in sorted(PROPRIETARY_KMODS):
        assert kmod in flat, kmod


# --------------------------------------------------------------------------- the SBOMs


def test_sboms_mark_the_static_busybox(dlink: dict[str, Any]) -> None:
    db = str(dlink["db"])
    cdx = json.loads(linkgraph("report", "--db", db, "--format", "cyclonedx-json").stdout)
    marked = [
        c["bom-ref"]
        for c in cdx["components"]
        if {"name": "linkgraph:static", "value": "true"} in c.get("properties", [])
    ]
    assert marked == [BUSYBOX]
    spdx = json.loads(linkgraph("report", "--db", db, "--format", "spdx-json").stdout)
    static = [f["fileName"] for f in spdx["files"] if "statically linked" in f.get("comment", "")]
    assert static == [f".{BUSYBOX}"]


# --------------------------------------------------------------------------- the viewer


def test_viewer_marks_the_static_busybox(dlink: dict[str, Any], pages: Pages, tmp_path: Path) -> None:
    with ViewerServer(["--db", str(dlink["db"])], tmp_path) as server:
        fw = server.firmware_id("dir880l")
        page, watch = pages.open(server, f"/fw/{fw}/?path={q(BUSYBOX)}")
        page.wait_for_selector("#panel[data-state='ready']")
        badges = page.eval_on_selector_all(
            "#tree a.entry .static-badge", "bs => bs.map(b => b.closest('a').dataset.path)"
        )
        static = [m["path"] for m in dlink["report"]["modules"] if m["static"]]
        assert badges == static == [BUSYBOX]  # the file itself; its symlinks show it as their target
        summary = " ".join(page.inner_text("#tabpanel-overview p.summary").split())
        assert summary.startswith("static Statically linked: no dynamic linker runs before it"), summary
        assert "declared dependenc" not in summary
        page, watch2 = pages.open(server, f"/fw/{fw}/?path={q('/sbin/httpd')}")
        page.wait_for_selector("#panel[data-state='ready']")
        assert "declared dependenc" in page.inner_text("#tabpanel-overview p.summary")
        assert page.query_selector("#tabpanel-overview .static-badge") is None
        watch.assert_clean()
        watch2.assert_clean()
