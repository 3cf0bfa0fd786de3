"""The licence compliance report (``linkgraph report --format html|pdf``) and the findings behind it.

* The article's busybox (tests/support/article.py) with the licences of the real device: busybox
  GPL-2.0-only (the knowledge base), the four vendor libraries unknown, libcrypt.so.0 LGPL and
  libgcc_s.so.1 GPL with GCC's exception (overrides). The findings (a)-(c) through the named
  queries and through the JSON of ``licence_findings`` (the viewer's /licences): exactly the
  article's picture; with libapcfg proprietary and libaplog GPL, finding (a) appears.
* The HTML report in headless Chromium: no script error, every finding's diagram loaded, the
  symbols visible as text; the PDF renders (pdftoppm, pdftotext).
* Hostile names (markup in a library's file name, its symbols, the firmware's name and an override
  pattern) stay text: no element, no handler, no image but the report's own data: diagrams.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import APCFG, APLOG, BUSYBOX, CRYPT, GCC_S, NVRAM, UTIL, build_article_root
from support.browser import Browser, PageWatch, artifacts_dir, screenshot
from support.fixture_root import install_host_loader

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DATA_SVG = "data:image/svg+xml;base64,"
DEVICE_LICENCES = f"{CRYPT}: LGPL-2.1-or-later\n{GCC_S}: GPL-3.0-or-later WITH GCC-exception-3.1\n"
PROPRIETARY = f"{APCFG}: LicenseRef-Proprietary\n{APLOG}: GPL-2.0-only\n"
EXPLANATION = "How to read this report"
# the elements the report's template writes; anything else came from the data
TEMPLATE_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "table",
    "colgroup",
    "col",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "section",
    "article",
    "figure",
    "img",
    "figcaption",
    "ul",
    "ol",
    "li",
    "code",
    "span",
    "a",
    "em",
    "strong",
    "dl",
    "dt",
    "dd",
    "br",
}


# --------------------------------------------------------------------------- fixtures


def scan(root: Path, db: Path, overrides: Path, name: str) -> Path:
    proc = linkgraph("scan", str(root), "--db", str(db), "--quiet", "--licences", str(overrides), "--name", name)
    assert proc.returncode == 0, proc.stderr
    return db


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("compliance")
    root = build_article_root(base / "root").path
    device = base / "device.yaml"
    device.write_text(DEVICE_LICENCES)
    proprietary = base / "proprietary.yaml"
    proprietary.write_text(DEVICE_LICENCES + PROPRIETARY)
    return {
        "base": base,
        "device": scan(root, base / "device.lbdb", device, "tew-636apb"),
        "proprietary": scan(root, base / "proprietary.lbdb", proprietary, "tew-636apb-proprietary"),
    }


def query(db: Path, name: str) -> list[dict[str, Any]]:
    return json.loads(linkgraph("query", name, "--db", str(db), "--json").stdout)


def findings_json(db: Path) -> dict[str, Any]:
    """licence_findings as the viewer's JSON API serves it."""
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(db), "TESTING": True}).test_client()
    fw = client.get("/api/firmware").get_json()[0]["id"]
    answer = client.get(f"/api/firmware/{fw}/licences")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    return answer.get_json()


def html_of(db: Path) -> str:
    proc = linkgraph("report", "--db", str(db), "--format", "html")
    assert proc.returncode == 0 and proc.stdout.startswith("<!DOCTYPE html>"), proc.stderr
    return proc.stdout


# --------------------------------------------------------------------------- acceptance 1: the findings


def test_findings_through_the_named_queries(article: dict[str, Path]) -> None:
    db = article["device"]
    licences = {r["path"]: (r["licence"], r["class"]) for r in query(db, "licences")}
    assert licences[BUSYBOX] == ("GPL-2.0-only", "gpl")
    assert {p: licences[p] for p in (UTIL, NVRAM, APCFG, APLOG)} == dict.fromkeys(
        (UTIL, NVRAM, APCFG, APLOG), (None, "unknown")
    )
    assert licences[CRYPT] == ("LGPL-2.1-or-later", "lgpl")
    assert licences[GCC_S] == ("GPL-3.0-or-later WITH GCC-exception-3.1", "lgpl")
    uses = {(r["module"], r["uses"], r["status"], tuple(sorted(r["symbols"]))) for r in query(db, "licence-gpl-uses")}
    assert uses == {(BUSYBOX, UTIL, "used", ("util_foo",)), (BUSYBOX, APCFG, "used", ("apcfg_get",))}
    declared = query(db, "licence-declared-only")
    assert {(r["module"], r["library"]) for r in declared} == {(BUSYBOX, NVRAM), (BUSYBOX, APLOG)}
    assert {(r["library"], r["used_by"], tuple(r["used_by_symbols"] or [])) for r in declared} == {
        (NVRAM, APCFG, ("nvram_get",)),
        (APLOG, APCFG, ("aplog_write",)),
    }
    assert query(db, "licence-gpl-used-by") == []


def test_findings_json_is_the_article_picture(article: dict[str, Path]) -> None:
    found = findings_json(article["device"])
    assert [(f["module"], f["uses"], f["status"], f["symbols"]) for f in found["gpl_uses"]] == [
        (BUSYBOX, APCFG, "used", ["apcfg_get"]),
        (BUSYBOX, UTIL, "used", ["util_foo"]),
    ]
    assert [(f["module"], f["library"], f["library_class"]) for f in found["declared_only"]] == [
        (BUSYBOX, APLOG, "unknown"),
        (BUSYBOX, NVRAM, "unknown"),
    ]
    nvram = next(f for f in found["declared_only"] if f["library"] == NVRAM)
    assert nvram["used_by"] == [{"module": APCFG, "status": "used", "symbols": ["nvram_get"]}]
    assert found["gpl_used_by"] == []
    assert found["summary"]["findings"] == {
        "gpl_used_by": 0,
        "gpl_uses": 2,
        "declared_only": 2,
        "lgpl_used": len(found["lgpl_used"]),
        "kernel_gpl_only": 0,
        "gpl_contained": 0,
        "lgpl_static": 0,
    }
    # libcrypt and libgcc_s are declared but not used by busybox: no LGPL use of them by busybox
    assert not [f for f in found["lgpl_used"] if f["module"] == BUSYBOX and f["library"] in (CRYPT, GCC_S)]


def test_a_proprietary_library_using_gpl_code_through_a_hidden_edge(article: dict[str, Path]) -> None:
    db = article["proprietary"]
    raw = query(db, "licence-gpl-used-by")
    assert [(r["module"], r["gpl_module"], r["hops"], r["statuses"]) for r in raw] == [
        (APCFG, APLOG, [APCFG, APLOG], ["hidden"])
    ]
    found = findings_json(db)
    assert found["gpl_used_by"] == [
        {
            "module": APCFG,
            "licence": "LicenseRef-Proprietary",
            "class": "incompatible",
            "gpl_module": APLOG,
            "gpl_licence": "GPL-2.0-only",
            "programs": [BUSYBOX],
            "hops": [{"from": APCFG, "to": APLOG, "status": "hidden", "symbols": ["aplog_write"]}],
        }
    ]
    assert [(f["uses"], f["uses_class"]) for f in found["gpl_uses"]] == [(APCFG, "incompatible"), (UTIL, "unknown")]
    assert [f["library"] for f in found["declared_only"]] == [NVRAM]  # libaplog is GPL now, like busybox


# --------------------------------------------------------------------------- the HTML report


class Page(HTMLParser):
    """The elements, attributes and text of an HTML page, by section."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.stack: list[str] = []
        self.by_article: dict[str, dict[str, list]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "article":
            self.stack.append(attributes.get("id") or "?")
            self.by_article[self.stack[-1]] = {"img": [], "text": []}
        if tag == "img" and self.stack:
            self.by_article[self.stack[-1]]["img"].append(attributes.get("src") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.stack:
            self.by_article[self.stack[-1]]["text"].append(data)

    def article_text(self, name: str) -> str:
        return " ".join(" ".join(self.by_article[name]["text"]).split())


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def highlighted(src: str) -> set[str]:
    """The thick edges of a diagram embedded as a data: URL, by their tooltips' first lines."""
    assert src.startswith(DATA_SVG)
    svg = ET.fromstring(base64.b64decode(src[len(DATA_SVG) :]))
    return {
        next(g.iter(f"{SVG}a")).get(XLINK_TITLE).split("\n")[0]
        for g in svg.iter(f"{SVG}g")
        if "highlight" in (g.get("class") or "").split()
    }


def test_html_report_holds_every_finding_with_diagram_evidence_and_sources(article: dict[str, Path]) -> None:
    html = html_of(article["proprietary"])
    page = parse(html)
    # the summary first, the findings in the order of their letters, each letter once as a section; (d) in the
    # appendix after the inventory
    ids = [
        "summary",
        "gpl-used-by",
        "gpl-uses",
        "declared-only",
        "kernel-gpl-only",
        "inventory",
        "lgpl-used",
        "appendix",
    ]
    at = [html.index(f'<section id="{i}"') for i in ids]
    assert at == sorted(at), ids
    heads = re.findall(r"<h2>(?:Appendix A: )?\(([a-e])\)", html)
    assert heads == ["a", "b", "c", "e", "d"], heads  # (d) is the first appendix
    assert "<h2>Summary</h2>" in html and "(e) Summary" not in html
    text = " ".join(" ".join(page.text).split())
    for words in (
        EXPLANATION,
        "tew-636apb-proprietary",
        "declared-unused",
        "hidden",
        "not legal advice",
        "Summary",
        "Appendix",
    ):
        assert words in text, words
    fw = json.loads(linkgraph("report", "--db", str(article["proprietary"])).stdout)["firmware"]
    assert fw["sha256"] in text and "proprietary.yaml" in text and fw["source"]["licence_overrides"]["sha256"] in text
    assert set(page.by_article) == {"b-1", "a-1", "c-1"}
    for name, found in page.by_article.items():
        assert len(found["img"]) == 1 and found["img"][0].startswith(DATA_SVG), name
    assert highlighted(page.by_article["b-1"]["img"][0]) == {f"used: {BUSYBOX} → {APCFG}", f"used: {BUSYBOX} → {UTIL}"}
    assert highlighted(page.by_article["a-1"]["img"][0]) == {f"hidden: {APCFG} → {APLOG}"}
    assert highlighted(page.by_article["c-1"]["img"][0]) == {f"declared-unused: {BUSYBOX} → {NVRAM}"}
    b1, a1, c1 = (page.article_text(n) for n in ("b-1", "a-1", "c-1"))
    for words in (
        "util_foo",
        "apcfg_get",
        "LicenseRef-Proprietary",
        "GPL-2.0-only",
        "knowledge-base:busybox",
        "override:",
        "inferred",
        "declared",
        "licence unknown",
        "no licence fact found",
    ):
        assert words in b1, words
    for words in (f"To {APLOG}", "by link L1", f"Held in the link map of: {BUSYBOX}"):
        assert words in a1, words
    # the links of (a)'s paths, each once for the whole report, with their symbols
    links = " ".join(
        " ".join(parse(html[html.index('<section id="a-links">') : html.index('id="gpl-uses"')]).text).split()
    )
    for words in (f"L1 {APCFG} → {APLOG}", "hidden", "aplog_write", "does not declare libaplog.so"):
        assert words in links, words
    assert "Still used by" in c1 and APCFG in c1 and "nvram_get" in c1
    assert not [t for t, _ in page.tags if t not in TEMPLATE_TAGS]


def test_the_device_report_names_both_declared_only_libraries(article: dict[str, Path]) -> None:
    page = parse(html_of(article["device"]))
    assert set(page.by_article) == {"b-1", "c-1"}
    c1 = page.article_text("c-1")
    assert "libnvram.so" in c1 and "libaplog.so" in c1 and "nvram_get" in c1 and "aplog_write" in c1
    assert highlighted(page.by_article["c-1"]["img"][0]) == {
        f"declared-unused: {BUSYBOX} → {NVRAM}",
        f"declared-unused: {BUSYBOX} → {APLOG}",
    }
    text = " ".join(" ".join(page.text).split())
    licences = query(article["device"], "licences")
    unknown = sum(1 for r in licences if r["licence"] is None)
    assert 0 < unknown < len(licences)
    coverage = f"{unknown} of {len(licences)} modules have no licence fact and are listed under To review"
    assert f"(a) No finding among the modules whose licence is known; {coverage}." in text
    assert "No finding of this kind" not in text and "(a) No finding." not in text


def test_long_symbol_lists_are_cut(article: dict[str, Path]) -> None:
    from linkgraph.viewer.compliance import cut

    assert cut(range(5), 3) == {"shown": [0, 1, 2], "more": 2, "total": 5}
    page = parse(html_of(article["device"]))
    text = " ".join(" ".join(page.text).split())
    # (d) names each user of an LGPL library with the number of symbols it binds there (ld.so's 18
    # in libc), not the symbols themselves: the JSON report and the query list those
    assert "used by 1 module /lib/x86_64-linux-gnu/libc.so.6 (18)." in text
    assert "linkgraph query licence-lgpl-used" in text


def test_diagrams_draw_the_finding_path(article: dict[str, Path]) -> None:
    from linkgraph.loader.report.analysis import dependency_graph
    from linkgraph.loader.store import open_store
    from linkgraph.viewer.compliance import compliance_data
    from linkgraph.viewer.finding_diagram import finding_graph

    hop = {"from": APCFG, "to": APLOG, "status": "hidden", "symbols": ["aplog_write"]}
    with open_store(db=str(article["proprietary"]), read_only=True) as store:
        fw = store.query("firmware")[0]["id"]
        graph, omitted = finding_graph(store, fw, NVRAM, [hop])  # libnvram's graph lacks the hop
        paths = {n["id"]: n["path"] for n in graph["nodes"]}
        assert set(paths.values()) == {NVRAM, APCFG, APLOG}  # the path, not libnvram's link map
        whole = dependency_graph(store, fw, NVRAM)
        assert omitted == len(whole["nodes"]) - 1
        added = [e for e in graph["edges"] if (paths[e["from"]], paths[e["to"]]) == (APCFG, APLOG)]
        assert [(e["status"], e["symbols"], e["count"]) for e in added] == [("hidden", ["aplog_write"], 1)]
        assert len({n["id"] for n in graph["nodes"]}) == len(graph["nodes"])
        assert len({e["id"] for e in graph["edges"]}) == len(graph["edges"])
        edges = [{"from": BUSYBOX, "to": UTIL, "status": "used", "symbols": ["util_foo"]}]
        graph, omitted = finding_graph(store, fw, BUSYBOX, edges)
        assert {n["path"] for n in graph["nodes"]} == {BUSYBOX, UTIL} and omitted == 7  # 9 in busybox's link map
        assert [e["status"] for e in graph["edges"]] == ["used"]
        data = compliance_data(store, fw, image="png", today="2030-01-02")
    assert data["date"] == "2030-01-02"
    diagrams = [g["diagram"] for key in ("gpl_uses", "gpl_used_by", "declared_only") for g in data[key]]
    assert len(diagrams) == 3
    for d in diagrams:
        assert d["src"].startswith("data:image/png;base64,") and d["width"] > 0 and d["omitted"] > 0
        assert base64.b64decode(d["src"].split(",", 1)[1]).startswith(PNG_MAGIC)
    from linkgraph.viewer.compliance_render import render_html

    assert "Only the finding's path is drawn" in " ".join(parse(render_html(data)).text)


def test_report_progress_on_stderr_unless_quiet(article: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    proc = linkgraph("report", "--db", str(article["device"]), "--format", "html", "-o", str(out))
    said = proc.stderr.splitlines()
    assert proc.returncode == 0 and out.read_text().startswith("<!DOCTYPE html>"), proc.stderr
    diagrams = [line for line in said if line.startswith("report: drawing the findings' diagrams: ")]
    assert diagrams and diagrams[-1].endswith(" of " + diagrams[-1].rsplit(" ", 1)[-1]), said  # to the last one
    assert said[-1] == f"report: wrote {out}", said
    quiet = linkgraph("report", "--db", str(article["device"]), "--format", "html", "-o", str(out), "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    # the JSON report prints nothing but itself
    assert linkgraph("report", "--db", str(article["device"]), "--sections", "modules").stderr == ""


def test_json_stays_the_default(article: dict[str, Path], tmp_path: Path) -> None:
    plain = linkgraph("report", "--db", str(article["device"])).stdout
    linkgraph("report", "--db", str(article["device"]), "--format", "json", "-o", str(tmp_path / "r.json"))
    assert (tmp_path / "r.json").read_text() == plain and json.loads(plain)["schema"] == "linkgraph-report/1"
    linkgraph("report", "--db", str(article["device"]), "--format", "html", "-o", str(tmp_path / "r.html"))
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    proc = linkgraph("report", "--db", str(article["device"]), "--format", "pdf", check=False)
    assert proc.returncode == 2 and "-o FILE" in proc.stderr
    help_text = linkgraph("report", "--help").stdout
    assert "html" in help_text and "pdf" in help_text and "WeasyPrint" in help_text


# --------------------------------------------------------------------------- acceptance 4: browser and PDF


def open_report(browser: Browser, path: Path) -> tuple[Any, PageWatch]:
    page = browser.context.new_page()
    watch = PageWatch("file://")
    watch.attach(page)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, watch


@pytest.mark.slow
def test_html_report_in_chromium(article: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "compliance.html"
    linkgraph("report", "--db", str(article["proprietary"]), "--format", "html", "-o", str(out))
    page, watch = open_report(browser, out)
    try:
        images = page.evaluate("""() => [...document.querySelectorAll('article.finding')].map(a => {
            const img = a.querySelector('figure img');
            return {id: a.id, src: img ? img.getAttribute('src').slice(0, 26) : null,
                    width: img ? img.naturalWidth : 0, complete: img ? img.complete : false};
        })""")
        assert {i["id"] for i in images} == {"b-1", "a-1", "c-1"}, images
        for image in images:
            assert image["src"] == DATA_SVG and image["complete"] and image["width"] > 0, image
        for symbol in ("util_foo", "apcfg_get", "nvram_get", "aplog_write"):
            assert page.locator(".symbols", has_text=symbol).first.is_visible(), symbol
        assert page.locator("h2", has_text=EXPLANATION).is_visible()
        assert page.evaluate("() => document.querySelectorAll('script').length") == 0
        page.locator("#b-1").scroll_into_view_if_needed()
        screenshot(page, "compliance-report-b1")
        watch.assert_clean()
    finally:
        page.close()


def pdf_text(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=120
    ).stdout


def test_pdf_report_renders(article: dict[str, Path], tmp_path: Path) -> None:
    pdf = tmp_path / "compliance.pdf"
    proc = linkgraph("report", "--db", str(article["proprietary"]), "--format", "pdf", "-o", str(pdf))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert pdf.read_bytes().startswith(b"%PDF-")
    # how far it got, on stderr as the scan says it: the diagrams, the pages laid out, the PDF written
    said = proc.stderr.splitlines()
    assert any(re.fullmatch(r"report: drawing the findings' diagrams: \d+ of \d+", line) for line in said), said
    assert any(re.fullmatch(r"report: laying out the pages(: \d+)?", line) for line in said), said
    assert "report: writing the PDF" in said and said[-1] == f"report: wrote {pdf}", said
    subprocess.run(
        ["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pages = list(tmp_path.glob("page*.png"))
    assert len(pages) == 1 and pages[0].stat().st_size > 1000 and pages[0].read_bytes().startswith(PNG_MAGIC)
    text = pdf_text(pdf)
    for words in ("busybox", "util_foo", "apcfg_get", "nvram_get", EXPLANATION, "Licence compliance report"):
        assert words in text, words
    # the diagrams are drawn in the PDF: the key, drawn once, is text only it holds; each diagram's module is drawn
    assert text.count("used (N symbols)") == 1 and text.count("Key to the diagrams") == 1
    subprocess.run(
        ["pdftoppm", "-png", "-r", "60", str(pdf), str(artifacts_dir() / "compliance-report-pdf")],
        check=True,
        capture_output=True,
        timeout=120,
    )


# --------------------------------------------------------------------------- hostile names

MARKUP = "<img src=x onerror=alert(1)>.so"
SCRIPT_SYMBOL = "<script>alert(1)</script>"
QUOTE_SYMBOL = "\"'><svg onload=alert(2)>"
PROGRAM = "prog<b onmouseover=alert(3)>"
FIRMWARE_NAME = '<img src=x onerror=alert(4)> "firmware"'
BIDI_SYMBOL = "evil\u202egnp.exe"
LIB_C = "int markup_fn(void) { return 42; }\nint quote_fn(void) { return 1; }\nint bidi_fn(void) { return 2; }\n"
MAIN_C = (
    "int markup_fn(void); int quote_fn(void); int bidi_fn(void);\n"
    "int main(void) { return markup_fn() + quote_fn() + bidi_fn(); }\n"
)


def _run(cmd: list[Any]) -> None:
    proc = subprocess.run(cmd, capture_output=True, timeout=120)
    assert proc.returncode == 0, f"{cmd!r}: {proc.stderr.decode(errors='replace')}"


def build_hostile_root(base: Path) -> Path:
    """A GPL program with a markup name using a library with a markup name and markup symbols."""
    build, root = base / "build", base / "root"
    build.mkdir(parents=True)
    for d in ("lib", "usr/bin"):
        (root / d).mkdir(parents=True)
    (build / "lib.c").write_text(LIB_C)
    (build / "main.c").write_text(MAIN_C)
    _run(["gcc", "-fPIC", "-c", str(build / "lib.c"), "-o", str(build / "lib.o")])
    _run(["gcc", "-c", str(build / "main.c"), "-o", str(build / "main.o")])
    for obj in ("lib.o", "main.o"):
        _run(
            [
                "objcopy",
                f"--redefine-sym=markup_fn={SCRIPT_SYMBOL}",
                f"--redefine-sym=quote_fn={QUOTE_SYMBOL}",
                f"--redefine-sym=bidi_fn={BIDI_SYMBOL}",
                str(build / obj),
            ]
        )
    lib = root / "lib" / MARKUP
    _run(["gcc", "-shared", "-o", str(lib), str(build / "lib.o"), f"-Wl,-soname,{MARKUP}"])
    _run(["gcc", "-o", os.fspath(root / "usr" / "bin" / PROGRAM), str(build / "main.o"), str(lib)])
    install_host_loader(root, root / "usr" / "bin" / PROGRAM)
    return root


def assert_only_template_markup(html: str) -> Page:
    page = parse(html)
    injected = [(t, a) for t, a in page.tags if t not in TEMPLATE_TAGS]
    assert not injected, injected
    for tag, attributes in page.tags:
        assert not [n for n in attributes if n.lower().startswith("on")], (tag, attributes)
        if tag == "img":
            assert (attributes.get("src") or "").startswith(DATA_SVG), attributes
    return page


@pytest.mark.slow
def test_hostile_names_stay_text(tmp_path: Path, browser: Browser) -> None:
    root = build_hostile_root(tmp_path)
    overrides = tmp_path / "hostile.yaml"
    overrides.write_text(json.dumps({"/usr/bin/*": "GPL-2.0-only", MARKUP: "LicenseRef-Proprietary"}))
    db = scan(root, tmp_path / "hostile.lbdb", overrides, FIRMWARE_NAME)
    html = html_of(db)
    page = assert_only_template_markup(html)
    text = " ".join(page.text)
    for words in (MARKUP, SCRIPT_SYMBOL, QUOTE_SYMBOL, PROGRAM, FIRMWARE_NAME, f":{MARKUP}"):
        assert words in text, words
    assert "evil\\u202egnp.exe" in text and "\u202e" not in html  # a bidirectional override is shown escaped
    assert set(page.by_article) == {"b-1"}
    out = tmp_path / "hostile.html"
    out.write_text(html)
    chromium, watch = open_report(browser, out)
    try:
        found = chromium.evaluate("""() => ({
            foreign: [...document.querySelectorAll('script, iframe, object, embed, svg, dialog, b, u')].length,
            images: [...document.images].map(i => [i.getAttribute('src').slice(0, 26), i.naturalWidth]),
            handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))
                      .filter(n => n.startsWith('on')),
            title: document.title})""")
        assert found["foreign"] == 0 and found["handlers"] == [], found
        assert found["images"] and all(src == DATA_SVG and width > 0 for src, width in found["images"]), found
        assert FIRMWARE_NAME in found["title"]
        assert chromium.locator(".symbols", has_text=SCRIPT_SYMBOL).first.is_visible()
        chromium.locator("#b-1").scroll_into_view_if_needed()
        screenshot(chromium, "compliance-report-hostile")
        watch.assert_clean()
    finally:
        chromium.close()
    pdf = tmp_path / "hostile.pdf"
    linkgraph("report", "--db", str(db), "--format", "pdf", "-o", str(pdf))
    assert "onerror=alert(1)" in pdf_text(pdf)
