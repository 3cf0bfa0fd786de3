"""The compliance report's "Source release" part (docs/licences.md, docs/sources.md) on the TL-MR3020
v1 image checked against TP-Link's GPL release (tests/support/source_store.py), in HTML and PDF (the
PDF read back with poppler's ``pdftotext``, as tests/test_compliance_report.py reads it).

* Page 1 (the title block) has one line for the check: the release and the number of each finding;
  without a check, one line saying none was run, and no part.
* The part lists the counts per status and each finding as the named queries give them: the GPL and
  LGPL modules without source, the copyleft programs using libmsglog.so with its symbol and the
  Makefile line of each (read in the unpacked release by the test itself), the release's gaps.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import linkgraph
from support.source_judge import MR3020_RELEASE, unpacked_release
from support.source_store import BUSYBOX, MSGLOG, query

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

NOT_RUN = "No source release was checked for this firmware"
BUSYBOX_LINE = ("apps/busybox-1.01/networking/udhcp/Makefile.in", 26)


class Sections(HTMLParser):
    """The text of each element with an id (nested ones included in their parents)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, str | None]] = []
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "img", "col", "meta", "link"):
            return
        ident = dict(attrs).get("id")
        self.open.append((tag, ident))
        if ident:
            self.text.setdefault(ident, [])

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _tag, ident in self.open:
            if ident:
                self.text[ident].append(data)

    def of(self, ident: str) -> str:
        return " ".join("".join(self.text.get(ident, [])).split())


def sections(html: str) -> Sections:
    parsed = Sections()
    parsed.feed(html)
    parsed.close()
    return parsed


def flat(text: str) -> str:
    """Text without any white space (pdftotext breaks long paths over lines)."""
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def html(mr3020_checked: Path) -> str:
    return linkgraph("report", "--db", str(mr3020_checked), "--format", "html").stdout


@pytest.fixture(scope="module")
def pdf_pages(mr3020_checked: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("sources-pdf") / "compliance.pdf"
    linkgraph("report", "--db", str(mr3020_checked), "--format", "pdf", "-o", str(out))
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f")


def expected_line(db: Path) -> str:
    """The page-1 line, counted from the named queries."""
    missing = query(db, "source-missing")
    programs = {r["program"] for r in query(db, "source-uses-missing")}
    mismatches = query(db, "source-version-mismatch")
    gaps = [g for g in query(db, "source-release-gaps") if not g["present"]]
    assert len(missing) > 1 and len(programs) > 1 and len(gaps) > 1 and not mismatches  # the plurals below
    return (
        f"TL-MR3020_V1_GPL.tar.xz checked: {len(missing)} GPL or LGPL modules without source, "
        f"{len(programs)} copyleft programs use modules with no source, 0 version mismatches, "
        f"{len(gaps)} gaps in what the release needs to be built"
    )


def test_html_part_and_its_page_one_line(html: str, mr3020_checked: Path) -> None:
    found = sections(html)
    assert found.of("source-line") == expected_line(mr3020_checked) + "."
    part = found.of("source-release")
    statuses = Counter(r["status"] for r in query(mr3020_checked, "source-status-map"))
    counts = dict(re.findall(r'<tr data-source-status="([a-z-]+)"><td>[a-z-]+</td><td>(\d+)</td>', html))
    assert counts == {s: str(statuses.get(s, 0)) for s in ("source", "prebuilt", "absent", "not-required")}
    for row in query(mr3020_checked, "source-missing"):
        assert row["module"] in part
    uses = [r for r in query(mr3020_checked, "source-uses-missing") if r["uses"] == MSGLOG]
    assert BUSYBOX in {r["program"] for r in uses}
    for row in uses:
        assert row["symbols"] == ["msglogd"]
        assert f"{row['file']}:{row['line']} {row['text']}" in part
    busybox = next(r for r in uses if r["program"] == BUSYBOX)
    assert (busybox["file"], busybox["line"]) == BUSYBOX_LINE
    # the judge: the release's own Makefile line links libmsglog
    text = (unpacked_release(MR3020_RELEASE) / BUSYBOX_LINE[0]).read_text(errors="replace").splitlines()
    assert text[BUSYBOX_LINE[1] - 1].strip() == busybox["text"] and "-lmsglog" in busybox["text"]
    for gap in query(mr3020_checked, "source-release-gaps"):
        assert " ".join(gap["detail"].split()) in part


def test_pdf_page_one_and_the_libmsglog_finding(pdf_pages: list[str], mr3020_checked: Path) -> None:
    assert flat(expected_line(mr3020_checked)) in flat(pdf_pages[0])
    assert "Source release" in pdf_pages[0]
    body = flat("".join(pdf_pages[1:]))
    part = body[body.index(flat("Copyleft programs using modules with no source")) :]
    for row in query(mr3020_checked, "source-uses-missing"):
        assert flat(f"{row['program']}") in part
        assert flat(f"{row['file']}:{row['line']} {row['text']}") in part
    assert flat("apps/busybox-1.01/networking/udhcp/Makefile.in:26 LIBRARIES+=-lmsglog") in part
    assert flat(MSGLOG) in part and "msglogd" in part


def test_without_a_check_one_line_and_no_part(article_root: Path, tmp_path: Path) -> None:
    db = tmp_path / "graph.lbdb"
    linkgraph("scan", str(article_root), "--db", str(db), "--quiet")
    found = sections(linkgraph("report", "--db", str(db), "--format", "html").stdout)
    assert found.of("source-line").startswith(NOT_RUN)
    assert "source-release" not in found.text  # no part, no link to one
