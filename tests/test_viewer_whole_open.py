"""The whole-firmware view as it opens, in a real browser: the groups (folders), not every module.

* This machine's /usr/bin root and D-Link DIR-880L: on opening every label drawn is at least 10
  CSS px (its font size times the zoom) and no two overlap; the groups drawn are the API's folders
  with their module counts, the aggregated edges count the API's edges between them; time to the
  first useful picture is printed and written to the artifacts folder (not asserted).
* Focus on curl: its whole neighbourhood in view, labels legible, the page saying nothing is out of
  view; focus on what uses libc: too many for legible labels in the window, so the view is centred
  on libc, which is in view, and the page says that part is out of view.
* The path finder: how curl reaches a library in its process, each step an edge of curl's link map
  (named query link-map-steps, through the API's /process) with its status, the chain joined and
  shortest (a breadth-first search over those edges in the test); the drawing marks the boxes of
  the groups its modules are in.
* A group opens by a click on its box and by Enter on its button in the list: its modules (the
  API's for that folder) are drawn, in view, labels at 10 px or more and none overlapping.
* A click on an aggregated edge selects no single edge: the panel counts the API's edges between
  those two folders and lists them; one of them opens its own panel.
"""

from __future__ import annotations

import itertools
import json
import posixpath
from collections import Counter, deque
from typing import Any

import pytest
from support.browser import Pages, ViewerServer, artifacts_dir, screenshot, wait_until
from support.whole_view import assert_labels_legible, keyed, query, settled

pytestmark = pytest.mark.slow

CURL = "/usr/bin/curl"


def folder(node: dict[str, Any]) -> str:
    return "missing libraries" if node["missing"] else ("the kernel" if node["kind"] == "kernel" else node["dir"])


def in_view(box: dict[str, float], view: dict[str, float]) -> bool:
    return box["x1"] >= 0 and box["y1"] >= 0 and box["x2"] <= view["width"] and box["y2"] <= view["height"]


def opening(server: ViewerServer, pages: Pages, name: str, shot: str) -> tuple[Any, dict[str, Any], str]:
    fw = server.firmware_id(name)
    whole = server.json(f"/api/firmware/{fw}/whole")
    page, watch = pages.open(server, f"/fw/{fw}/whole")
    settled(page)
    timing = page.evaluate("({data: linkgraphWhole.dataMs, first: linkgraphWhole.firstFrameMs})")
    assert page.evaluate("linkgraphWhole.mode()") == "groups"
    labels = assert_labels_legible(page)
    view = page.evaluate("linkgraphWhole.view()")
    for label in labels:  # the whole opening picture is in view
        assert in_view(label["box"], view), label
    # one box per folder with its count, one edge per pair of folders with the API's edges between them
    members = Counter(folder(n) for n in whole["nodes"])
    drawn = {g["name"]: g["members"] for g in page.evaluate("linkgraphWhole.closedGroups()")}
    assert drawn == dict(members)
    _keys, edges = keyed(whole)
    of = {(n["path"] or n["label"]): folder(n) for n in whole["nodes"]}
    between = Counter((of[f], of[t]) for f, t, _ in edges if of[f] != of[t])
    joined = page.evaluate("linkgraphWhole.joinedEdges()")
    assert {(f.removeprefix("group:"), t.removeprefix("group:")): c for f, t, c in joined} == dict(between)
    smallest = min(label["fontPx"] for label in labels)
    figures = {
        "modules": len(whole["nodes"]),
        "edges": len(whole["edges"]),
        "groups": len(drawn),
        "aggregated_edges": len(joined),
        "smallest_label_px": round(smallest, 1),
        "data_arrived_ms": round(timing["data"]),
        "first_useful_picture_ms": round(timing["first"]),
    }
    print(f"\n{name}: {figures}")
    (artifacts_dir() / f"{shot}.json").write_text(json.dumps(figures, indent=1))
    screenshot(page, shot)
    watch.assert_clean()
    return page, whole, fw


def test_host_root_opens_with_its_folders(host_server: ViewerServer, pages: Pages) -> None:
    opening(host_server, pages, "host-programs", "whole-open-host")


def test_dlink_opens_with_its_folders(dlink_server: ViewerServer, pages: Pages) -> None:
    opening(dlink_server, pages, "dlink-dir880l", "whole-open-dlink")


def test_focus_on_curl_fits_its_neighbourhood(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    page, watch = pages.open(host_server, f"/fw/{fw}/whole?focus={CURL}")
    settled(page)
    assert page.evaluate("linkgraphWhole.focused()") == CURL
    for hops, direction in ((1, "both"), (2, "out")):
        page.evaluate(f"linkgraphWhole.focus({json.dumps(CURL)}, {hops}, {json.dumps(direction)})")
        settled(page)
        labels = assert_labels_legible(page)
        view = page.evaluate("linkgraphWhole.view()")
        for label in labels:
            assert in_view(label["box"], view), (hops, direction, label, view)
        print(f"\nfocus on curl, {hops} hop(s) {direction}: {len(labels)} modules in view, zoom {view['zoom']:.2f}")
        screenshot(page, f"whole-focus-curl-{hops}-{direction}")
        assert page.locator("#whole-off-view").is_hidden()
    # libc and what uses it: too many for labels of 10 px in the window, so the view centres on libc
    # and the page says that part of it is out of view
    libc = next(n["path"] for n in host_server.json(f"/api/firmware/{fw}/whole")["nodes"] if n["label"] == "libc.so.6")
    page.evaluate(f"linkgraphWhole.focus({json.dumps(libc)}, 1, 'in')")
    settled(page)
    assert page.evaluate("[linkgraphWhole.focused(), linkgraphWhole.mode()]") == [libc, "focus"]
    labels = assert_labels_legible(page)
    view = page.evaluate("linkgraphWhole.view()")
    outside = [lab for lab in labels if not in_view(lab["box"], view)]
    assert outside and in_view(next(lab["box"] for lab in labels if lab["key"] == libc), view)
    assert page.locator("#whole-off-view").is_visible()
    assert "out of view" in page.locator("#whole-off-view").inner_text()
    print(f"focus on libc, 1 hop in: {len(labels)} modules, {len(outside)} out of view, zoom {view['zoom']:.2f}")
    screenshot(page, "whole-focus-libc-in")
    page.click("#whole-fit")
    assert page.locator("#whole-off-view").is_hidden()
    watch.assert_clean()


def bfs_paths(steps: list[dict[str, Any]], start: str, goal: str) -> int:
    """The length of the shortest chain of `steps` from start to goal."""
    depth = {start: 0}
    ring = deque([start])
    while ring:
        here = ring.popleft()
        for s in steps:
            if s["from"] == here and s["to"] not in depth:
                depth[s["to"]] = depth[here] + 1
                ring.append(s["to"])
    return depth[goal]


def test_path_finder_follows_curls_link_map(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    steps = host_server.json(f"/api/firmware/{fw}/process?program={CURL}")["edges"]
    assert steps and all(s["from"] != s["to"] for s in steps)
    # a library curl does not declare, which its process loads through others
    direct = {s["to"] for s in steps if s["from"] == CURL}
    libc = next(s["to"] for s in steps if posixpath.basename(s["to"]).startswith("libc.so"))
    far = sorted({s["to"] for s in steps} - direct - {libc})
    goal = next(t for t in far if bfs_paths(steps, CURL, t) >= 3)
    page, watch = pages.open(host_server, f"/fw/{fw}/whole")
    page.fill("#whole-path-from", CURL)
    page.fill("#whole-path-to", goal)
    page.click("#whole-path-find")
    wait_until(page, "() => document.querySelector('#whole-path-result').dataset.state === 'ready'")
    chains = page.evaluate("""[...document.querySelectorAll('#whole-path-result ol')].map((ol) =>
        [...ol.querySelectorAll('li')].map((li) => [li.dataset.from, li.dataset.to, li.dataset.status]))""")
    assert chains, page.inner_text("#whole-path-result")
    held = {(s["from"], s["to"], s["status"]) for s in steps}
    shortest = bfs_paths(steps, CURL, goal)
    for chain in chains:
        assert chain[0][0] == CURL and chain[-1][1] == goal, chain
        assert all(a[1] == b[0] for a, b in itertools.pairwise(chain)), chain
        assert all(tuple(step) in held for step in chain), chain  # every step an edge of curl's link map
        assert len(chain) == shortest, chain
    # libc is reached through an intermediate library as well as directly: the direct edge is shortest
    answer = host_server.json(f"/api/firmware/{fw}/path?from={CURL}&to={libc}")
    assert [[(s["from"], s["to"]) for s in p] for p in answer["paths"]] == [[(CURL, libc)]]
    # the folders on the paths open: the drawing marks each module and each edge of the paths
    on_path = set(page.evaluate("linkgraphWhole.onPath()"))
    assert on_path == {key for chain in chains for step in chain for key in step[:2]}, on_path
    edges = {tuple(e) for e in page.evaluate("linkgraphWhole.onPathEdges()")}
    assert edges == {(step[0], step[1]) for chain in chains for step in chain}, edges
    print(f"\npath finder: {CURL} reaches {goal} in {shortest} steps, {len(chains)} shortest path(s)")
    screenshot(page, "whole-path-finder")
    watch.assert_clean()


def members_of(whole: dict[str, Any]) -> dict[str, list[str]]:
    """The API's modules (keys) by folder."""
    out: dict[str, list[str]] = {}
    for n in whole["nodes"]:
        out.setdefault(folder(n), []).append(n["path"] or n["label"])
    return {name: sorted(keys) for name, keys in out.items()}


def assert_group_open(page: Any, name: str, members: list[str]) -> None:
    """`name` is no longer a closed box: its members are drawn as modules, in view, labels legible."""
    wait_until(page, "(name) => !linkgraphWhole.closedGroups().some((g) => g.name === name)", name)
    settled(page)
    drawn = set(page.evaluate("linkgraphWhole.visibleKeys()"))
    assert set(members) <= drawn, sorted(set(members) - drawn)
    view = page.evaluate("linkgraphWhole.view()")
    for key in members:
        p = page.evaluate("(key) => linkgraphWhole.nodePosition(key)", key)
        assert p is not None and 0 <= p["x"] <= view["width"] and 0 <= p["y"] <= view["height"], (key, p, view)
    assert_labels_legible(page)
    toggle = page.locator(f"button.group-toggle[data-group={json.dumps(name)}]")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert name in query(page)["expand"]


def test_groups_open_by_click_and_by_enter(host_server: ViewerServer, pages: Pages) -> None:
    fw = host_server.firmware_id("host-programs")
    groups = members_of(host_server.json(f"/api/firmware/{fw}/whole"))
    # two groups of a few modules each (whose labels fit the window at 10 px)
    small = sorted((name for name, keys in groups.items() if 2 <= len(keys) <= 40), key=lambda n: -len(groups[n]))
    assert len(small) >= 2, {name: len(keys) for name, keys in groups.items()}
    page, watch = pages.open(host_server, f"/fw/{fw}/whole")
    settled(page)
    # a click on the group's box in the drawing
    box = next(g["box"] for g in page.evaluate("linkgraphWhole.closedGroups()") if g["name"] == small[0])
    canvas = page.locator("#whole-canvas").bounding_box()
    page.mouse.click(canvas["x"] + (box["x1"] + box["x2"]) / 2, canvas["y"] + (box["y1"] + box["y2"]) / 2)
    assert_group_open(page, small[0], groups[small[0]])
    screenshot(page, "whole-open-group-click")
    # Enter on its button in the list beside the drawing
    page.locator(f"button.group-toggle[data-group={json.dumps(small[1])}]").focus()
    page.keyboard.press("Enter")
    assert_group_open(page, small[1], groups[small[1]])
    assert set(groups[small[0]]) <= set(page.evaluate("linkgraphWhole.visibleKeys()"))  # the first stays open
    screenshot(page, "whole-open-group-enter")
    watch.assert_clean()


def test_aggregated_edge_lists_its_edges(host_server: ViewerServer, pages: Pages) -> None:
    """A click on an edge between two groups selects no single edge: the panel gives how many edges
    it stands for (the API's edges between those folders) and lists them."""
    fw = host_server.firmware_id("host-programs")
    whole = host_server.json(f"/api/firmware/{fw}/whole")
    _keys, edges = keyed(whole)
    of = {(n["path"] or n["label"]): folder(n) for n in whole["nodes"]}
    page, watch = pages.open(host_server, f"/fw/{fw}/whole")
    settled(page)
    view = page.evaluate("linkgraphWhole.view()")
    boxes = [label["box"] for label in page.evaluate("linkgraphWhole.labels()")]

    def clear_of_boxes(p: dict[str, float], gap: float = 6) -> bool:
        inside = 0 <= p["x"] <= view["width"] and 0 <= p["y"] <= view["height"]
        return inside and all(
            p["x"] < b["x1"] - gap or p["x"] > b["x2"] + gap or p["y"] < b["y1"] - gap or p["y"] > b["y2"] + gap
            for b in boxes
        )

    # the heaviest aggregated edge whose middle is clear of every box drawn
    drawn = sorted(page.evaluate("linkgraphWhole.joinedMidpoints()"), key=lambda j: -j["count"])
    heaviest = next(j for j in drawn if clear_of_boxes(j["mid"]))
    canvas = page.locator("#whole-canvas").bounding_box()
    page.mouse.click(canvas["x"] + heaviest["mid"]["x"], canvas["y"] + heaviest["mid"]["y"])
    joined = wait_until(page, "() => document.querySelector('#whole-info').dataset.joined")
    source, target = joined.split("\n")
    between = sorted((f, t) for f, t, _ in edges if of[f] == source and of[t] == target)
    assert between, joined
    assert page.evaluate("linkgraphWhole.selectedEdge()") is None and page.evaluate("linkgraphWhole.selected()") is None
    count = page.get_attribute("#whole-info .joined-count", "data-count")
    assert count is not None and int(count) == len(between)
    listed = page.evaluate("""[...document.querySelectorAll('#whole-info .joined-edges li')].map((li) =>
        [li.dataset.from, li.dataset.to])""")
    assert len(listed) == min(len(between), 200) and {tuple(p) for p in listed} <= set(between)
    print(f"\naggregated edge {source} -> {target}: {len(between)} edges, {len(listed)} listed")
    # one of them opens the panel of that edge
    page.locator("#whole-info .joined-edges li button", has_text="details").first.click()
    wait_until(page, "() => document.querySelector('#whole-info').dataset.edge !== undefined")
    assert tuple(page.evaluate("linkgraphWhole.selectedEdge()")) == tuple(listed[0])
    screenshot(page, "whole-joined-edge")
    watch.assert_clean()
