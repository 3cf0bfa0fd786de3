"""What the whole-firmware view's browser tests share: waiting for its layouts, the API's graph as
keys, a neighbourhood computed from the API's answer, the legibility of the labels drawn, the
requests a page makes elsewhere, the page's URL query."""

from __future__ import annotations

import urllib.parse
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import ViewerServer, wait_until

LEGIBLE_PX = 10
# a test of the article's root on LadybugDB, then on Neo4j (the fixtures of support/browser.py)
BOTH_STORES = pytest.mark.parametrize("store", ["article_server", "article_neo4j_server"], ids=["ladybug", "neo4j"])


def settled(page: Any) -> None:
    """Wait until no layout is under way (ELK answers from its worker)."""
    wait_until(page, "() => linkgraphWhole.ready && linkgraphWhole.busy === 0")


def keyed(whole: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """The API's nodes by id (as keys: path or missing soname) and its edges as (from, to, status)."""
    keys = {n["id"]: n["path"] or n["label"] for n in whole["nodes"]}
    return keys, [(keys[e["from"]], keys[e["to"]], e["status"]) for e in whole["edges"]]


def neighbourhood(
    whole: dict[str, Any], start: str, hops: int, direction: str, hide: tuple[str, ...] = ()
) -> tuple[list[str], list[list[str]]]:
    """The modules within `hops` edges of `start` and the edges among them (but those of the statuses
    `hide`), from the API's answer; one direction follows no upcall (it is no dependency)."""
    _, edges = keyed(whole)
    edges = [e for e in edges if e[2] not in hide]
    followed = [e for e in edges if direction == "both" or e[2] != "upcall"]
    seen = {start}
    ring = deque([(start, 0)])
    while ring:
        key, depth = ring.popleft()
        if depth == hops:
            continue
        steps = [t for f, t, _ in followed if f == key and direction != "in"]
        steps += [f for f, t, _ in followed if t == key and direction != "out"]
        for step in steps:
            if step not in seen:
                seen.add(step)
                ring.append((step, depth + 1))
    among = sorted([f, t, s] for f, t, s in edges if f in seen and t in seen)
    return sorted(seen), among


def assert_labels_legible(page: Any) -> list[dict[str, Any]]:
    """Every module drawn has its label drawn at LEGIBLE_PX or more, and no two labels overlap."""
    labels = page.evaluate("linkgraphWhole.labels()")
    for label in labels:
        assert label["drawn"] and label["fontPx"] >= LEGIBLE_PX, label
    boxes = [lab["box"] for lab in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a["x2"] <= b["x1"] or b["x2"] <= a["x1"] or a["y2"] <= b["y1"] or b["y2"] <= a["y1"]
            assert apart, ("labels overlap", a, b)
    return labels


def outside_requests(page: Any, server: ViewerServer) -> list[str]:
    """A list that fills with every request the page makes elsewhere than the viewer."""
    seen: list[str] = []
    page.on("request", lambda req: seen.append(req.url) if not req.url.startswith(server.url) else None)
    return seen


def query(page: Any) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)


def _served(root: Path, work: Path, name: str) -> Iterator[ViewerServer]:
    from conftest import linkgraph

    db = work / "graph.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", name, "--quiet", check=False)
    assert proc.returncode in (0, 1), proc.stderr
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


@pytest.fixture(scope="session")
def host_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    """This machine's /usr/bin root (support/hostroot.py), scanned once for every whole-view test."""
    from . import hostroot

    yield from _served(hostroot.cached_host_root(), tmp_path_factory.mktemp("host-serve"), "host-programs")


@pytest.fixture(scope="session")
def dlink_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    """D-Link DIR-880L's root (support/vendor_roots.py), scanned once."""
    from .vendor_roots import extracted_root

    root, _sha = extracted_root("dlink_dir880l")
    yield from _served(root, tmp_path_factory.mktemp("dlink-serve"), "dlink-dir880l")


@pytest.fixture(scope="session")
def xiaomi_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    """Xiaomi Mi Router 4A's root (support/vendor_roots.py; long kernel-module folders), scanned once."""
    from .vendor_roots import extracted_root

    root, _sha = extracted_root("alt_xiaomi_r4a")
    yield from _served(root, tmp_path_factory.mktemp("xiaomi-serve"), "xiaomi-r4a")
