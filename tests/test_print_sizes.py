"""Printed output for people: the A4 diagram PDF and the compliance report's PDF of two real roots
(D-Link DIR-880L, uClibc; the Freifunk image), measured with poppler-utils (support/pdf_measure).

* No word of either PDF is smaller than 8 pt: every word's box (``pdftotext -bbox``) is at least as
  tall as the same fonts set at 8 pt by WeasyPrint, and no other font is used.
* A diagram that fits one page at that size fills it (the share of the printable area its drawing
  covers is printed, and one of its sides spans the page); one that does not is split over several
  pages, and every label of the drawing is on one of them.
* A finding's diagram too large for a landscape page at 8 pt, however Graphviz draws it (a program
  using 60 GPL libraries, built here), is printed in parts on pages of its own, each captioned with
  its place, and every GPL library of the finding's paths (the named query's rows) is on them.
* The report opens with the licence classes and the findings with their paths (the named queries'
  rows, page 1-2), keeps the licence-class table on one page, and has the (d) rows only in the
  appendix.
"""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from conftest import linkgraph
from linkgraph.viewer.print_sheets import MARGIN_MM, MIN_TEXT_PT
from support import pdf_measure as pm
from support.fixture_root import install_host_loader
from support.strace_oracle import extracted_image
from support.vendor_roots import extracted_root

SVG = "{http://www.w3.org/2000/svg}"
A4 = {(595.28, 841.89), (841.89, 595.28)}
# (root, program): a drawing too wide for one page, and small ones
DIAGRAMS = [("dlink", "/usr/bin/minidlna"), ("dlink", "/usr/sbin/email"), ("freifunk", "/bin/busybox")]
WIDE_LIBRARIES = 60
CLASS_NAMES = ["GPL", "LGPL / linking exception", "permissive", "incompatible", "unknown"]


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """D-Link DIR-880L and the Freifunk image, scanned once."""
    base = tmp_path_factory.mktemp("print")
    dbs = {}
    for name, root in (("dlink", extracted_root("dlink_dir880l")[0]), ("freifunk", extracted_image("ffulm-0.6.5-")[0])):
        dbs[name] = base / f"{name}.lbdb"
        linkgraph("scan", str(root), "--db", str(dbs[name]), "--quiet")
    return dbs


@pytest.fixture(scope="module")
def wide_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A proprietary program using ``WIDE_LIBRARIES`` GPL libraries, one symbol each: finding (a) with
    that many paths, scanned with those licences."""
    base = tmp_path_factory.mktemp("wide")
    build, root = base / "build", base / "root"
    for folder in (build, root / "lib", root / "usr" / "bin"):
        folder.mkdir(parents=True)
    libraries = [f"libgplcomponent{i:02d}.so" for i in range(WIDE_LIBRARIES)]
    licences = ["/usr/bin/vendord: LicenseRef-Proprietary"]
    for i, library in enumerate(libraries):
        (build / f"l{i}.c").write_text(f"int component{i}_run(void) {{ return {i}; }}\n")
        gcc = ["gcc", "-shared", "-fPIC", "-o", str(root / "lib" / library), str(build / f"l{i}.c")]
        subprocess.run([*gcc, f"-Wl,-soname,{library}"], check=True, timeout=120)
        licences.append(f"/lib/{library}: GPL-2.0-only")
    calls = " + ".join(f"component{i}_run()" for i in range(WIDE_LIBRARIES))
    declarations = "".join(f"int component{i}_run(void);\n" for i in range(WIDE_LIBRARIES))
    (build / "main.c").write_text(f"{declarations}int main(void) {{ return {calls}; }}\n")
    program = root / "usr" / "bin" / "vendord"
    links = [f"-l:{library}" for library in libraries]
    subprocess.run(
        ["gcc", "-o", str(program), str(build / "main.c"), f"-L{root / 'lib'}", *links], check=True, timeout=120
    )
    install_host_loader(root, program)
    (base / "licences.yaml").write_text("\n".join(licences) + "\n")
    db = base / "wide.lbdb"
    linkgraph(
        "scan", str(root), "--db", str(db), "--quiet", "--licences", str(base / "licences.yaml"), "--name", "wide"
    )
    return db


@pytest.fixture(scope="module")
def eight_pt(tmp_path_factory: pytest.TempPathFactory) -> tuple[float, set[str]]:
    return pm.reference_height(MIN_TEXT_PT, tmp_path_factory.mktemp("calibration"))


def assert_no_text_below_8_pt(pdf: Path, eight_pt: tuple[float, set[str]]) -> list[pm.Word]:
    height, calibrated = eight_pt
    assert pm.fonts(pdf) <= calibrated, (pm.fonts(pdf), calibrated)
    words = pm.words(pdf)
    small = [w for w in words if w.height < height - 0.01]
    print(f"{pdf.name}: {len(words)} words, smallest {min(w.height for w in words) / height * 8:.2f} pt")
    assert words and not small, small[:10]
    return words


def labels(svg: Path) -> set[str]:
    """Every word of the drawing's node labels."""
    root = ET.fromstring(svg.read_bytes())
    out = set()
    for group in root.iter(f"{SVG}g"):
        if "node" in (group.get("class") or "").split():
            out |= {word for text in group.iter(f"{SVG}text") for word in (text.text or "").split()}
    return out


@pytest.mark.parametrize(("root", "program"), DIAGRAMS)
def test_diagram_pdf_text_is_8_pt_and_fills_the_page(
    roots: dict[str, Path], eight_pt: tuple[float, set[str]], root: str, program: str, tmp_path: Path
) -> None:
    pdf, svg = tmp_path / "d.pdf", tmp_path / "d.svg"
    linkgraph("diagram", program, "--db", str(roots[root]), "-o", str(pdf))
    linkgraph("diagram", program, "--db", str(roots[root]), "-o", str(svg))
    words = assert_no_text_below_8_pt(pdf, eight_pt)
    sizes = pm.page_sizes(pdf)
    assert {(round(w, 2), round(h, 2)) for w, h in sizes} <= A4
    printed = {w.text for w in words}
    assert labels(svg) <= printed, labels(svg) - printed  # no label lost between the pages
    fills = [pm.fill_ratio(pdf, page, MARGIN_MM, tmp_path) for page in range(1, len(sizes) + 1)]
    print(f"{root} {program}: {len(sizes)} page(s), fill ratio {', '.join(f'{f:.2f}' for f in fills)}")
    if len(sizes) == 1:
        box = pm.ink_box(pdf, 1, tmp_path)
        assert box is not None
        width, height = sizes[0]
        margin = MARGIN_MM * pm.MM_PT
        spans = ((box[2] - box[0]) / (width - 2 * margin), (box[3] - box[1]) / (height - 2 * margin))
        assert max(spans) > 0.9, spans  # scaled until it meets the margins on one side
        assert fills[0] > 0.3, fills
    else:  # split: each page shows a part of the drawing, not a sliver
        assert min(fills) > 0.2 and len(sizes) <= 12, fills


@pytest.mark.parametrize("root", ["dlink", "freifunk"])
def test_report_pdf_leads_with_inventory_and_findings(
    roots: dict[str, Path], eight_pt: tuple[float, set[str]], root: str, tmp_path: Path
) -> None:
    pdf = tmp_path / "report.pdf"
    linkgraph("report", "--db", str(roots[root]), "--format", "pdf", "-o", str(pdf))
    words = assert_no_text_below_8_pt(pdf, eight_pt)
    pages: dict[int, str] = {}
    for word in words:
        pages[word.page] = pages.get(word.page, "") + " " + word.text
    print(f"{root}: report of {len(pages)} pages")
    # the licence-class table on one page, the first
    table = pages[1][pages[1].index("Licence class") :]
    assert all(name in table for name in CLASS_NAMES), table[:400]
    opening = pages[1] + pages.get(2, "")
    # every finding (a) and (b) of the named queries, with its path, on the first two pages
    query = {
        name: json.loads(linkgraph("query", name, "--db", str(roots[root]), "--json").stdout)
        for name in ("licence-gpl-uses", "licence-gpl-used-by", "licence-lgpl-used")
    }
    assert query["licence-gpl-uses"] or query["licence-gpl-used-by"]  # both roots have a finding
    for row in query["licence-gpl-uses"]:
        assert re.search(rf"{re.escape(row['module'])} .*?→ {re.escape(row['uses'])} ", opening), row
    for row in query["licence-gpl-used-by"]:
        assert f"{row['module']} →" in opening, row
    # (d) only in the appendix, after every finding, the inventory and the explanation
    heading = "Appendix A: (d) LGPL libraries used dynamically LGPL libraries (and"  # the section, not its link
    order = [n for n in sorted(pages) if heading in pages[n]]
    assert len(order) == 1, order
    appendix = order[0]
    assert any("Inventory: every module by licence class" in pages[n] for n in range(2, appendix))
    tail = "".join(pages[n] for n in pages if n >= appendix).replace(" ", "")  # a path may wrap anywhere
    for row in query["licence-lgpl-used"]:
        assert row["module"] in tail and row["library"] in tail, row
    d_heading = re.compile(r"\(d\d+\) ")
    assert not [n for n in pages if n < appendix and d_heading.search(pages[n])]
    # one statement of how many symbols are shown, the same in the appendix and the findings
    counts = {int(n) for n in re.findall(r"first (\d+) symbols", " ".join(pages.values()))}
    assert len(counts) == 1, counts


def test_report_prints_a_diagram_too_large_for_a_page_in_parts(
    wide_root: Path, eight_pt: tuple[float, set[str]], tmp_path: Path
) -> None:
    pdf = tmp_path / "report.pdf"
    linkgraph("report", "--db", str(wide_root), "--format", "pdf", "-o", str(pdf))
    words = assert_no_text_below_8_pt(pdf, eight_pt)
    assert {(round(w, 2), round(h, 2)) for w, h in pm.page_sizes(pdf)} <= A4
    pages: dict[int, list[str]] = {}
    for word in sorted(words, key=lambda w: (w.page, round(w.y0), w.x0)):  # in reading order, line by line
        pages.setdefault(word.page, []).append(word.text)
    caption = re.compile(r"the dependency graph of /usr/bin/vendord: page (\d+) of (\d+) \(row")
    parts = {n: caption.search(" ".join(text)) for n, text in pages.items()}
    sheets = {n: (int(m.group(1)), int(m.group(2))) for n, m in parts.items() if m}
    assert sheets, "the diagram is not printed in parts"
    total = {of for _, of in sheets.values()}
    assert (
        len(total) == 1 and total.pop() > 1 and sorted(k for k, _ in sheets.values()) == list(range(1, len(sheets) + 1))
    )
    assert sorted(sheets) == list(range(min(sheets), min(sheets) + len(sheets)))  # one page each, in a row
    rows = json.loads(linkgraph("query", "licence-gpl-used-by", "--db", str(wide_root), "--json").stdout)
    used = {Path(r["gpl_module"]).name for r in rows}
    assert len(used) == WIDE_LIBRARIES and {r["module"] for r in rows} == {"/usr/bin/vendord"}
    drawn = {word for n in sheets for word in pages[n]}
    assert used <= drawn, sorted(used - drawn)
    print(f"the diagram of 60 paths: {len(sheets)} pages of its own; the report {len(pages)} pages")


def test_diagram_pdf_of_a_large_program_opens_on_the_program(
    wide_root: Path, eight_pt: tuple[float, set[str]], tmp_path: Path
) -> None:
    """vendord and its 60 libraries: too wide for a page at 8 pt, so printed in parts; the first page holds
    the program, each page draws only its part (no module's label printed twice), every label is printed,
    and the command says how far it got."""
    pdf, svg = tmp_path / "vendord.pdf", tmp_path / "vendord.svg"
    proc = linkgraph("diagram", "/usr/bin/vendord", "--db", str(wide_root), "-o", str(pdf))
    linkgraph("diagram", "/usr/bin/vendord", "--db", str(wide_root), "-o", str(svg))
    assert "diagram: laying out the pages" in proc.stderr, proc.stderr
    words = assert_no_text_below_8_pt(pdf, eight_pt)
    pages: dict[int, list[str]] = {}
    for word in sorted(words, key=lambda w: (w.page, round(w.y0), w.x0)):  # in reading order, line by line
        pages.setdefault(word.page, []).append(word.text)
    assert len(pages) > 1
    assert pages[1][0] == "/usr/bin/vendord:" and "vendord" in pages[1][1:], pages[1][:12]  # its caption, then it
    # a page draws its part: a module is printed once, or twice when no cut could miss its box
    libraries = Counter(w.text for w in words if re.fullmatch(r"libgplcomponent\d\d\.so", w.text))
    assert len(libraries) == WIDE_LIBRARIES and max(libraries.values()) <= 2, libraries
    printed = {w.text for w in words}
    assert labels(svg) <= printed, labels(svg) - printed
