"""Headers every viewer response carries, and the Host allow-list against DNS rebinding.

Through Flask's test client on the article fixture in a real LadybugDB (the fixtures of
tests/support/viewer_client.py), and once through the real ``linkgraph serve`` with a raw HTTP request.
"""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import Any

import pytest
from linkgraph.viewer import create_app
from support.article import BUSYBOX
from support.browser import ViewerServer

NOSNIFF = ("X-Content-Type-Options", "nosniff")


def _nosniff(response: Any) -> None:
    assert response.headers.get(NOSNIFF[0]) == NOSNIFF[1], (response.status_code, dict(response.headers))


@pytest.mark.parametrize(
    ("what", "path", "status", "mimetype"),
    [
        ("page", "/fw/{fw}/", 200, "text/html"),
        ("redirect", "/", 302, "text/html"),
        ("api json", "/api/firmware/{fw}/tree", 200, "application/json"),
        ("static script", "/static/common.js", 200, "text/javascript"),
        ("static style", "/static/style.css", 200, "text/css"),
        ("generated script", "/static/vocabulary.js", 200, "text/javascript"),
        ("generated style", "/static/vocabulary.css", 200, "text/css"),
        ("csv export", "/api/firmware/{fw}/analysis.csv?path=" + BUSYBOX, 200, "text/csv"),
        ("svg export", "/api/firmware/{fw}/diagram.svg?path=" + BUSYBOX, 200, "image/svg+xml"),
        ("png export", "/api/firmware/{fw}/diagram.png?path=" + BUSYBOX, 200, "image/png"),
        ("api 404", "/api/firmware/{fw}/file?path=/no/such/file", 404, "application/json"),
        ("page 404", "/no/such/page", 404, "text/html"),
        ("static 404", "/static/nothing.js", 404, "text/html"),
        ("api 400", "/api/firmware/{fw}/file", 400, "application/json"),
    ],
)
def test_every_response_is_nosniff(client: Any, fw: str, what: str, path: str, status: int, mimetype: str) -> None:
    response = client.get(path.format(fw=fw))
    assert response.status_code == status, what
    assert response.mimetype == mimetype, what
    _nosniff(response)


def test_a_405_is_nosniff(client: Any) -> None:
    response = client.post("/api/firmware")
    assert response.status_code == 405
    _nosniff(response)


def test_a_500_is_nosniff(article_db: Path) -> None:
    """An unexpected exception in a view (not TESTING: the error handler answers it) is nosniff too."""
    app = create_app({"LINKGRAPH_DB": str(article_db)})

    @app.get("/api/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    response = app.test_client().get("/api/boom")
    assert response.status_code == 500
    _nosniff(response)


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:8750",
        "LOCALHOST:8750",
        "127.0.0.1",
        "127.0.0.1:8750",
        "127.1.2.3:9",
        "[::1]",
        "[::1]:8750",
        "::1",
        "[0:0:0:0:0:0:0:1]:8750",
    ],
)
def test_loopback_hosts_are_served(client: Any, host: str) -> None:
    response = client.get("/api/firmware", headers={"Host": host})
    assert response.status_code == 200, host
    _nosniff(response)


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8750",
        "localhost.evil.example",
        "127.0.0.1.evil.example",
        "127.1",
        "0.0.0.0",
        "192.0.2.10:8750",
        "[::2]:8750",
        "localhost:99999",
        "localhost:x",
        "local host",
        "",
        "[::1",
        "[evil]:8750",
    ],
)
def test_other_hosts_get_400(client: Any, fw: str, host: str) -> None:
    for path in ("/api/firmware", f"/fw/{fw}/", "/static/common.js", "/no/such/page"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400, (host, path)
        assert response.mimetype == "text/plain", (host, path)
        text = response.get_data(as_text=True)
        assert text.count("\n") == 1 and text.endswith("\n") and "not served here" in text, text
        _nosniff(response)


def test_the_serve_address_is_served(article_db: Path) -> None:
    """``linkgraph serve --host 192.0.2.10 --port 8750`` allows that address (with or without its port)."""
    app = create_app({"LINKGRAPH_DB": str(article_db), "TESTING": True, "LINKGRAPH_ALLOWED_HOSTS": ["192.0.2.10:8750"]})
    with app.test_client() as other:
        for host in ("192.0.2.10:8750", "192.0.2.10", "localhost:8750"):
            assert other.get("/api/firmware", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", "evil.example:8750", "192.0.2.10:8751", "192.0.2.11:8750"):
            response = other.get("/api/firmware", headers={"Host": host})
            assert response.status_code == 400, host
            _nosniff(response)


def test_an_ipv6_serve_address_is_served(article_db: Path) -> None:
    app = create_app(
        {"LINKGRAPH_DB": str(article_db), "TESTING": True, "LINKGRAPH_ALLOWED_HOSTS": ["[2001:db8::a]:8750"]}
    )
    with app.test_client() as other:
        for host in ("[2001:db8::a]:8750", "[2001:DB8:0::A]"):
            assert other.get("/api/firmware", headers={"Host": host}).status_code == 200, host
        assert other.get("/api/firmware", headers={"Host": "[2001:db8::b]:8750"}).status_code == 400


def test_real_serve_refuses_a_foreign_host(article_server: ViewerServer) -> None:
    """The real ``linkgraph serve`` on 127.0.0.1, asked with a raw request naming another host."""

    def ask(host: str) -> tuple[int, str, str, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", article_server.port, timeout=30)
        try:
            conn.request("GET", "/api/firmware", headers={"Host": host})
            response = conn.getresponse()
            return (
                response.status,
                response.getheader("Content-Type", ""),
                response.getheader("X-Content-Type-Options", ""),
                response.read(),
            )
        finally:
            conn.close()

    status, ctype, nosniff, body = ask("evil.example")
    assert (status, ctype.split(";")[0], nosniff) == (400, "text/plain", "nosniff"), body
    assert b"evil.example" in body and body.count(b"\n") == 1
    status, ctype, nosniff, _ = ask(f"127.0.0.1:{article_server.port}")
    assert (status, ctype, nosniff) == (200, "application/json", "nosniff")
