"""The whole-firmware view in a real browser (Cytoscape.js drawing, ELK laying out in a Web Worker).

* This machine's whole-/usr/bin root: time to the first interactive frame (printed, and written to
  the artifacts folder), every module and edge drawn, selection, highlighting, filters and search;
  a focus on ``/usr/bin/curl`` (its neighbourhood as the API says, every label drawn at 10 CSS px or
  more, no two labels overlapping); the "hidden only" set isolated and laid out again.
* The article's root with licence overrides (tests/support/browser.py), on LadybugDB and on Neo4j:
  the grouping by folder, package and licence class, the colouring by licence class with a legend,
  and no request leaving the viewer. tests/test_viewer_whole_url.py has the URL, Back and Forward,
  the selection and the double click.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from typing import Any

import pytest
from support.browser import ARTICLE_NAME, BUSYBOX, CRYPT, Pages, ViewerServer, artifacts_dir, screenshot, wait_until
from support.whole_view import (
    BOTH_STORES,
    assert_labels_legible,
    keyed,
    neighbourhood,
    outside_requests,
    query,
    settled,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


CURL = "/usr/bin/curl"


# --------------------------------------------------------------------------- the /usr/bin root


def test_whole_firmware_of_host_programs(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    whole = host_server.json(f"/api/firmware/{fw}/whole")
    assert len(whole["nodes"]) > 300 and len(whole["edges"]) > 1000, (len(whole["nodes"]), len(whole["edges"]))
    started = time.monotonic()
    page, watch = pages.open(host_server, f"/fw/{fw}/whole?modules=1")  # every module
    wall = time.monotonic() - started
    state = page.evaluate("""({ready: linkgraphWhole.ready, first: linkgraphWhole.firstFrameMs,
        data: linkgraphWhole.dataMs, nodes: linkgraphWhole.nodes, edges: linkgraphWhole.edges,
        visible: linkgraphWhole.visibleEdges(), shown: linkgraphWhole.visibleNodes(),
        frames: linkgraphWhole.frames, layout: linkgraphWhole.lastLayoutMs})""")
    assert state["ready"] is True and state["frames"] >= 1
    assert state["nodes"] == len(whole["nodes"]) and state["edges"] == len(whole["edges"])
    assert state["visible"] == len(whole["edges"]) and state["shown"] == len(whole["nodes"])
    keys, edges = keyed(whole)
    assert page.evaluate("linkgraphWhole.visibleKeys()") == sorted(keys.values())
    assert page.evaluate("linkgraphWhole.visibleEdgeList()") == sorted([f, t, s] for f, t, s in edges)
    timing = {
        "modules": state["nodes"],
        "edges": state["edges"],
        "first_frame_ms": round(state["first"], 1),
        "data_arrived_ms": round(state["data"], 1),
        "overview_layout_ms": round(state["layout"], 1),
        "wall_s": round(wall, 2),
    }
    print(
        f"\nwhole-firmware view: {state['nodes']} modules, {state['edges']} edges; data at {state['data']:.0f} ms, "
        f"first interactive frame at {state['first']:.0f} ms after navigation start (layout {state['layout']:.0f} ms)"
    )
    # grouped by folder: a box per folder holding exactly its modules
    groups = page.evaluate("linkgraphWhole.groups()")
    folders: dict[str, list[str]] = {}
    for n in whole["nodes"]:
        if n["path"]:
            folders.setdefault(n["dir"], []).append(n["path"])
    for folder, members in folders.items():
        assert groups[f"{folder} ({len(members)})"] == sorted(members), folder

    # the side panel of a hub, a click on a module selects it, a click on nothing clears it
    libc = next(n["path"] for n in whole["nodes"] if n["label"] == "libc.so.6")
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(libc)})")
    assert page.get_attribute("#whole-info", "data-node") == libc
    # an upcall and an interposition are listed apart, each in its own words
    users = [f for f, t, s in edges if t == libc and s not in ("upcall", "interposed")]
    assert f"Used by ({len(users)})" in page.inner_text("#whole-info")
    kinds = {n["path"]: n["kind"] for n in whole["nodes"]}
    programs = sum(1 for f in users if kinds[f] == "executable")
    assert 0 < programs < len(users)  # libc is used by programs and by libraries: a filter by kind
    page.select_option("select[aria-label='Used by: show the modules of one kind']", "executable")
    assert f"Used by ({programs} of {len(users)})" in page.inner_text("#whole-info")
    shown = page.eval_on_selector_all("ul[data-list='Used by'] li:not([hidden])", "els => els.map(e => e.dataset.kind)")
    assert shown == ["executable"] * programs
    canvas = page.locator("#whole-canvas").bounding_box()
    exe = next(n for n in whole["nodes"] if n["kind"] == "executable")
    page.evaluate(f"linkgraphWhole.select({json.dumps(exe['path'])})")  # brings it on screen
    page.evaluate("linkgraphWhole.select(null)")
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(exe['path'])})")
    page.mouse.click(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    assert page.get_attribute("#whole-info", "data-node") == exe["path"]
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/whole"  # one click selects, it does not navigate
    page.mouse.click(canvas["x"] + 3, canvas["y"] + 3)
    assert page.evaluate("linkgraphWhole.selected()") is None
    # hovering a module highlights it, its neighbours and its edges
    lib = next(n for n in whole["nodes"] if n["label"].startswith(("libselinux", "libz.")))
    around = {lib["path"]} | {f for f, t, _ in edges if t == lib["path"]} | {t for f, t, _ in edges if f == lib["path"]}
    degree = sum(1 for f, t, _ in edges if lib["path"] in (f, t))
    page.evaluate(f"linkgraphWhole.select({json.dumps(lib['path'])})")
    page.evaluate("linkgraphWhole.select(null)")
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(lib['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    wait_until(page, "want => linkgraphWhole.highlighted().focus === want", lib["path"])
    lit = page.evaluate("linkgraphWhole.highlighted()")
    assert set(lit["nodes"]) == around and lit["edges"] == degree, (lit, sorted(around), degree)
    page.mouse.move(canvas["x"] + 3, canvas["y"] + 3)
    # filters: kinds and folders hide without moving anything
    before = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(libc)})")
    page.uncheck("#whole-kind input[value='executable']")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["kind"] != "executable")
    page.check("#whole-kind input[value='executable']")
    page.select_option("#whole-dir", "/usr/bin")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["dir"] == "/usr/bin")
    page.select_option("#whole-dir", "")
    assert page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(libc)})") == before
    hidden = sum(1 for e in whole["edges"] if e["status"] == "hidden")
    for status in ("used", "declared-unused", "interposed", "dlopen"):  # dlopen edges have a filter of their own
        page.uncheck(f"#whole-status input[value='{status}']")
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden
    page.check("#whole-status input[value='dlopen']")
    dlopen = sum(1 for e in whole["edges"] if e["status"] == "dlopen")
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden + dlopen
    page.check("#whole-status input[value='used']")
    page.check("#whole-status input[value='declared-unused']")
    page.fill("#whole-search", "libc.so")
    wait_until(page, "() => document.querySelector('#whole-matches').textContent.includes('match')")
    assert "libc.so.6" in page.inner_text("#whole-matches")
    screenshot(page, "whole-host-overview")
    (artifacts_dir() / "whole-firmware-timing.json").write_text(json.dumps(timing, indent=1))
    watch.assert_clean()


def test_focus_on_curl_and_isolate_the_hidden_set(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    whole = host_server.json(f"/api/firmware/{fw}/whole")
    keys, edges = keyed(whole)
    assert CURL in keys.values(), "the host's /usr/bin/curl is part of the test's root"
    page, watch = pages.open(host_server, f"/fw/{fw}/whole?modules=1")  # every module
    # focus from the side panel: curl's neighbourhood, one hop both ways, laid out again
    layouts = page.evaluate("linkgraphWhole.layouts")
    page.evaluate(f"linkgraphWhole.select({json.dumps(CURL)})")
    page.click("#whole-focus-here")
    settled(page)
    assert page.evaluate("[linkgraphWhole.mode(), linkgraphWhole.focused()]") == ["focus", CURL]
    assert page.evaluate("linkgraphWhole.layouts") == layouts + 1
    shown, among = neighbourhood(whole, CURL, 1, "both")
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown
    assert page.evaluate("linkgraphWhole.visibleEdgeList()") == among
    assert page.evaluate("linkgraphWhole.groups()") == {}  # no boxes: layers
    labels = assert_labels_legible(page)
    view = page.evaluate("linkgraphWhole.view()")
    for label in labels:  # on screen, all of them
        box = label["box"]
        assert box["x1"] >= 0 and box["y1"] >= 0 and box["x2"] <= view["width"] and box["y2"] <= view["height"], label
    assert query(page)["focus"] == [CURL]
    print(f"\nfocus on curl: {len(shown)} modules laid out in {page.evaluate('linkgraphWhole.lastLayoutMs'):.0f} ms")
    screenshot(page, "whole-focus-curl")
    # two hops along the dependencies
    page.select_option("#whole-direction", "out")
    settled(page)  # else the redraw's control sync can put the hops back to 1 before their change is sent
    page.fill("#whole-hops", "2")
    page.dispatch_event("#whole-hops", "change")
    settled(page)
    # along curl's own link map only: not through libc's edges into other programs
    process = host_server.json(f"/api/firmware/{fw}/process?program={CURL}")["edges"]
    in_process = {
        "nodes": whole["nodes"],
        "edges": [
            e for e in whole["edges"] if (keys[e["from"]], keys[e["to"]]) in {(s["from"], s["to"]) for s in process}
        ],
    }
    shown, among = neighbourhood(in_process, CURL, 2, "out")
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown
    assert page.evaluate("linkgraphWhole.visibleEdgeList()") == among
    assert_labels_legible(page)
    assert query(page)["hops"] == ["2"] and query(page)["direction"] == ["out"]
    page.click("#whole-unfocus")
    settled(page)
    assert page.evaluate("linkgraphWhole.mode()") == "overview"

    # the "hidden only" set: the filters hide, isolating lays the rest out again
    for status in ("used", "declared-unused", "interposed", "missing", "dlopen"):
        page.uncheck(f"#whole-status input[value='{status}']")
    page.check("#whole-connected")
    hidden = sorted([f, t, s] for f, t, s in edges if s == "hidden")
    ends = sorted({f for f, _, _ in hidden} | {t for _, t, _ in hidden})
    assert page.evaluate("linkgraphWhole.visibleKeys()") == ends
    before = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(ends[0])})")
    layouts = page.evaluate("linkgraphWhole.layouts")
    page.click("#whole-isolate")
    settled(page)
    assert page.evaluate("linkgraphWhole.mode()") == "isolate"
    assert page.evaluate("linkgraphWhole.layouts") == layouts + 1
    assert page.evaluate("linkgraphWhole.visibleKeys()") == ends
    assert page.evaluate("linkgraphWhole.visibleEdgeList()") == hidden
    assert page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(ends[0])})") != before
    assert page.evaluate("linkgraphWhole.labels()"), "no module drawn"
    assert query(page)["isolate"] == ["1"]
    screenshot(page, "whole-isolate-hidden")
    watch.assert_clean()


# --------------------------------------------------------------------------- the article, both stores

# the colours of licence.js (LICENCE_STYLE) and of the kinds (vocabulary)
LICENCE_COLOUR = {"gpl": (0xD3, 0x54, 0x00), "lgpl": (0xC9, 0x9A, 0x00), "unknown": (0xA0, 0xA0, 0xA0)}
KIND_COLOUR = {"executable": (0x00, 0x69, 0x5C), "library": (0x37, 0x47, 0x4F)}


def colour(page: Any, key: str) -> tuple[int, ...]:
    css = page.evaluate(f"linkgraphWhole.nodeColour({json.dumps(key)})")
    return tuple(int(part) for part in css[css.index("(") + 1 : -1].split(","))


def expected_view(whole: dict[str, Any], classes: set[str]) -> tuple[list[str], int]:
    """Modules (and missing sonames, which have no licence) shown, and the edges among them."""
    shown = {n["id"]: n["path"] or n["label"] for n in whole["nodes"] if n["missing"] or n["licence_class"] in classes}
    edges = sum(1 for e in whole["edges"] if e["from"] in shown and e["to"] in shown)
    return sorted(shown.values()), edges


@BOTH_STORES
def test_whole_firmware_by_licence_class(store: str, request: pytest.FixtureRequest, pages: Pages) -> None:
    article: ViewerServer = request.getfixturevalue(store)
    fw = article.firmware_id(ARTICLE_NAME)
    whole = article.json(f"/api/firmware/{fw}/whole")
    classes = {n["path"]: n["licence_class"] for n in whole["nodes"] if not n["missing"]}
    assert classes[BUSYBOX] == "gpl" and classes[CRYPT] == "lgpl"
    page, watch = pages.open(article, f"/fw/{fw}/whole?modules=1")  # every module
    outside = outside_requests(page, article)
    keys, edges = keyed(whole)
    assert page.evaluate("linkgraphWhole.visibleKeys()") == sorted(keys.values())
    assert page.evaluate("linkgraphWhole.visibleEdgeList()") == sorted([f, t, s] for f, t, s in edges)

    # the filter: one checkbox per class, with its count
    for cls in ("gpl", "lgpl", "permissive", "incompatible", "unknown"):
        text = page.inner_text(f"#whole-licence label:has(input[value='{cls}'])")
        assert f"({sum(1 for c in classes.values() if c == cls)})" in text, (cls, text)
    # grouped by licence class: a box per class (and one for the missing soname)
    page.select_option("#whole-group", "licence")
    settled(page)
    groups = page.evaluate("linkgraphWhole.groups()")
    labels = {
        "gpl": "GPL",
        "lgpl": "LGPL",
        "permissive": "permissive",
        "incompatible": "incompatible",
        "unknown": "unknown",
    }
    for cls, label in labels.items():
        members = sorted(p for p, c in classes.items() if c == cls)
        if members:
            assert groups[f"{label} ({len(members)})"] == members, (cls, groups)
    assert groups["no licence (1)"] == ["libgone.so.1"]
    assert query(page)["group"] == ["licence"]
    # coloured by kind first, by licence class when asked; the legend follows
    assert colour(page, BUSYBOX) == KIND_COLOUR["executable"]
    assert page.get_attribute("#whole-legend", "data-colour") == "kind"
    page.select_option("#whole-colour", "licence")
    assert page.get_attribute("#whole-legend", "data-colour") == "licence"
    legend = page.eval_on_selector_all(
        "#whole-legend .legend-item[data-licence-class]", "items => items.map(i => i.dataset.licenceClass)"
    )
    assert legend == ["gpl", "lgpl", "permissive", "incompatible", "unknown"]
    for path in (BUSYBOX, CRYPT, "/lib/libutility.so"):
        assert colour(page, path) == LICENCE_COLOUR[classes[path]], path

    # only GPL: busybox (and the missing soname, which has no licence), no edge between them
    for cls in ("lgpl", "permissive", "incompatible", "unknown"):
        page.uncheck(f"#whole-licence input[value='{cls}']")
    shown, count = expected_view(whole, {"gpl"})
    assert shown == sorted([BUSYBOX, "libgone.so.1"])
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown
    assert page.evaluate("linkgraphWhole.visibleEdges()") == count == 0
    # only LGPL: the C library, the GCC runtime and libcrypt, with the edges among them
    page.check("#whole-licence input[value='lgpl']")
    page.uncheck("#whole-licence input[value='gpl']")
    shown, count = expected_view(whole, {"lgpl"})
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown and count > 0
    assert page.evaluate("linkgraphWhole.visibleEdges()") == count
    assert BUSYBOX not in shown and CRYPT in shown
    assert page.inner_text("#whole-stats").startswith(f"{len(shown)} of ")
    # few modules shown: every label drawn, none overlapping
    assert_labels_legible(page)

    # the side panel names the class
    for cls in ("gpl", "unknown"):
        page.check(f"#whole-licence input[value='{cls}']")
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(BUSYBOX)})")
    assert page.get_attribute("#whole-info .node-licence .lclass", "data-licence-class") == "gpl"
    assert page.evaluate("linkgraphWhole.select('libgone.so.1')")  # a missing soname has no licence
    info = page.inner_text("#whole-info")
    assert "libgone.so.1" in info and "licence" not in info and "null" not in info, info
    # by package: every module has one box, named after its package or "no package"
    page.select_option("#whole-group", "package")
    settled(page)
    packages = page.evaluate("linkgraphWhole.groups()")
    assert sum(len(m) for m in packages.values()) == page.evaluate("linkgraphWhole.visibleNodes()")
    assert outside == [], outside
    watch.assert_clean()
