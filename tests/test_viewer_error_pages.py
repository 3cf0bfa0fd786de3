"""The viewer's error pages as a person meets them: an unknown firmware id or address answers in
the viewer's own page (not the server's bare one), says what was not found in plain words,
suggests what the store holds, and links home; the API says the same without naming itself."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import linkgraph
from support.host_programs import HOST_PROGRAM, copy_with_libraries


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict]:
    from linkgraph.viewer import create_app

    base = tmp_path_factory.mktemp("errors")
    copy_with_libraries(HOST_PROGRAM, base / "root")
    db = base / "graph.lbdb"
    linkgraph("scan", str(base / "root"), "--db", str(db), "--name", "router-one", "--quiet")
    app = create_app({"LINKGRAPH_DB": str(db), "TESTING": True}).test_client()
    (fw,) = app.get("/api/firmware").get_json()
    return app, fw


@pytest.mark.parametrize("page", ["/fw/{id}/", "/fw/{id}/whole", "/fw/{id}/licences"])
def test_unknown_firmware_page(client: tuple[Any, dict], page: str) -> None:
    app, fw = client
    answer = app.get(page.format(id="router-on"))
    text = answer.get_data(as_text=True)
    assert answer.status_code == 404 and answer.content_type.startswith("text/html")
    assert "no firmware &#39;router-on&#39; in this store; did you mean &#39;router-one (" in text, text
    assert f'href="/fw/{fw["id"]}/"' in text  # the firmware the store holds, each a link
    assert 'href="/">Every firmware in this store</a>' in text  # a way home
    assert "/api/" not in text and "GET " not in text


def test_unknown_address(client: tuple[Any, dict]) -> None:
    app, _ = client
    answer = app.get("/no/such/page")
    text = answer.get_data(as_text=True)
    assert answer.status_code == 404 and "No page of the viewer has this address." in text
    assert 'href="/">Every firmware in this store</a>' in text


def test_api_messages_name_no_api(client: tuple[Any, dict]) -> None:
    app, fw = client
    answer = app.get("/api/firmware/ffff/whole").get_json()
    assert answer["error"].startswith("no firmware 'ffff' in this store") and "/api/" not in answer["error"]
    answer = app.get(f"/api/firmware/{fw['id']}/file", query_string={"path": HOST_PROGRAM + "x"}).get_json()
    assert answer["error"] == f"no ELF file {HOST_PROGRAM + 'x'!r} in this firmware; did you mean {HOST_PROGRAM!r}?"


def test_a_path_not_in_the_image(client: tuple[Any, dict]) -> None:
    """The file page of a path the image lacks: the page itself loads (its panel says the message)."""
    app, fw = client
    assert app.get(f"/fw/{fw['id']}/", query_string={"path": "/bin/nope"}).status_code == 200
