"""The whole-firmware view's state in its URL, in a real browser, on the article's root with licence
overrides (tests/support/browser.py), on LadybugDB and on Neo4j: a fresh page on the URL shows the
same view, Back and Forward walk through every change; a filter clears the selection it hides; one
click selects, a double click opens a module's page; no request leaves the viewer.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from support import whole_view as view
from support.browser import APCFG, ARTICLE_NAME, BUSYBOX, UTIL, Pages, ViewerServer, wait_until

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


@view.BOTH_STORES
def test_the_view_is_in_the_url_and_back_walks_through_it(
    store: str, request: pytest.FixtureRequest, pages: Pages
) -> None:
    article: ViewerServer = request.getfixturevalue(store)
    fw = article.firmware_id(ARTICLE_NAME)
    whole = article.json(f"/api/firmware/{fw}/whole")
    page, watch = pages.open(article, f"/fw/{fw}/whole?modules=1")  # every module
    outside = view.outside_requests(page, article)
    read = """() => ({url: location.search, mode: linkgraphWhole.mode(), focus: linkgraphWhole.focused(),
        selected: linkgraphWhole.selected(), edge: linkgraphWhole.selectedEdge(), keys: linkgraphWhole.visibleKeys(),
        edges: linkgraphWhole.visibleEdgeList(), group: document.getElementById('whole-group').value,
        hops: document.getElementById('whole-hops').value})"""
    states = [page.evaluate(read)]
    page.select_option("#whole-group", "package")
    view.settled(page)
    states.append(page.evaluate(read))
    page.uncheck("#whole-status input[value='declared-unused']")
    states.append(page.evaluate(read))
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(BUSYBOX)})")
    states.append(page.evaluate(read))
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(APCFG)})")
    states.append(page.evaluate(read))
    page.click("#whole-focus-here")
    view.settled(page)
    states.append(page.evaluate(read))
    shown, among = view.neighbourhood(whole, APCFG, 1, "both", hide=("declared-unused",))
    assert states[-1]["mode"] == "focus" and states[-1]["keys"] == shown and states[-1]["edges"] == among
    view.assert_labels_legible(page)
    page.fill("#whole-hops", "2")
    page.dispatch_event("#whole-hops", "change")
    view.settled(page)
    states.append(page.evaluate(read))
    shown, among = view.neighbourhood(whole, APCFG, 2, "both", hide=("declared-unused",))
    assert states[-1]["hops"] == "2" and states[-1]["keys"] == shown and states[-1]["edges"] == among
    assert len({json.dumps(s, sort_keys=True) for s in states}) == len(states), "each step changes the view"
    # the URL says it all: a fresh page on it shows the same view
    url = urllib.parse.urlsplit(page.url)
    assert view.query(page) == {
        "group": ["package"],
        "hide-status": ["declared-unused"],
        "focus": [APCFG],
        "hops": ["2"],
        "modules": ["1"],
        "select": [APCFG],
    }, url.query
    other, watch2 = pages.open(article, f"{url.path}?{url.query}")
    view.settled(other)
    assert other.evaluate(read) == states[-1]
    # Back steps through every state, Forward comes back
    for want in reversed(states[:-1]):
        page.go_back()
        wait_until(page, "url => location.search === url", want["url"])
        view.settled(page)
        assert page.evaluate(read) == want
    for want in states[1:]:
        page.go_forward()
        wait_until(page, "url => location.search === url", want["url"])
        view.settled(page)
        assert page.evaluate(read) == want
    assert outside == [], outside
    watch.assert_clean()
    watch2.assert_clean()


@view.BOTH_STORES
def test_a_filter_clears_the_selection_it_hides_and_a_double_click_opens(
    store: str, request: pytest.FixtureRequest, pages: Pages
) -> None:
    article: ViewerServer = request.getfixturevalue(store)
    fw = article.firmware_id(ARTICLE_NAME)
    page, watch = pages.open(article, f"/fw/{fw}/whole?modules=1")  # every module
    whole = article.json(f"/api/firmware/{fw}/whole")
    _, edges = view.keyed(whole)
    (status,) = [s for f, t, s in edges if f == APCFG and t == UTIL]
    canvas = page.locator("#whole-canvas").bounding_box()
    # an edge selected by a click on its middle, then hidden by its status' filter
    pos = page.evaluate(f"linkgraphWhole.edgePosition({json.dumps(APCFG)}, {json.dumps(UTIL)})")
    page.mouse.click(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    page.wait_for_selector("#whole-info .edge-symbols[data-state='ready']")
    assert page.evaluate("linkgraphWhole.selectedEdge()") == [APCFG, UTIL]
    assert view.query(page)["edge-from"] == [APCFG]
    page.uncheck(f"#whole-status input[value='{status}']")
    assert page.evaluate("linkgraphWhole.selectedEdge()") is None
    assert page.get_attribute("#whole-info", "data-edge") is None and "edge-from" not in view.query(page)
    assert page.evaluate("linkgraphWhole.highlighted()") == {"focus": None, "nodes": [], "edges": 0}
    page.check(f"#whole-status input[value='{status}']")
    # a module selected, then hidden by its kind's filter
    assert page.evaluate(f"linkgraphWhole.select({json.dumps(BUSYBOX)})")
    page.uncheck("#whole-kind input[value='executable']")
    assert page.evaluate("linkgraphWhole.selected()") is None and page.get_attribute("#whole-info", "data-node") is None
    page.check("#whole-kind input[value='executable']")
    # one click selects, a double click opens the module's page
    pos = page.evaluate(f"linkgraphWhole.nodePosition({json.dumps(UTIL)})")
    page.mouse.click(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    assert page.evaluate("linkgraphWhole.selected()") == UTIL
    with page.expect_navigation():
        page.mouse.dblclick(canvas["x"] + pos["x"], canvas["y"] + pos["y"])
    assert urllib.parse.urlsplit(page.url).path == f"/fw/{fw}/"
    assert view.query(page)["path"] == [UTIL]
    watch.assert_clean()
