"""The whole-firmware view as it opens, in a real browser: the groups (folders), not every module.

* This machine's /usr/bin root and D-Link DIR-880L: on opening every label drawn is at least 10
  CSS px (its font size times the zoom) and no two overlap; the groups drawn are the API's folders
  with their module counts, the aggregated edges count the API's edges between them; time to the
  first useful picture is printed and written to the artifacts folder (not asserted).
* Focus on curl: its whole neighbourhood in view, labels legible.
* The path finder: how curl reaches a library in its process, each step an edge of curl's link map
  (named query link-map-steps, through the API's /process) with its status, the chain joined and
  shortest (a breadth-first search over those edges in the test).
"""

from __future__ import annotations

import itertools
import json
import posixpath
from collections import Counter, deque
from typing import Any

import pytest
from support.browser import Pages, ViewerServer, artifacts_dir, screenshot, wait_until
from support.whole_view import assert_labels_legible, keyed, settled

pytestmark = pytest.mark.slow

CURL = "/usr/bin/curl"


def folder(node: dict[str, Any]) -> str:
    return "missing libraries" if node["missing"] else ("the kernel" if node["kind"] == "kernel" else node["dir"])


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
        box = label["box"]
        assert box["x1"] >= 0 and box["y1"] >= 0 and box["x2"] <= view["width"] and box["y2"] <= view["height"], label
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
            box = label["box"]
            inside = box["x1"] >= 0 and box["y1"] >= 0 and box["x2"] <= view["width"] and box["y2"] <= view["height"]
            assert inside, (hops, direction, label, view)
        print(f"\nfocus on curl, {hops} hop(s) {direction}: {len(labels)} modules in view, zoom {view['zoom']:.2f}")
        screenshot(page, f"whole-focus-curl-{hops}-{direction}")
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
    print(f"\npath finder: {CURL} reaches {goal} in {shortest} steps, {len(chains)} shortest path(s)")
    screenshot(page, "whole-path-finder")
    watch.assert_clean()
