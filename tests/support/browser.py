"""Helpers for the viewer's browser tests: the real ``linkgraph serve`` and a headless Chromium.

* :class:`ViewerServer` runs ``linkgraph serve --db DB`` (or ``--neo4j URI``) as a subprocess on a
  free port, as a user would, and waits until the JSON API answers; its output goes to a log file
  that a failing test shows.
* :func:`launch_chromium` starts Debian's Chromium (``/usr/bin/chromium``, or ``$LINKGRAPH_CHROMIUM``)
  through Playwright with a fresh temporary profile; no browser is ever downloaded. A missing
  Chromium is a test failure, never a skip.
* :class:`PageWatch` records what must never happen on a page: JavaScript dialogs (an injected
  ``alert``), uncaught script errors, failed requests to our own server.
* Screenshots go to ``$LINKGRAPH_TEST_ARTIFACTS`` (default ``tests/artifacts/``).
* The fixtures every ``test_viewer_*`` module shares (registered by conftest.py as a plugin):
  ``browser`` (one Chromium a session), ``pages`` (pages watched and photographed per test), the
  article's root (tests/support/article.py) scanned once with licence overrides, served from
  LadybugDB (``article_server``) and from Neo4j (``article_neo4j_server``), and the helpers the
  modules use on those pages.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph, linkgraph_cmd

TESTS = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 900}
SERVER_START_TIMEOUT = 60.0


def artifacts_dir() -> Path:
    """Where screenshots go: $LINKGRAPH_TEST_ARTIFACTS, default tests/artifacts/ (created)."""
    path = Path(os.environ.get("LINKGRAPH_TEST_ARTIFACTS") or TESTS / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of the page as a test artifact; returns its path."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:120] or "page"
    out = artifacts_dir() / f"{safe}.png"
    page.screenshot(path=str(out), full_page=False)
    return out


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- the server


class ViewerServer:
    """``linkgraph serve STORE --host 127.0.0.1 --port PORT`` in a subprocess; a context manager."""

    def __init__(self, store: list[str], log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.store = store
        self.env = env or {}
        self.log_path = Path(log_dir) / "serve.log"
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-6000:]
        except OSError:
            return ""

    def start(self) -> ViewerServer:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        environ.update(self.env)
        for _attempt in range(3):  # the free port may be taken between bind and listen: retry
            self.port = free_port()
            cmd = [*linkgraph_cmd(), "serve", *self.store, "--host", "127.0.0.1", "--port", str(self.port)]
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    cmd, stdout=log, stderr=subprocess.STDOUT, env=environ, start_new_session=True
                )
            if self._wait_ready():
                return self
            self.stop()
        raise AssertionError(f"linkgraph serve did not answer on GET /api/firmware:\n{self.log()}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"{self.url}/api/firmware", timeout=5) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        return False

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def __enter__(self) -> ViewerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def get(self, path: str) -> tuple[int, str, bytes]:
        """GET from the server: (status, content type, body)."""
        try:
            with urllib.request.urlopen(f"{self.url}{path}", timeout=60) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.headers.get("Content-Type", ""), err.read()

    def headers(self, path: str) -> dict[str, str]:
        """The response headers of a GET."""
        with urllib.request.urlopen(f"{self.url}{path}", timeout=60) as response:
            return dict(response.headers.items())

    def json(self, path: str) -> Any:
        status, ctype, body = self.get(path)
        assert status == 200, f"GET {path}: {status} {body[:500]!r}"
        assert ctype.startswith("application/json"), ctype
        return json.loads(body)

    def firmware_id(self, name: str | None = None) -> str:
        rows = self.json("/api/firmware")
        if name is not None:
            rows = [r for r in rows if r["name"] == name]
        assert len(rows) == 1, rows
        return rows[0]["id"]


# --------------------------------------------------------------------------- the browser


def chromium_path() -> str:
    """Debian's Chromium; a missing one fails the test (install the Debian package ``chromium``)."""
    path = os.environ.get("LINKGRAPH_CHROMIUM") or (CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"))
    if not path or not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise AssertionError(
            f"Chromium not found at {path or CHROMIUM} (apt-get install chromium, "
            "or set LINKGRAPH_CHROMIUM to its path)"
        )
    return path


@dataclass
class Browser:
    """A Playwright-driven Chromium with one persistent context on a temporary profile."""

    playwright: Any
    context: Any
    profile: tempfile.TemporaryDirectory

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self.playwright.stop()
            self.profile.cleanup()


def launch_chromium() -> Browser:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # a test dependency: its absence is a failure
        raise AssertionError("the Python package playwright is not installed (pip install -e '.[test]')") from exc
    executable = chromium_path()
    profile = tempfile.TemporaryDirectory(prefix="linkgraph-chromium-")
    playwright = sync_playwright().start()
    try:
        context = playwright.chromium.launch_persistent_context(
            profile.name,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=VIEWPORT,
            accept_downloads=False,
            service_workers="block",
        )
    except Exception:
        playwright.stop()
        profile.cleanup()
        raise
    context.set_default_timeout(30_000)
    return Browser(playwright, context, profile)


@dataclass
class PageWatch:
    """What went wrong on a page: dialogs opened, script errors, our requests that failed."""

    base_url: str
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        def on_dialog(dialog: Any) -> None:
            self.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        page.on("dialog", on_dialog)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", self._console)
        page.on(
            "requestfailed",
            lambda req: self.failed.append(f"{req.url}: {req.failure}") if req.url.startswith(self.base_url) else None,
        )
        page.on(
            "response",
            lambda resp: (
                self.failed.append(f"{resp.url}: {resp.status}")
                if resp.url.startswith(self.base_url) and resp.status >= 400
                else None
            ),
        )

    def _console(self, msg: Any) -> None:
        self.console.append(f"{msg.type}: {msg.text}")
        if "Content Security Policy" in msg.text:  # our own page broke its own policy
            self.errors.append(msg.text)

    def assert_clean(self) -> None:
        assert not self.dialogs, f"a JavaScript dialog opened (injected script ran?): {self.dialogs}"
        assert not self.errors, f"script errors on the page: {self.errors}\nconsole: {self.console}"
        assert not self.failed, f"requests to the viewer failed: {self.failed}"


def wait_until(page: Any, script: str, arg: Any = None, timeout: float = 30.0) -> Any:
    """Poll ``page.evaluate(script, arg)`` (a JS function) until it answers something true.

    (Playwright's wait_for_function evaluates strings inside the page, which the viewer's
    Content-Security-Policy forbids; page.evaluate goes through the DevTools protocol.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {script} ({arg!r})")
        page.wait_for_timeout(50)


def wait_ready(page: Any, timeout: float = 60.0) -> None:
    """Wait until the page's script says it is interactive (document.body.dataset.ready == '1')."""
    wait_until(page, "() => document.body && document.body.dataset.ready", timeout=timeout)
    state = page.evaluate("document.body.dataset.ready")
    assert state == "1", f"the page did not become ready: {state!r}: {page.inner_text('body')[:2000]}"


def svg_point(page: Any, selector: str, fraction: float = 0.5) -> tuple[float, float]:
    """Page coordinates of the point at *fraction* of the length of the first SVG path under *selector*."""
    return tuple(
        page.evaluate(
            """([selector, fraction]) => {
        const path = document.querySelector(selector);
        if (!path) throw new Error("no element " + selector);
        path.closest("g").scrollIntoView({block: "center", inline: "center"});
        const p = path.getPointAtLength(path.getTotalLength() * fraction);
        const m = path.getScreenCTM();
        return [p.x * m.a + p.y * m.c + m.e, p.x * m.b + p.y * m.d + m.f];
    }""",
            [selector, fraction],
        )
    )


def parse_rgb(css: str) -> tuple[int, int, int]:
    """'rgb(200, 32, 30)' -> (200, 32, 30)."""
    m = re.match(r"rgba?\((\d+),\s*(\d+),\s*(\d+)", css)
    assert m, f"not an rgb() colour: {css!r}"
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


# --------------------------------------------------------------------------- the article fixture

BUSYBOX, UTIL, NVRAM, APCFG, APLOG = (
    "/bin/busybox",
    "/lib/libutility.so",
    "/lib/libnvram.so",
    "/lib/libapcfg.so",
    "/lib/libaplog.so",
)
CRYPT, GCC_S = "/lib/libcrypt.so.0", "/lib/libgcc_s.so.1"
LIBC, LDSO = "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
ARTICLE_NAME = "tew-636apb-browser"
# docs/licences.md "Overrides": the two runtime libraries get a licence; the four vendor libraries stay
# unknown; busybox is GPL-2.0-only from the knowledge base
# the sections of the Licences page in their order: the findings by letter, then To review and the summary
LICENCES_ORDER = [
    "gpl_used_by",
    "gpl_uses",
    "declared_only",
    "lgpl_used",
    "kernel_gpl_only",
    "gpl_contained",
    "lgpl_static",
    "to-review",
    "summary",
]
ARTICLE_LICENCES = {CRYPT: "LGPL-2.1-or-later", GCC_S: "GPL-3.0-or-later WITH GCC-exception-3.1"}


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Chromium (Debian's, never downloaded) with a fresh profile; missing Chromium fails."""
    b = launch_chromium()
    try:
        yield b
    finally:
        b.close()


class Pages:
    """Opens pages on a viewer; each page is watched (dialogs, script errors, failed requests) and
    photographed when the test ends."""

    def __init__(self, browser: Browser, name: str) -> None:
        self.browser = browser
        self.name = name
        self.opened: list[tuple[Any, PageWatch]] = []

    def open(self, server: ViewerServer, path: str, ready: bool = True) -> tuple[Any, PageWatch]:
        page = self.browser.context.new_page()
        watch = PageWatch(server.url)
        watch.attach(page)
        self.opened.append((page, watch))
        page.goto(server.url + path)
        if ready:
            wait_ready(page)
        return page, watch

    def close(self) -> None:
        for i, (page, _) in enumerate(self.opened):
            try:
                screenshot(page, f"{self.name}-{i}")
            finally:
                page.close()


@pytest.fixture
def pages(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Pages]:
    p = Pages(browser, request.node.name)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture(scope="session")
def article_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from .article import build_article_root

    return build_article_root(tmp_path_factory.mktemp("article-browser") / "root").path


@pytest.fixture(scope="session")
def article_overrides(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``--licences`` file of the article scans: a YAML mapping path glob -> SPDX expression."""
    path = tmp_path_factory.mktemp("article-licences") / "overrides.yaml"
    path.write_text(
        "# the runtime libraries of the article root\n"
        + "".join(f'"{glob}": "{spdx}"\n' for glob, spdx in ARTICLE_LICENCES.items())
    )
    return path


@pytest.fixture(scope="session")
def article_server(
    article_root: Path, article_overrides: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ViewerServer]:
    """The article root scanned (with the licence overrides) into LadybugDB, served."""
    work = tmp_path_factory.mktemp("article-serve")
    db = work / "graph.lbdb"
    scan_into(db, article_root, ARTICLE_NAME, article_overrides)
    with ViewerServer(["--db", str(db)], work) as server:
        yield server


def scan_into(db: Path, root: Path, name: str, overrides: Path) -> None:
    """``linkgraph scan ROOT --db DB --name NAME --licences OVERRIDES``, which must succeed."""
    proc = linkgraph("scan", str(root), "--db", str(db), "--name", name, "--licences", str(overrides), "--quiet")
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="session")
def article_neo4j_server(
    article_root: Path, article_overrides: Path, neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ViewerServer]:
    """The same scan into the test suite's Neo4j server, served from there (other firmware may share it)."""
    env = {"NEO4J_USER": neo4j_server.user, "NEO4J_PASSWORD": neo4j_server.password}
    proc = linkgraph(
        "scan",
        str(article_root),
        "--neo4j",
        neo4j_server.uri,
        "--name",
        ARTICLE_NAME,
        "--licences",
        str(article_overrides),
        "--quiet",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    with ViewerServer(["--neo4j", neo4j_server.uri], tmp_path_factory.mktemp("article-neo4j-serve"), env=env) as server:
        yield server


# --------------------------------------------------------------------------- page helpers


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def current_params(page: Any) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def open_tab(page: Any, tab: str) -> None:
    page.click(f"#tab-{tab}")
    assert page.get_attribute(f"#tab-{tab}", "aria-selected") == "true"
    if tab == "graph":
        page.wait_for_selector("#tabpanel-graph[data-state='ready']")


def graph_edges(server: ViewerServer, fw: str, path: str) -> tuple[dict[str, Any], dict[str, tuple]]:
    """The graph JSON and its edges by id as (from path, to path or soname, status, symbols)."""
    graph = server.json(f"/api/firmware/{fw}/graph?path={q(path)}")
    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = {
        e["id"]: (
            nodes[e["from"]]["path"],
            nodes[e["to"]]["path"] or nodes[e["to"]]["label"],
            e["status"],
            tuple(e["symbols"]),
        )
        for e in graph["edges"]
    }
    return graph, edges


def drawn_edges(page: Any) -> list[dict[str, Any]]:
    """The edges of the Graph tab as drawn: id, class, stroke colour and dashes, label text."""
    return page.evaluate("""() => [...document.querySelectorAll('#tabpanel-graph g.edge[data-status]')].map(g => {
        const path = g.querySelector('path:not(.hit)');
        const style = getComputedStyle(path);
        return {id: g.id, cls: g.getAttribute('class'), status: g.dataset.status, stroke: style.stroke,
                dash: style.strokeDasharray, label: [...g.querySelectorAll('text')].map(t => t.textContent).join(' ')};
    })""")


def assert_no_markup_elements(page: Any) -> None:
    """Nothing from the data became an element or an event handler."""
    found = page.evaluate("""() => {
        const out = [];
        for (const node of document.querySelectorAll('*')) {
            const tag = node.localName;
            if (['img', 'iframe', 'object', 'embed', 'foreignobject'].includes(tag)) out.push(tag);
            if (tag === 'script' && !(node.getAttribute('src') || '').startsWith('/static/')) out.push('inline script');
            for (const attr of node.attributes) if (attr.name.startsWith('on')) out.push(tag + ' ' + attr.name);
        }
        return out;
    }""")
    assert found == [], f"markup from the data reached the DOM: {found}"
