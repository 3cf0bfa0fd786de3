"""Hostile names in the viewer: markup, quotes, very long, not UTF-8, in file names, sonames, symbols,
the firmware's name and a licence override's package. Everywhere they are shown as text: no dialog
opens, no ``img`` element appears, the text is there literally, the SVG export holds no markup.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.browser import (
    Pages,
    ViewerServer,
    assert_no_markup_elements,
    current_params,
    graph_edges,
    open_tab,
    q,
    svg_point,
    wait_ready,
    wait_until,
)
from support.fixture_root import install_host_loader

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

SVG_NS = "{http://www.w3.org/2000/svg}"


MARKUP = "<img src=x onerror=alert(1)>.so"
SCRIPT_SYMBOL = "<script>alert(1)</script>"
QUOTE_SYMBOL = "\"'><svg onload=alert(2)>"
LONG_SYMBOL = "long_" + "L" * 700
GHOST = "<b onmouseover=alert(4)>gone'\".so"  # names cannot hold a slash
LINK = "\"quoted' <i onclick=alert(3)>link.so"
LONG_DIR = "/opt/" + "d" * 150
LONG_LIB = "lib" + "x" * 200 + ".so"
BAD_PROGRAM = b"prog\xff\xfe<u>"
FIRMWARE_NAME = '<img src=x onerror=alert(1)> "firmware"'
LIB_C = "int markup_fn(void) { return 42; }\nint quote_fn(void) { return 1; }\nint long_fn(void) { return 2; }\n"
LONG_C = "int longlib_fn(void) { return 3; }\n"
GHOST_C = "int ghost_fn(void) { return 4; }\n"
MAIN_C = (
    "int markup_fn(void); int quote_fn(void); int long_fn(void); int longlib_fn(void); int ghost_fn(void);\n"
    "int main(void) { return markup_fn() + quote_fn() + long_fn() + longlib_fn() + ghost_fn(); }\n"
)
PACKAGE = "<img src=x onerror=alert(5)> 1.0'\""
# the program is GPL (with a hostile package name), so the Licences page lists it using the markup library
OVERRIDES = f"- match: /usr/bin/prog*\n  licence: GPL-2.0-only\n  package: {json.dumps(PACKAGE)}\n"


def _run(cmd: list[Any]) -> None:
    proc = subprocess.run(cmd, capture_output=True, timeout=120)
    assert proc.returncode == 0, f"{cmd!r}: {proc.stderr.decode(errors='replace')}"


def build_hostile_root(base: Path) -> Path:
    """A root whose names are markup, quotes, very long or not UTF-8 (built with gcc and objcopy)."""
    build = base / "build"
    root = base / "root"
    build.mkdir(parents=True)
    for d in ("lib", "usr/bin", LONG_DIR.lstrip("/")):
        (root / d).mkdir(parents=True, exist_ok=True)
    for name, text in (("lib.c", LIB_C), ("long.c", LONG_C), ("ghost.c", GHOST_C), ("main.c", MAIN_C)):
        (build / name).write_text(text)
    redefine = [
        f"--redefine-sym=markup_fn={SCRIPT_SYMBOL}",
        f"--redefine-sym=quote_fn={QUOTE_SYMBOL}",
        f"--redefine-sym=long_fn={LONG_SYMBOL}",
    ]
    for src in ("lib", "long", "ghost"):
        _run(["gcc", "-fPIC", "-c", str(build / f"{src}.c"), "-o", str(build / f"{src}.o")])
    _run(["gcc", "-c", str(build / "main.c"), "-o", str(build / "main.o")])
    for obj in ("lib.o", "main.o"):
        _run(["objcopy", *redefine, str(build / obj)])
    markup_lib = root / "lib" / MARKUP
    long_lib = root / LONG_DIR.lstrip("/") / LONG_LIB
    ghost = build / "ghost.so"  # linked against, not shipped: a missing library
    _run(["gcc", "-shared", "-o", str(markup_lib), str(build / "lib.o"), f"-Wl,-soname,{MARKUP}"])
    _run(["gcc", "-shared", "-o", str(long_lib), str(build / "long.o"), f"-Wl,-soname,{LONG_LIB}"])
    _run(["gcc", "-shared", "-o", str(ghost), str(build / "ghost.o"), f"-Wl,-soname,{GHOST}"])
    program = os.path.join(os.fsencode(root / "usr" / "bin"), BAD_PROGRAM)
    _run(
        [
            b"gcc",
            b"-o",
            program,
            os.fsencode(build / "main.o"),
            os.fsencode(markup_lib),
            os.fsencode(long_lib),
            os.fsencode(ghost),
            f"-Wl,-rpath,{LONG_DIR}".encode(),
        ]
    )
    os.symlink(MARKUP, root / "lib" / LINK)
    install_host_loader(root, Path(os.fsdecode(program)))
    return root


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    work = tmp_path_factory.mktemp("hostile-serve")
    root = build_hostile_root(work)
    db = work / "graph.lbdb"
    overrides = work / "licences.yaml"
    overrides.write_text(OVERRIDES)
    proc = linkgraph(
        "scan", str(root), "--db", str(db), "--name", FIRMWARE_NAME, "--licences", str(overrides), "--quiet"
    )
    assert proc.returncode in (0, 1), proc.stderr
    other = work / "other"  # a second firmware, so that / lists them
    (other / "lib").mkdir(parents=True)
    shutil.copy2(root / "lib" / MARKUP, other / "lib" / MARKUP)
    proc = linkgraph("scan", str(other), "--db", str(db), "--name", f"{FIRMWARE_NAME} (other)", "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def test_hostile_names_are_text_everywhere(hostile_server: ViewerServer, pages: Pages) -> None:
    server = hostile_server
    fw = server.firmware_id(FIRMWARE_NAME)
    tree = server.json(f"/api/firmware/{fw}/tree")
    program = next(e["path"] for e in tree["entries"] if e["path"].startswith("/usr/bin/prog"))
    assert "\\x" in program or "%" in program, program  # the bytes that are not UTF-8 are shown escaped
    markup_path = f"/lib/{MARKUP}"
    long_path = f"{LONG_DIR}/{LONG_LIB}"

    # the firmware list: the names are text, the links lead to them
    page, watch = pages.open(server, "/", ready=False)
    names = page.locator("table.firmware-list tbody tr td:first-child").all_inner_texts()
    assert sorted(names) == sorted([FIRMWARE_NAME, f"{FIRMWARE_NAME} (other)"]), names
    modules = next(f["modules"] for f in server.json("/api/firmware") if f["id"] == fw)
    wait_until(
        page,
        "([fw, n]) => document.querySelector(`tr[data-firmware='${fw}'] .modules-count`).textContent === String(n)",
        [fw, modules],
    )
    assert_no_markup_elements(page)
    page.click(f"tr[data-firmware='{fw}'] td:first-child a")
    wait_ready(page)
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/"
    # the firmware name is text in the header and the title
    assert page.inner_text("header .fw-name") == FIRMWARE_NAME
    assert FIRMWARE_NAME in page.title()
    tree_text = page.inner_text("#tree")
    for text in (MARKUP, LINK, GHOST, program.rsplit("/", 1)[1], LONG_LIB[:40]):
        assert text in tree_text, (text, tree_text)
    assert (
        page.locator(f"#tree a.entry[data-path={json.dumps(f'/lib/{LINK}')}] .target").inner_text()
        == f"→ {markup_path}"
    )
    assert_no_markup_elements(page)
    no_overflow = "document.documentElement.scrollWidth <= window.innerWidth + 1"
    assert page.evaluate(no_overflow), "a long name widens the page"

    # the program: the ELF analysis shows every hostile symbol as text
    page.click(f"#tree a.entry[data-path={json.dumps(program)}]")
    page.wait_for_selector("#panel[data-state='ready']")
    assert current_params(page)["path"] == program
    open_tab(page, "analysis")
    used = page.locator("section[data-section='used'] tbody tr", has_text=MARKUP)
    used.locator("summary").click()
    used.locator("ul.symbol-list li").first.wait_for()
    symbols = used.locator("ul.symbol-list li").all_inner_texts()
    assert SCRIPT_SYMBOL in symbols and QUOTE_SYMBOL in symbols and LONG_SYMBOL in symbols, symbols
    assert GHOST in page.inner_text("section[data-section='missing']")
    assert page.evaluate(no_overflow), "a long symbol widens the page"
    assert_no_markup_elements(page)

    # the Graph tab: labels are text, the edge box shows the symbols as text
    open_tab(page, "graph")
    labels = page.eval_on_selector_all("#tabpanel-graph g.node text", "ts => ts.map(t => t.textContent)")
    assert any(MARKUP in t for t in labels), labels
    graph, edges = graph_edges(server, fw, program)
    edge_id = next(i for i, e in edges.items() if e[1] == markup_path)
    x, y = svg_point(page, f"#tabpanel-graph g#{edge_id} path.hit")
    page.mouse.click(x, y)
    box_text = page.locator("#tabpanel-graph .edge-box").inner_text()
    assert SCRIPT_SYMBOL in box_text and QUOTE_SYMBOL in box_text and markup_path in box_text, box_text
    assert_no_markup_elements(page)

    # the SVG export: the names are escaped text, no markup element, no handler
    status, ctype, body = server.get(page.get_attribute("#tabpanel-graph a.export-diagram-svg", "href"))
    assert status == 200 and ctype.startswith("image/svg+xml")
    svg = ET.fromstring(body)
    tags = {el.tag.split("}")[-1].lower() for el in svg.iter()}
    assert not tags & {"img", "script", "foreignobject", "iframe", "b", "i", "u"}, tags
    assert not [a for el in svg.iter() for a in el.attrib if a.lower().startswith("on")]
    assert any(MARKUP in "".join(el.itertext()) for el in svg.iter(f"{SVG_NS}text")), "the label is there as text"

    # the library with the markup name (double-clicked): its own page, and the symlink to it
    page.click("#tabpanel-graph .zoom-controls button:has-text('Fit')")  # every module in view
    page.dblclick(f"#tabpanel-graph g#{next(n['id'] for n in graph['nodes'] if n['path'] == markup_path)}")
    wait_until(page, "want => document.querySelector('#panel .file-name')?.textContent === want", MARKUP)
    assert current_params(page)["path"] == markup_path
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    open_tab(page, "overview")
    overview = page.inner_text("#tabpanel-overview")
    assert f"/lib/{LINK}" in overview and MARKUP in overview
    assert_no_markup_elements(page)
    watch.assert_clean()

    # the program's Overview: the override's package is text
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(program)}")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#tabpanel-overview dd[data-fact='package']") == PACKAGE
    assert "GPL-2.0-only" in page.inner_text("#tabpanel-overview dd[data-fact='licence']")
    assert_no_markup_elements(page)
    watch.assert_clean()

    # the Licences page: the GPL program uses the (unknown) markup library; names are text, links lead to them
    page, watch = pages.open(server, f"/fw/{fw}/licences")
    row = page.locator("section[data-finding='gpl_uses'] tbody tr").filter(
        has=page.locator(f"a.file-link[data-path={json.dumps(markup_path)}]")
    )
    assert row.count() == 1
    assert row.get_attribute("data-module") == program and row.get_attribute("data-uses") == markup_path
    assert SCRIPT_SYMBOL in row.inner_text() and QUOTE_SYMBOL in row.inner_text()
    rows = page.eval_on_selector_all(
        "section[data-finding='gpl_uses'] tbody tr",
        "trs => trs.map(tr => [tr.dataset.module, tr.dataset.uses, tr.innerText])",
    )
    assert sorted(r[:2] for r in rows) == sorted([[program, markup_path], [program, long_path]]), rows
    assert all(MARKUP in r[2] for r in rows if r[1] == markup_path), rows
    assert page.evaluate(no_overflow), "a long name widens the Licences page"
    href = row.locator(f"a.file-link[data-path={json.dumps(program)}]").get_attribute("href")
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(href).query)) == {"path": program}
    assert_no_markup_elements(page)
    watch.assert_clean()

    # a bookmarked URL of the symlink, and of the very long path
    page, watch = pages.open(server, f"/fw/{fw}/?path={q(f'/lib/{LINK}')}")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-name") == MARKUP
    assert LINK in page.inner_text("#panel .via")
    page, watch2 = pages.open(server, f"/fw/{fw}/?path={q(long_path)}")
    page.wait_for_selector("#panel[data-state='ready']")
    assert page.inner_text("#panel .file-path") == long_path
    assert page.evaluate(no_overflow)
    watch.assert_clean()
    watch2.assert_clean()

    # the whole-firmware view: the selection panel shows the names as text
    page, watch = pages.open(server, f"/fw/{fw}/whole?modules=1")
    # the graph library draws the names as text on its canvas; the tooltip is the name, as text
    drawn = {label["key"]: label["label"] for label in page.evaluate("linkgraphWhole.labels()")}
    assert drawn[markup_path] == MARKUP and drawn[GHOST] == GHOST, drawn
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(markup_path)})")
    box = page.locator("#whole-canvas").bounding_box()
    page.mouse.move(box["x"] + pos["x"], box["y"] + pos["y"])
    wait_until(page, "want => document.getElementById('whole-canvas').title === want", markup_path)
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(markup_path)})")
    info = page.inner_text("#whole-info")
    assert MARKUP in info and program.rsplit("/", 1)[1] in info, info
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(GHOST)})")
    assert GHOST in page.inner_text("#whole-info")
    page.fill("#whole-search", "<img")
    wait_until(page, "() => document.querySelector('#whole-matches').textContent.includes('match')")
    assert MARKUP in page.inner_text("#whole-matches")
    assert_no_markup_elements(page)
    watch.assert_clean()


def test_non_utf8_symbol_names_are_shown_escaped(tmp_path: Path, pages: Pages) -> None:
    """A symbol name that is not UTF-8 is stored and shown escaped (like file names), as text."""
    build = tmp_path / "build"
    root = tmp_path / "root"
    build.mkdir()
    (root / "lib").mkdir(parents=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (build / "lib.c").write_text("int bad_fn(void) { return 3; }\n")
    (build / "main.c").write_text("int bad_fn(void);\nint main(void) { return bad_fn(); }\n")
    _run(["gcc", "-fPIC", "-c", str(build / "lib.c"), "-o", str(build / "lib.o")])
    _run(["gcc", "-c", str(build / "main.c"), "-o", str(build / "main.o")])
    for obj in ("lib.o", "main.o"):
        _run([b"objcopy", b"--redefine-sym=bad_fn=bad_\xff\xfe<i>_fn", os.fsencode(build / obj)])
    _run(["gcc", "-shared", "-o", str(root / "lib" / "libbad.so"), str(build / "lib.o"), "-Wl,-soname,libbad.so"])
    _run(["gcc", "-o", str(root / "usr" / "bin" / "badsym"), str(build / "main.o"), str(root / "lib" / "libbad.so")])
    install_host_loader(root, root / "usr" / "bin" / "badsym")
    db = tmp_path / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", "badsym", "--quiet", check=False)
    last = proc.stderr.strip().splitlines()[-1:] or [""]
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, f"the scan crashed: {last[0]}"
    with ViewerServer(["--db", str(db)], tmp_path) as server:
        fw = server.firmware_id("badsym")
        page, watch = pages.open(server, f"/fw/{fw}/?path={q('/usr/bin/badsym')}&tab=analysis")
        page.wait_for_selector("#panel[data-state='ready']")
        row = page.locator("section[data-section='used'] tbody tr", has_text="libbad.so")
        row.locator("summary").click()
        text = row.locator("ul.symbol-list").inner_text()
        assert "bad_" in text and "<i>_fn" in text and ("\\x" in text or "%" in text or "\ufffd" in text), text
        assert_no_markup_elements(page)
        watch.assert_clean()
