"""The Graph tab on real programs with large link maps: this machine's gdb and curl (a root of the two
and their closure, tests/support/hostroot.py) open readable, centred on the program; and ebtables of
the Freifunk image, whose plugin family libebt_* is one node that unfolds on a double-click.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support import hostroot
from support import qemu_oracle as qo
from support.browser import Pages, ViewerServer, current_params, graph_edges, wait_until
from support.graph_tab import LINES_AT, MIDPOINT, assert_opens_readable, bring_to_middle, open_graph, served

pytestmark = pytest.mark.slow

PROGRAMS = ["/usr/bin/gdb", "/usr/bin/curl"]
EBTABLES = "/usr/sbin/ebtables"


@pytest.fixture(scope="module")
def host_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    yield from served(hostroot.cached_host_root(PROGRAMS), "host-gdb-curl", tmp_path_factory.mktemp("gdb-curl"))


@pytest.fixture(scope="module")
def freifunk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerServer]:
    root = qo.extract_root(qo.firmware_image("ffulm-0.6.5-"), tmp_path_factory.mktemp("ffulm-root"))
    yield from served(root, "ffulm", tmp_path_factory.mktemp("ffulm-serve"))


@pytest.mark.parametrize("program", PROGRAMS)
def test_big_link_maps_open_readable(program: str, host_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, host_server, program, "host-gdb-curl")
    graph, edges = graph_edges(host_server, fw, program)
    assert len(graph["nodes"]) >= 20, len(graph["nodes"])  # a large link map
    assert_opens_readable(page)
    # edges clicked on their middles at the opening zoom: each selects its edge, unless another edge's
    # line runs through the same point (Graphviz bundles the program's edges: then either is right)
    clicked = shared = 0
    for edge in list(edges)[:: max(1, len(edges) // 10)]:
        bring_to_middle(page, edge)
        m = page.evaluate(MIDPOINT, edge)
        point = [round(m["x"]), round(m["y"])]  # a mouse event's clientX and clientY are whole pixels
        lines = set(page.evaluate(LINES_AT, point))
        page.mouse.click(*point)
        if lines <= {edge}:
            clicked += 1
            assert page.get_attribute("#tabpanel-graph .edge-box", "data-edge") == edge, edge
        else:
            shared += 1  # one of them selected, the others offered beside it
            chosen = page.get_attribute("#tabpanel-graph .edge-box", "data-edge")
            offered = page.eval_on_selector_all("#tabpanel-graph .also-edge", "bs => bs.map(b => b.dataset.edge)")
            # the nearest line within 2 px is chosen (at the readable zoom, lines run close): this one offered
            assert edge in {chosen, *offered} and lines <= {chosen, *offered}, (edge, lines, chosen, offered)
    assert clicked >= 5, (clicked, shared)
    watch.assert_clean()


def family_node(page: Any) -> str:
    return page.evaluate("() => document.querySelector('#tabpanel-graph g.node.family')?.id || ''")


def test_plugin_family_is_one_node_that_unfolds(freifunk_server: ViewerServer, pages: Pages) -> None:
    page, watch, fw = open_graph(pages, freifunk_server, EBTABLES, "ffulm")
    whole, _ = graph_edges(freifunk_server, fw, EBTABLES)
    members = sorted(n["path"] for n in whole["nodes"] if (n["path"] or "").startswith("/usr/lib/ebtables/libebt_"))
    assert len(members) >= 4
    shown = freifunk_server.json(f"/api/firmware/{fw}/diagram.json?path={EBTABLES}")
    group = next(n for n in shown["nodes"] if n["kind"] == "group")
    assert sorted(group["members"]) == members and group["label"] == f"libebt_* ({len(members)})"
    assert not {n["path"] for n in shown["nodes"]} & set(members)
    node = family_node(page)
    assert node == group["id"]
    assert f"libebt_* ({len(members)})" in page.text_content(f"#tabpanel-graph g#{node}")
    page.click(f"#tabpanel-graph g#{node}")  # selected: the panel lists the family
    listed = page.eval_on_selector_all("#tabpanel-graph .family-members li", "lis => lis.map(li => li.textContent)")
    assert sorted(listed) == members
    page.dblclick(f"#tabpanel-graph g#{node}")  # unfolded
    wait_until(
        page,
        "() => document.querySelector('#tabpanel-graph')?.dataset.state === 'ready' && "
        "!document.querySelector('#tabpanel-graph g.node.family')",
    )
    drawn = page.eval_on_selector_all("#tabpanel-graph g.node[data-path]", "gs => gs.map(g => g.dataset.path)")
    assert set(members) <= set(drawn)
    assert current_params(page)["expand"] == "libebt_"
    watch.assert_clean()
