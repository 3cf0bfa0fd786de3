"""The whole-firmware view in a real browser.

* A root of real host programs: time to the first interactive frame (printed, and written to the
  artifacts folder), every module and edge counted, highlighting, zoom, filters and search.
* The article's root with licence overrides (tests/support/browser.py): the modules coloured by licence
  class with a legend, the filter by licence class, the licence class in the side panel.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import linkgraph
from support.browser import (
    ARTICLE_NAME,
    BUSYBOX,
    CRYPT,
    Pages,
    ViewerServer,
    artifacts_dir,
    wait_until,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

# 30 wheel events, one an animation frame, alternately in and out: the mean time of a frame (ms)
ZOOM_FRAMES = """() => new Promise(done => {
    const canvas = document.getElementById('whole-canvas');
    const r = canvas.getBoundingClientRect();
    const t0 = performance.now();
    let n = 0;
    function step() {
        canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: n % 2 ? 120 : -120, clientX: r.left + r.width / 3,
            clientY: r.top + r.height / 2, bubbles: true, cancelable: true}));
        if (++n < 30) requestAnimationFrame(step);
        else requestAnimationFrame(() => done((performance.now() - t0) / 30));
    }
    step();
})"""


@pytest.fixture(scope="module")
def host_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    from support import hostroot

    root = hostroot.cached_host_root(limit=600)
    work = tmp_path_factory.mktemp("host-serve")
    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", "host-programs", "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def test_whole_firmware_of_host_programs(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    whole = host_server.json(f"/api/firmware/{fw}/whole")
    assert len(whole["nodes"]) > 300 and len(whole["edges"]) > 1000, (len(whole["nodes"]), len(whole["edges"]))
    started = time.monotonic()
    page, watch = pages.open(host_server, f"/fw/{fw}/whole")
    wall = time.monotonic() - started
    state = page.evaluate("""({ready: linkgraphWhole.ready, first: linkgraphWhole.firstFrameMs,
        data: linkgraphWhole.dataMs, nodes: linkgraphWhole.nodes, edges: linkgraphWhole.edges,
        visible: linkgraphWhole.visibleEdges(), shown: linkgraphWhole.visibleNodes(),
        frames: linkgraphWhole.frames})""")
    assert state["ready"] is True and state["frames"] >= 1
    assert state["nodes"] == len(whole["nodes"]) and state["edges"] == len(whole["edges"])
    assert state["visible"] == len(whole["edges"]) and state["shown"] == len(whole["nodes"])
    assert isinstance(state["first"], (int, float)) and state["first"] > 0
    timing = {
        "modules": state["nodes"],
        "edges": state["edges"],
        "first_frame_ms": round(state["first"], 1),
        "data_arrived_ms": round(state["data"], 1),
        "wall_s": round(wall, 2),
    }
    print(
        f"\nwhole-firmware view: {state['nodes']} modules, {state['edges']} edges; data at "
        f"{state['data']:.0f} ms, first interactive frame at {state['first']:.0f} ms after navigation start"
    )

    # still interactive: highlight a hub's neighbourhood, redraw many times, filter, search
    libc = next(n["path"] for n in whole["nodes"] if n["label"] == "libc.so.6")
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(libc)})")
    assert page.get_attribute("#whole-info", "data-node") == libc
    users = sum(1 for e in whole["edges"] if e["to"] == next(n["id"] for n in whole["nodes"] if n["path"] == libc))
    assert f"Used by ({users})" in page.inner_text("#whole-info")
    redraw = page.evaluate(ZOOM_FRAMES)
    timing["zoom_frame_ms"] = round(redraw, 1)
    print(f"zooming with libc's neighbourhood highlighted: {redraw:.0f} ms a frame")
    canvas = page.locator("#whole-canvas").bounding_box()
    page.evaluate("linkgraphWhole.fit()")
    exe = next(n for n in whole["nodes"] if n["kind"] == "executable")
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(exe['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    page.mouse.down()
    page.mouse.up()
    assert page.get_attribute("#whole-info", "data-node") == exe["path"]
    # hovering a module highlights it, its neighbours and its edges
    ids = {n["id"]: n["path"] or n["label"] for n in whole["nodes"]}
    lib = next(n for n in whole["nodes"] if n["label"].startswith("libselinux") or n["label"].startswith("libz."))
    around = (
        {lib["path"]}
        | {ids[e["from"]] for e in whole["edges"] if e["to"] == lib["id"]}
        | {ids[e["to"]] for e in whole["edges"] if e["from"] == lib["id"]}
    )
    degree = sum(1 for e in whole["edges"] if lib["id"] in (e["from"], e["to"]))
    page.evaluate(f"linkgraphWhole.select({json.dumps(lib['path'])})")  # brings it on screen
    page.click("#whole-canvas", position={"x": 2, "y": 2})  # a click on nothing: no selection
    assert page.evaluate("linkgraphWhole.selected()") is None
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(lib['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    for _ in range(6):  # zoom in on it with the wheel, until its row is clear of the next ones
        page.mouse.wheel(0, -300)
        page.wait_for_timeout(50)
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(lib['path'])})")
    page.mouse.move(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    wait_until(page, "want => linkgraphWhole.highlighted().focus === want", lib["path"])
    lit = page.evaluate("linkgraphWhole.highlighted()")
    assert set(lit["nodes"]) == around and lit["edges"] == degree, (lit, sorted(around), degree)
    page.mouse.move(canvas["x"] + 2, canvas["y"] + 2)
    # filters: kinds and folders
    page.uncheck("#whole-kind input[value='executable']")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["kind"] != "executable")
    page.check("#whole-kind input[value='executable']")
    page.select_option("#whole-dir", "/usr/bin")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == sum(1 for n in whole["nodes"] if n["dir"] == "/usr/bin")
    page.select_option("#whole-dir", "")
    hidden = sum(1 for e in whole["edges"] if e["status"] == "hidden")
    page.uncheck("#whole-status input[value='used']")
    page.uncheck("#whole-status input[value='declared-unused']")
    page.uncheck("#whole-status input[value='dlopen']")  # dlopen edges have a filter of their own
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden
    page.check("#whole-status input[value='dlopen']")
    dlopen = sum(1 for e in whole["edges"] if e["status"] == "dlopen")
    assert page.evaluate("linkgraphWhole.visibleEdges()") == hidden + dlopen
    page.check("#whole-status input[value='used']")
    page.fill("#whole-search", "libc.so")
    wait_until(page, "() => document.querySelector('#whole-matches').textContent.includes('match')")
    assert "libc.so.6" in page.inner_text("#whole-matches")
    (artifacts_dir() / "whole-firmware-timing.json").write_text(json.dumps(timing, indent=1))
    watch.assert_clean()


# --------------------------------------------------------------------------- licences on the canvas

# the dot colours of licence.js (LICENCE_STYLE)
LICENCE_DOT = {"gpl": (0xD3, 0x54, 0x00), "lgpl": (0xC9, 0x9A, 0x00), "unknown": (0xA0, 0xA0, 0xA0)}
KIND_DOT = {"executable": (0x00, 0x69, 0x5C), "library": (0x37, 0x47, 0x4F)}


def dot_colour(page: Any, key: str) -> tuple[int, int, int]:
    """The colour drawn at the centre of a module's dot (after the next frame)."""
    page.evaluate("linkgraphWhole.redraw()")
    return tuple(
        page.evaluate(
            """key => {
        const canvas = document.getElementById('whole-canvas');
        const p = linkgraphWhole.nodePosition(key);
        const dpr = window.devicePixelRatio || 1;
        const d = canvas.getContext('2d').getImageData(Math.round(p.x * dpr), Math.round(p.y * dpr), 1, 1).data;
        return [d[0], d[1], d[2]];
    }""",
            key,
        )
    )


def near(colour: tuple[int, ...], want: tuple[int, ...]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(colour, want, strict=True))


def expected_view(whole: dict[str, Any], classes: set[str]) -> tuple[list[str], int]:
    """Modules (and missing sonames, which have no licence) shown, and the edges among them."""
    shown = {n["id"]: n["path"] or n["label"] for n in whole["nodes"] if n["missing"] or n["licence_class"] in classes}
    edges = sum(1 for e in whole["edges"] if e["from"] in shown and e["to"] in shown)
    return sorted(shown.values()), edges


def test_whole_firmware_by_licence_class(article_server: ViewerServer, pages: Pages) -> None:
    server = article_server
    fw = server.firmware_id(ARTICLE_NAME)
    whole = server.json(f"/api/firmware/{fw}/whole")
    classes = {n["path"]: n["licence_class"] for n in whole["nodes"] if not n["missing"]}
    assert classes[BUSYBOX] == "gpl" and classes[CRYPT] == "lgpl"
    page, watch = pages.open(server, f"/fw/{fw}/whole")

    # the filter: one checkbox per class, with its count
    labels = {
        cls: page.inner_text(f"#whole-licence label:has(input[value='{cls}'])")
        for cls in ("gpl", "lgpl", "permissive", "incompatible", "unknown")
    }
    for cls, text in labels.items():
        assert f"({sum(1 for c in classes.values() if c == cls)})" in text, (cls, text)

    # coloured by kind first, by licence class when asked; the legend follows
    assert near(dot_colour(page, BUSYBOX), KIND_DOT["executable"]), dot_colour(page, BUSYBOX)
    assert page.get_attribute("#whole-legend", "data-colour") == "kind"
    page.select_option("#whole-colour", "licence")
    assert page.get_attribute("#whole-legend", "data-colour") == "licence"
    legend = page.eval_on_selector_all(
        "#whole-legend .legend-item[data-licence-class]", "items => items.map(i => i.dataset.licenceClass)"
    )
    assert legend == ["gpl", "lgpl", "permissive", "incompatible", "unknown"]
    for path in (BUSYBOX, CRYPT, "/lib/libutility.so"):
        assert near(dot_colour(page, path), LICENCE_DOT[classes[path]]), (path, dot_colour(page, path))

    # only GPL: busybox (and the missing soname, which has no licence), no edge between them
    for cls in ("lgpl", "permissive", "incompatible", "unknown"):
        page.uncheck(f"#whole-licence input[value='{cls}']")
    shown, edges = expected_view(whole, {"gpl"})
    assert shown == sorted([BUSYBOX, "libgone.so.1"])
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown
    assert page.evaluate("linkgraphWhole.visibleEdges()") == edges == 0
    # only LGPL: the C library, the GCC runtime and libcrypt, with the edges among them
    page.check("#whole-licence input[value='lgpl']")
    page.uncheck("#whole-licence input[value='gpl']")
    shown, edges = expected_view(whole, {"lgpl"})
    assert page.evaluate("linkgraphWhole.visibleKeys()") == shown and edges > 0
    assert page.evaluate("linkgraphWhole.visibleEdges()") == edges
    assert BUSYBOX not in shown and CRYPT in shown
    assert page.inner_text("#whole-stats").startswith(f"{len(shown)} of ")

    # the side panel names the class
    for cls in ("gpl", "unknown"):
        page.check(f"#whole-licence input[value='{cls}']")
    assert page.evaluate("linkgraphWhole.visibleNodes()") == len(whole["nodes"]) - sum(
        1 for c in classes.values() if c in ("permissive", "incompatible")
    )
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(BUSYBOX)})")
    assert page.get_attribute("#whole-info .node-licence .lclass", "data-licence-class") == "gpl"
    assert page.evaluate("linkgraphWhole.select('libgone.so.1')")  # a missing soname has no licence
    info = page.inner_text("#whole-info")
    assert "libgone.so.1" in info and "licence" not in info and "null" not in info, info
    watch.assert_clean()
