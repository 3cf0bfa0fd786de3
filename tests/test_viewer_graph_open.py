"""The Graph tab opens readable at every width (issue 41, acceptance 1; docs/viewer.md "The Graph
tab"): programs of this machine's /usr/bin with link maps of about 4, 19, 28, 59 and 71 modules (bash,
apt, perf, gdb, dot_builtins on Debian 12; tests/support/hostroot.py copies them with their closure),
in one page each, the window resized from 800 to 1500 px wide in steps of 20 (900 px high) and to 400
and 320 px (720 px high, the drawing scrolled into the window as a reader would). At each width,
measured in the page (each text's computed font size times its scale on screen; each module's
bounding box against the drawing's pane and the window):

* every text is at least 10 px on screen;
* the program's node is in view, and so are its direct dependencies (the ends of its own edges in the
  graph JSON) whenever, as drawn at that zoom, they fit the pane together (gdb's 21 do not in the
  narrower panes: the widths where they do not are printed, and the line above says how many are);
* the line above the drawing is true of what is shown: "The whole graph" only when every module is in
  view, else the numbers it gives (modules in view, direct dependencies in view) are the counts
  measured;
* *Fit* then *Reset* come back to the same zoom and place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from support import hostroot
from support.browser import Pages, PageWatch, ViewerServer, q, screenshot, wait_ready, wait_until
from support.graph_tab import READABLE_PX, served, smallest_text, view

pytestmark = pytest.mark.slow

PROGRAMS = {"bash": 4, "apt": 19, "perf": 28, "gdb": 59, "dot_builtins": 71}  # modules on Debian 12
# the root the programs are copied into (xfd and gtk-launch too: one cached root for the Graph tab tests)
ROOT_PROGRAMS = [f"/usr/bin/{p}" for p in ("bash", "apt", "perf", "xfd", "gdb", "dot_builtins", "gtk-launch")]
WIDE = [(w, 900) for w in range(800, 1501, 20)]
NARROW = [(400, 720), (320, 720)]
NAME = "host-graph-open"

DRAWN = "() => Number(document.querySelector('#tabpanel-graph .diagram-host')?.dataset.drawn || 0)"
READY = "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready'"
SCROLL_IN = "() => document.querySelector('#tabpanel-graph .diagram').scrollIntoView({block: 'start'})"
# the program's node in the drawing's box (the page may scroll to the buttons clicked)
PLACE = """() => {
    const box = document.querySelector('#tabpanel-graph .diagram');
    const b = box.getBoundingClientRect();
    const r = document.querySelector('#tabpanel-graph g#n0').getBoundingClientRect();
    return {x: r.left - b.left, y: r.top - b.top, zoom: box.dataset.zoom};
}"""


@pytest.fixture(scope="module")
def host_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    yield from served(hostroot.cached_host_root(ROOT_PROGRAMS), NAME, tmp_path_factory.mktemp("graph-open"))


def in_view(v: dict[str, Any]) -> set[str]:
    """The modules whose box is wholly inside the pane's part in the window (half a pixel of rounding)."""
    p = v["pane"]
    return {
        n["id"]
        for n in v["nodes"]
        if n["left"] >= p["left"] - 0.5
        and n["right"] <= p["right"] + 0.5
        and n["top"] >= p["top"] - 0.5
        and n["bottom"] <= p["bottom"] + 0.5
    }


def block_fits(v: dict[str, Any], ids: set[str]) -> bool:
    """Whether the modules ``ids``, as drawn at this zoom, would fit the pane together (by their boxes on
    screen: the room they take from the top of the highest to the bottom of the lowest, across too)."""
    boxes = [n for n in v["nodes"] if n["id"] in ids]
    p = v["pane"]
    width = max(n["right"] for n in boxes) - min(n["left"] for n in boxes)
    height = max(n["bottom"] for n in boxes) - min(n["top"] for n in boxes)
    return width <= p["right"] - p["left"] and height <= p["bottom"] - p["top"]


def caption_faults(v: dict[str, Any], shown: set[str], direct: set[str], total: int) -> list[str]:
    """What the line above the drawing says that the drawing does not show."""
    note = v["note"]
    if v["mode"] == "whole":
        return [] if len(shown) == total and "whole graph at" in note else [f"says whole, {len(shown)}/{total} in view"]
    faults = []
    counts = re.search(r"(\d+) of (\d+) modules in view, (\d+) out of view", note)
    if not counts or (int(counts[1]), int(counts[2]), int(counts[3])) != (len(shown), total, total - len(shown)):
        faults.append(f"modules in view: {counts and counts.group(0)!r}, measured {len(shown)} of {total}")
    seen = len(direct & shown)
    said = re.search(r"and (?:its (\d+)|(\d+) of its (\d+)) direct dependenc", note)
    if direct and "n0" in shown:
        told = (int(said[1]), int(said[1])) if said and said[1] else (int(said[2]), int(said[3])) if said else None
        if told != (seen, len(direct)):
            faults.append(f"direct dependencies: said {said and said.group(0)!r}, measured {seen} of {len(direct)}")
    return faults


def resize(page: Any, size: tuple[int, int]) -> None:
    """The window resized: the tab lays the drawing out again for its pane (a new drawing)."""
    before = page.evaluate(DRAWN)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    wait_until(page, f"() => ({DRAWN[6:]}) > {before} && ({READY[6:]})", timeout=120)


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_graph_opens_readable_at_every_width(program: str, host_server: ViewerServer, pages: Pages) -> None:
    path = f"/usr/bin/{program}"
    fw = host_server.firmware_id(NAME)
    graph = host_server.json(f"/api/firmware/{fw}/diagram.json?path={q(path)}")
    total = len(graph["nodes"])
    assert abs(total - PROGRAMS[program]) <= PROGRAMS[program] * 0.3, (program, total)  # the size asked for
    direct = {e["to"] for e in graph["edges"] if e["from"] == "n0" and e["to"] != "n0"}
    page = pages.browser.context.new_page()
    watch = PageWatch(host_server.url)
    watch.attach(page)
    pages.opened.append((page, watch))
    page.set_viewport_size({"width": WIDE[0][0], "height": WIDE[0][1]})
    page.goto(f"{host_server.url}/fw/{fw}/?path={q(path)}&tab=graph")
    wait_ready(page)
    page.wait_for_selector("#tabpanel-graph[data-state='ready']")
    faults: dict[int, list[str]] = {}
    rows = []
    crowded: list[int] = []  # widths whose pane cannot hold the program and its direct dependencies
    for index, size in enumerate(WIDE + NARROW):
        if index:
            resize(page, size)
        if size in NARROW:
            page.evaluate(SCROLL_IN)
        v = view(page)
        shown = in_view(v)
        wrong = [] if smallest_text(v) >= READABLE_PX - 0.01 else [f"smallest text {smallest_text(v):.2f} px"]
        wrong += [] if "n0" in shown else ["the program is out of view"]
        if direct - shown and block_fits(v, {"n0", *direct}):
            wrong.append(f"{len(direct - shown)} of {len(direct)} direct dependencies out of view, though they fit")
        crowded += [size[0]] if direct - shown else []
        wrong += caption_faults(v, shown, direct, total)
        home = page.evaluate(PLACE)
        page.click("#tabpanel-graph button:has-text('Fit')")
        page.click("#tabpanel-graph button:has-text('Reset')")
        page.wait_for_timeout(60)
        back = page.evaluate(PLACE)
        if abs(back["x"] - home["x"]) > 1 or abs(back["y"] - home["y"]) > 1 or back["zoom"] != home["zoom"]:
            wrong.append(f"Reset: {back} after {home}")
        seen = f"{len(shown):2d}/{total} in view, direct {len(direct & shown)}/{len(direct)}"
        rows.append(f"{size[0]:5d} px: zoom {v['zoom']:.2f}, {seen}")
        if wrong:
            faults[size[0]] = wrong
            screenshot(page, f"graph-open-{program}-{size[0]}")
    print(f"\n{program} ({total} modules, {len(direct)} direct dependencies):\n" + "\n".join(rows))
    print(f"{program}: direct dependencies not all in view (they do not fit the pane at 10 px) at {crowded}")
    assert not faults, faults
    watch.assert_clean()
