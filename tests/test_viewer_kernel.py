"""Kernel modules' links and dlopen edges in the viewer, in a real browser, on both stores.

The root holds Debian's crypto modules of linux-image 6.1.0-50-amd64 with the build's
``Module.symvers`` (tests/support/kernel_debs.py), a proprietary module compiled by Debian's kbuild
that uses one GPL-only export (modpost, the build's own judge, refuses it for exactly that symbol),
a gcc-built module binding to cryptd without naming it and naming one module it does not use and
one that does not exist (hidden, declared-unused, missing), and the gcc-built dlopen programs of
tests/test_dlopen.py (a program that dlopens a plugin by name and others through a pattern).

* The Licences page's section (e) lists exactly what ``linkgraph query kernel-gpl-only-used``
  answers: the proprietary module, its ``license=``, the kernel, ``kfree_strarray``.
* A kernel module's ELF analysis lists its links both ways as ``kernel-links`` has them, every
  GPL-only symbol marked; its Overview counts them.
* The whole-firmware view draws every ``kernel-links`` edge (to modules, to missing modules, to the
  kernel) and every ``dlopen-edges`` edge, the latter in their own style, counted apart; an edge's
  panel lists its symbols with their GPL-only marks.
* On the LEDE image every kernel link is drawn too, and finding (e) is empty (every module is GPL).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.loader.report.licence_coverage import KERNEL_NO_FINDING
from support.browser import (
    LICENCES_ORDER,
    Pages,
    ViewerServer,
    assert_no_markup_elements,
    drawn_edges,
    graph_edges,
    open_tab,
    q,
    wait_until,
)
from support.fixture_root import GCC, Root
from support.images import LEDE
from support.kernel_debs import GPL_ONLY_USED, MODPOST_REFUSAL, build_proprietary_module, kernel_root

pytestmark = pytest.mark.slow  # Debian's kernel packages, kbuild, gcc, two stores

NAME = "kernel-and-dlopen"
APP, PLUGINS = "/usr/lib/app", "/usr/lib/plugins"
HOST = "/usr/bin/host"
PROBE_SOURCE = """\
extern void *cryptd_alloc_aead(const char *, unsigned int, unsigned int);
void *probe(void) { return cryptd_alloc_aead("x", 0, 0); }
static const char l[] __attribute__((section(".modinfo"), used)) = "license=GPL";
static const char d[] __attribute__((section(".modinfo"), used)) = "depends=twofish_common,no-such-module";
"""


@pytest.fixture(scope="module")
def mixed_root(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The root described above; the release and the two modules' device paths."""
    work = tmp_path_factory.mktemp("viewer-kernel")
    root = Root(work / "root")
    root.install_glibc()
    helper = root.lib(f"{APP}/libhelper.so", ["dlopen/helper.c"])
    dep = root.lib(f"{APP}/libplugdep.so", ["dlopen/plugdep.c"])
    root.lib(f"{APP}/libplug_alpha.so", ["dlopen/plug_alpha.c"], needs=[dep])
    root.lib(f"{PLUGINS}/mod_beta.so", ["dlopen/mod.c"])
    root.lib(f"{PLUGINS}/mod_gamma.so", ["dlopen/mod.c"])
    root.lib(f"{APP}/libfeature.so.1", ["dlopen/feature.c"])
    noted = root.lib(f"{APP}/libnoted.so", ["dlopen/noted.c"])
    root.exe(HOST, ["dlopen/host.c"], needs=[helper, noted])
    root.write("/etc/ld.so.conf", APP + "\n")
    root.ldconfig()

    debs = kernel_root()
    ko, modpost = build_proprietary_module(debs, work / "build")
    assert MODPOST_REFUSAL in modpost  # the build's own judge: exactly this GPL-only symbol
    (work / "probe.c").write_text(PROBE_SOURCE)
    probe = work / "probe.ko"
    subprocess.run([GCC, "-c", "-O1", "-fno-pic", "-o", str(probe), str(work / "probe.c")], check=True)
    crypto = sorted((debs.modules / "kernel" / "crypto").glob("*.ko"))
    modules = {f"kernel/crypto/{f.name}": f for f in crypto} | {"extra/prop.ko": ko, "extra/probe.ko": probe}
    base = root.path / "lib" / "modules" / debs.release
    for rel, file in modules.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, base / rel)
    symvers = root.path / debs.symvers.relative_to(debs.root)
    symvers.parent.mkdir(parents=True)
    shutil.copyfile(debs.symvers, symvers)
    device = f"/lib/modules/{debs.release}"
    return {"root": root.path, "prop": f"{device}/extra/prop.ko", "probe": f"{device}/extra/probe.ko", "base": device}


class Store:
    """One store holding the scan, its viewer, and the CLI's answers to the named queries."""

    def __init__(self, server: ViewerServer, which: list[str], env: dict[str, str], name: str = NAME) -> None:
        self.server = server
        self.which = which
        self.env = env
        self.name = name
        self.fw = server.firmware_id(name)

    def query(self, name: str, *params: str) -> list[dict[str, Any]]:
        args = [a for p in params for a in ("--param", p)]
        proc = linkgraph("query", name, *self.which, "--firmware", self.name, *args, "--json", env=self.env)
        return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def ladybug(mixed_root: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    work = tmp_path_factory.mktemp("viewer-kernel-lbdb")
    db = ["--db", str(work / "graph.lbdb")]
    assert linkgraph("scan", str(mixed_root["root"]), *db, "--name", NAME, "--quiet").returncode == 0
    with ViewerServer(db, work) as server:
        yield Store(server, db, {})


@pytest.fixture(scope="module")
def neo4j(mixed_root: dict[str, Any], neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    env = {"NEO4J_USER": neo4j_server.user, "NEO4J_PASSWORD": neo4j_server.password}
    store = ["--neo4j", neo4j_server.uri]  # the session's server holds other tests' firmware too
    scan = linkgraph("scan", str(mixed_root["root"]), *store, "--name", NAME, "--quiet", env=env)
    assert scan.returncode == 0
    with ViewerServer(store, tmp_path_factory.mktemp("viewer-kernel-neo4j"), env=env) as server:
        yield Store(server, store, env)


@pytest.fixture(params=["ladybug", "neo4j"])
def store(request: pytest.FixtureRequest) -> Store:
    return request.getfixturevalue(request.param)


SECTION_ROWS = """sel => [...document.querySelectorAll(sel)].map(tr => ({
    data: {...tr.dataset},
    cells: [...tr.children].map(td => td.innerText),
    links: [...tr.querySelectorAll('a.file-link')].map(a => a.dataset.path),
    licence: [...tr.querySelectorAll('.licence')].map(l => [l.dataset.licence, l.dataset.licenceClass]),
    symbols: [...tr.querySelectorAll('ul.symbol-list li code')].map(c => c.textContent),
    marked: [...tr.querySelectorAll('ul.symbol-list li.marked code')].map(c => c.textContent),
}))"""


def test_licences_page_lists_the_kernel_gpl_only_finding(
    store: Store, mixed_root: dict[str, Any], pages: Pages
) -> None:
    answer = store.query("kernel-gpl-only-used")
    prop = mixed_root["prop"]
    assert answer == [{"module": prop, "licence": "Proprietary", "provider": "vmlinux", "symbols": [GPL_ONLY_USED]}]
    api = store.server.json(f"/api/firmware/{store.fw}/licences")
    assert [(r["module"], r["licence"], r["provider"], r["symbols"]) for r in api["kernel_gpl_only"]] == [
        (r["module"], r["licence"], r["provider"], r["symbols"]) for r in answer
    ]
    assert api["summary"]["findings"]["kernel_gpl_only"] == 1
    page, watch = pages.open(store.server, f"/fw/{store.fw}/licences")
    sections = page.eval_on_selector_all("#licences section.finding", "ss => ss.map(s => s.dataset.finding)")
    assert sections == LICENCES_ORDER
    head = page.inner_text("section[data-finding='kernel_gpl_only'] h2")
    assert head.startswith("(e) Kernel modules") and head.endswith("(1 use in 1 provider)"), head
    group = page.locator("section[data-finding='kernel_gpl_only'] details.finding-group")  # grouped by provider
    assert group.evaluate_all("ds => ds.map(d => [d.dataset.group, d.open])") == [["vmlinux", True]]
    rows = page.evaluate(SECTION_ROWS, "section[data-finding='kernel_gpl_only'] tbody tr")
    shown = [(r["data"]["module"], r["licence"][0][0], r["data"]["provider"], r["symbols"]) for r in rows]
    assert shown == [(r["module"], r["licence"], r["provider"], r["symbols"]) for r in answer]
    assert rows[0]["marked"] == [GPL_ONLY_USED] and rows[0]["links"] == [prop]
    assert rows[0]["licence"] == [["Proprietary", "incompatible"]]
    counts = page.eval_on_selector_all(
        "section[data-finding='summary'] .finding-counts li",
        "lis => lis.map(li => [li.dataset.finding, li.textContent.split(': ').pop()])",
    )
    assert dict(counts)["kernel_gpl_only"] == "1"
    assert_no_markup_elements(page)
    watch.assert_clean()


def _as_shown(link: dict[str, Any], other: str) -> tuple:
    return (link[other], link["state"], sorted(link["symbols"]), sorted(link["gpl_only"]))


def _closure(links: list[dict[str, Any]], start: str) -> set[tuple[str, str, str]]:
    """The kernel links from ``start``, and from every module they reach: (from, to, state)."""
    out: set[tuple[str, str, str]] = set()
    frontier, seen = [start], {start}
    while frontier:
        module = frontier.pop()
        for r in links:
            if r["module"] == module:
                out.add((module, r["target"], r["state"]))
                if r["target"].startswith("/") and r["target"] not in seen:
                    seen.add(r["target"])
                    frontier.append(r["target"])
    return out


def test_a_kernel_module_shows_its_links_with_gpl_only_marks(
    store: Store, mixed_root: dict[str, Any], pages: Pages
) -> None:
    links = store.query("kernel-links")
    for module in (mixed_root["prop"], mixed_root["probe"], f"{mixed_root['base']}/kernel/crypto/cryptd.ko"):
        wanted_out = sorted(
            (r["target"], r["state"], sorted(r["symbols"]), sorted(r["gpl_only"]))
            for r in links
            if r["module"] == module
        )
        wanted_in = sorted(
            (r["module"], r["state"], sorted(r["symbols"]), sorted(r["gpl_only"]))
            for r in links
            if r["target"] == module
        )
        page, watch = pages.open(store.server, f"/fw/{store.fw}/?path={q(module)}")
        page.wait_for_selector("#panel[data-state='ready']")
        summary = page.inner_text("#tabpanel-overview .kernel-summary")
        assert summary.startswith(f"{len(wanted_out)} kernel link"), summary
        open_tab(page, "analysis")
        for key, wanted in (("kernel_links", wanted_out), ("kernel_used_by", wanted_in)):
            sel = f"#tabpanel-analysis section[data-section='{key}']"
            page.eval_on_selector_all(f"{sel} details.symbols", "ds => ds.forEach(d => { d.open = true; })")
            rows = page.evaluate(SECTION_ROWS, f"{sel} tbody tr")
            shown = sorted(
                (
                    r["links"][0] if r["links"] else r["cells"][0].split(" (")[0],
                    r["cells"][1],
                    r["symbols"],
                    r["marked"],
                )
                for r in rows
            )
            assert shown == wanted, (module, key, shown, wanted)
            assert f"({len(wanted)})" in page.inner_text(f"{sel} h2")
        # the Graph tab draws its links, transitively, as kernel-links has them
        open_tab(page, "graph")
        graph, named = graph_edges(store.server, store.fw, module)
        drawn = {named[e["id"]][:3] for e in drawn_edges(page)}
        assert drawn == _closure(links, module), (module, drawn)
        assert len(drawn) == len(graph["edges"])
        watch.assert_clean()
    states = Counter(r["state"].replace("-", "_") for r in links if r["module"] == mixed_root["probe"])
    assert states == {"hidden": 1, "declared_unused": 1, "missing": 1}
    # the tree flags the module with them, and its status filter finds it
    tree = store.server.json(f"/api/firmware/{store.fw}/tree")
    (entry,) = [e for e in tree["entries"] if e["path"] == mixed_root["probe"]]
    assert {k: v for k, v in entry["flags"].items() if v} == states
    page, watch = pages.open(store.server, f"/fw/{store.fw}/")
    shown = page.eval_on_selector_all(
        f"#tree a.entry[data-path='{mixed_root['probe']}'] .flag", "fs => fs.map(f => f.className)"
    )
    assert sorted(shown) == [f"flag flag-{k}" for k in sorted(states)]
    watch.assert_clean()


def test_the_whole_view_draws_kernel_and_dlopen_edges(store: Store, mixed_root: dict[str, Any], pages: Pages) -> None:
    kernel = store.query("kernel-links")
    dlopen = store.query("dlopen-edges")
    elf = store.query("dependency-edges")
    assert len(kernel) > 50 and len(dlopen) >= 3
    page, watch = pages.open(store.server, f"/fw/{store.fw}/whole?modules=1")
    page.evaluate("linkgraphWhole.fit()")
    visible = page.evaluate("linkgraphWhole.visibleLinks()")
    assert visible["kernel"] == dict(Counter(r["state"] for r in kernel))
    assert visible["dlopen"] == {"dlopen": len(dlopen)}
    assert visible["elf"] == dict(Counter(r["status"] for r in elf))
    assert page.evaluate("linkgraphWhole.drawnEdges()") == len(kernel) + len(dlopen) + len(elf)
    # the status counts are the start-up and kernel links' only; dlopen edges are counted apart
    labels = dict(
        page.eval_on_selector_all(
            "#whole-status label.check input[value]", "is => is.map(i => [i.value, i.parentElement.innerText])"
        )
    )
    used = sum(1 for r in kernel if r["state"] == "used") + sum(1 for r in elf if r["status"] == "used")
    assert labels["used"].strip() == f"used ({used})" and labels["dlopen"].strip() == f"dlopen ({len(dlopen)})"
    assert page.locator("#whole-legend .legend-item[data-edge='dlopen'] .line-dlopen").count() == 1
    # every kernel edge and dlopen edge of the queries is there, between the right ends
    assert page.evaluate("linkgraphWhole.edges") == len(kernel) + len(dlopen) + len(elf)
    for r in kernel:
        assert page.evaluate("a => linkgraphWhole.edgePosition(a[0], a[1]) !== null", [r["module"], r["target"]]), r
    for r in dlopen:
        assert page.evaluate("a => linkgraphWhole.edgePosition(a[0], a[1]) !== null", [r["from"], r["to"]]), r
    page.uncheck("#whole-status input[value='dlopen']")
    assert "dlopen" not in page.evaluate("linkgraphWhole.visibleLinks()")
    page.check("#whole-status input[value='dlopen']")
    # the proprietary module's link to the kernel: its symbols, the GPL-only one marked
    prop = mixed_root["prop"]
    assert page.evaluate("a => linkgraphWhole.selectEdge(a[0], a[1])", [prop, "vmlinux"])
    page.wait_for_selector("#whole-info .edge-symbols[data-state='ready']")
    info = page.evaluate(SECTION_ROWS, "#whole-info")[0]
    (row,) = [r for r in kernel if r["module"] == prop]
    assert info["symbols"] == sorted(row["symbols"]) and info["marked"] == [GPL_ONLY_USED] == row["gpl_only"]
    assert page.get_attribute("#whole-info", "data-link") == "kernel"
    # a dlopen edge's panel says what it is, with its certainty
    first = dlopen[0]
    assert page.evaluate("a => linkgraphWhole.selectEdge(a[0], a[1])", [first["from"], first["to"]])
    wait_until(page, "() => document.querySelector('#whole-info')?.dataset.link === 'dlopen'")
    assert f"certainty {first['certainty']}" in page.inner_text("#whole-info")
    # the kernel is a node of its own kind
    assert page.evaluate("linkgraphWhole.select('vmlinux')")
    assert "the kernel" in page.inner_text("#whole-info")
    assert_no_markup_elements(page)
    watch.assert_clean()


def test_kernel_link_api(ladybug: Store, mixed_root: dict[str, Any]) -> None:
    """GET …/kernel-link and the file answer's kernel sections, as kernel-links answers; 404 and 400."""
    server, fw = ladybug.server, ladybug.fw
    for r in ladybug.query("kernel-links"):
        answer = server.json(f"/api/firmware/{fw}/kernel-link?from={q(r['module'])}&to={q(r['target'])}")
        assert answer["state"] == r["state"] and answer["gpl_only"] == sorted(r["gpl_only"])
        assert [s["name"] for s in answer["symbols"]] == sorted(r["symbols"])
        assert [s["name"] for s in answer["symbols"] if s["gpl_only"]] == sorted(r["gpl_only"])
    status, _, body = server.get(f"/api/firmware/{fw}/kernel-link?from={q(mixed_root['prop'])}&to=nothing")
    assert status == 404 and b"no kernel link" in body
    status, _, body = server.get(f"/api/firmware/{fw}/kernel-link?from={q(mixed_root['prop'])}")
    assert status == 400 and b"to=" in body
    # the ELF analysis as CSV: the proprietary module's link, and its GPL-only symbol in a row of its own
    prop = mixed_root["prop"]
    status, ctype, body = server.get(f"/api/firmware/{fw}/analysis.csv?path={q(prop)}")
    assert status == 200 and ctype.startswith("text/csv")
    rows = [r for r in csv.DictReader(io.StringIO(body.decode())) if r["section"].startswith("kernel")]
    (link,) = [r for r in ladybug.query("kernel-links") if r["module"] == prop]
    assert [(r["section"], r["from"], r["to"], r["status"], r["symbols"].split()) for r in rows] == [
        ("kernel-link", prop, "vmlinux", link["state"], sorted(link["symbols"])),
        ("kernel-link-gpl-only", prop, "vmlinux", link["state"], [GPL_ONLY_USED]),
    ]
    host = server.json(f"/api/firmware/{fw}/file?path={q(HOST)}")
    assert host["kernel_links"] == [] and host["kernel_used_by"] == []
    whole = server.json(f"/api/firmware/{fw}/whole")
    kernel_nodes = [n for n in whole["nodes"] if n["kind"] == "kernel"]
    assert [(n["label"], n["path"]) for n in kernel_nodes] == [("vmlinux", None)]


def test_lede_image_kernel_links_in_the_whole_view(pages: Pages, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A real firmware: the LEDE image's kernel modules (MIPS, the kernel's exports recovered from
    its LZMA image, docs/kernel.md) link to each other and to the kernel; every link is drawn, and
    finding (e) is empty (every module is GPL), as the named queries say."""
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    work = tmp_path_factory.mktemp("viewer-kernel-lede")
    db = ["--db", str(work / "fw.lbdb")]
    assert linkgraph("scan", str(LEDE), *db, "--name", "lede", "--quiet").returncode == 0
    with ViewerServer(db, work) as server:
        store = Store(server, db, {}, "lede")
        kernel = store.query("kernel-links")
        assert len(kernel) > 100 and {r["state"] for r in kernel} == {"used"}
        assert store.query("kernel-gpl-only-used") == []
        page, watch = pages.open(server, f"/fw/{store.fw}/whole?modules=1")
        page.evaluate("linkgraphWhole.fit()")
        visible = page.evaluate("linkgraphWhole.visibleLinks()")
        assert visible["kernel"] == {"used": len(kernel)}
        to_kernel = sum(1 for r in kernel if r["target"] == "vmlinux")
        assert page.evaluate("linkgraphWhole.select('vmlinux')")
        assert f"Used by ({to_kernel})" in page.inner_text("#whole-info")
        page, watch2 = pages.open(server, f"/fw/{store.fw}/licences")
        assert page.inner_text("section[data-finding='kernel_gpl_only'] p.none") == f"(e) {KERNEL_NO_FINDING}."
        watch.assert_clean()
        watch2.assert_clean()
