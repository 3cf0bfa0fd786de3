"""The search and "why is it loaded" calls (docs/viewer.md "Search") on both stores, against facts
that do not come from linkgraph: the article root served from LadybugDB and from a real Neo4j must
give identical answers, and those answers must be what glibc's own loader does
(``LD_TRACE_LOADED_OBJECTS=1 LD_BIND_NOW=1 LD_DEBUG=bindings``: the link map in load order and every
binding) and what binutils' ``readelf`` reads from the files (``DT_NEEDED``, the defined dynamic symbols).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import (
    APCFG,
    APLOG,
    APP,
    BUSYBOX,
    LDSO,
    LIB_APP,
    LIB_APP_DECOY,
    LIB_DUPB,
    LIBC,
    NVRAM,
    TRAP_DUP,
    UTIL,
)
from support.browser import ARTICLE_NAME, ViewerServer, q
from support.fixture_root import Root, real_loader
from support.musl_roots import readelf_dynamic
from support.oracle import GlibcTrace

pytestmark = pytest.mark.slow  # Neo4j and the real loader: the fast lane (-m 'not slow') leaves it out

SYMBOLS = ["nvram_get", "util_bar", "aplog_write", "apcfg_get", "dup_fn", "puts", "__cxa_finalize"]
WHY = [
    (BUSYBOX, NVRAM),
    (BUSYBOX, APLOG),
    (BUSYBOX, APCFG),
    (BUSYBOX, LIBC),  # libc binds many of its own symbols: those are left out
    (BUSYBOX, LDSO),
    (TRAP_DUP, LIB_DUPB),
    (APP, LIB_APP),
]


@pytest.fixture(scope="module")
def traces(article_root: Path, article_server: ViewerServer) -> dict[str, GlibcTrace]:
    """The real loader on every link map the store holds (programs and the libraries no program loads)."""
    db = article_server.store[article_server.store.index("--db") + 1]
    listing = linkgraph("query", "link-maps", "--db", db, "--json").stdout
    root = Root(article_root)
    return {row["executable"]: real_loader(root, row["executable"]) for row in json.loads(listing)}


def _all_pages(server: ViewerServer, fw: str, symbol: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    offset = 0
    while True:
        answer = server.json(f"/api/firmware/{fw}/symbol?name={q(symbol)}&limit=3&offset={offset}")
        rows += answer["bindings"]["items"]
        if not answer["bindings"]["more"]:
            return rows
        offset += 3


def _answers(server: ViewerServer) -> dict[str, Any]:
    fw = server.firmware_id(ARTICLE_NAME)
    out: dict[str, Any] = {}
    for symbol in SYMBOLS:
        answer = server.json(f"/api/firmware/{fw}/symbol?name={q(symbol)}&limit=3")
        out[f"symbol {symbol}"] = {**answer, "firmware": None, "all": _all_pages(server, fw, symbol)}
    for text in ("lib", "LIBAP", "/sbin/init", "x86_64"):
        out[f"search {text}"] = {
            **server.json(f"/api/firmware/{fw}/search?q={q(text)}&limit=4&offset=1"),
            "firmware": None,
        }
    for program, library in WHY:
        answer = server.json(f"/api/firmware/{fw}/why?program={q(program)}&library={q(library)}")
        out[f"why {library} in {program}"] = {**answer, "firmware": None}
    return out


@pytest.fixture(scope="module")
def answers(article_server: ViewerServer, article_neo4j_server: ViewerServer) -> dict[str, Any]:
    ours, theirs = _answers(article_server), _answers(article_neo4j_server)
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == theirs[key], f"{key}: LadybugDB and Neo4j answer differently"
    return ours


def _defined(path: Path) -> set[str]:
    """The dynamic symbols *path* defines, as binutils' readelf lists them."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", str(path)], capture_output=True, text=True, check=True).stdout
    return {c[7].split("@")[0] for c in (line.split() for line in out.splitlines()) if len(c) >= 8 and c[6] != "UND"}


def test_symbol_answers_are_the_real_loaders(
    answers: dict[str, Any], traces: dict[str, GlibcTrace], article_root: Path
) -> None:
    for symbol in SYMBOLS:
        found = answers[f"symbol {symbol}"]
        expected: dict[tuple[str, str | None, str], set[str]] = {}
        for program, trace in traces.items():
            for module, name, version, provider in trace.bindings:
                if name == symbol:
                    expected.setdefault((module, version, provider), set()).add(program)
        assert expected, f"the fixture binds no {symbol}"
        got = {(b["module"], b["version"], b["provider"]): set(b["programs"]) for b in found["all"]}
        assert got == expected, f"{symbol}: who binds it, where"
        assert all(b["program_count"] == len(b["programs"]) for b in found["all"])
        references: dict[str, int] = {}
        for _module, _version, provider in expected:
            references[provider] = references.get(provider, 0) + 1
        assert {p["provider"]: p["references"] for p in found["providers"]} == references, symbol
        for p in found["providers"]:
            assert symbol in _defined(Path(str(article_root) + p["provider"])), f"{p['provider']} defines no {symbol}"
        assert found["bindings"]["items"] == found["all"][:3]
        assert found["bindings"]["more"] == (len(found["all"]) > 3)


def test_why_answers_are_the_real_loaders(
    answers: dict[str, Any], traces: dict[str, GlibcTrace], article_root: Path
) -> None:
    for program, library in WHY:
        why = answers[f"why {library} in {program}"]
        trace = traces[program]
        assert why["loaded"] and why["load_index"] == trace.objects.index(library)
        assert why["objects"] == len(trace.objects)
        # the chain, breadth-first: each file is loaded by the first object in load order whose
        # DT_NEEDED (readelf) names a soname the real loader resolved to it
        loaded_as = {t.path and Root(article_root).canonical(t.path): t.name for t in trace.raw_list}
        needed = {o: readelf_dynamic(Path(str(article_root) + o)).get("NEEDED", []) for o in trace.objects}
        chain, at = [], library
        while at != program:
            parent = next(o for o in trace.objects if loaded_as.get(at) in needed[o] or Path(at).name in needed[o])
            chain.append((parent, at))
            at = parent
        assert [(e["from"], e["to"]) for e in why["chain"]] == chain[::-1], f"{library} in {program}"
        bound = {(m, s, v) for m, s, v, p in trace.bindings if p == library and m != p}
        # ld.so relocates itself before it traces: its own references are not in the trace (oracle.py)
        got = {
            (b["module"], s["name"], s["version"]) for b in why["bindings"] if b["module"] != LDSO for s in b["symbols"]
        }
        assert got == bound, f"{library} in {program}: the bindings to it"
        declarers = [
            o for o in trace.objects if any(Path(library).name == n or loaded_as.get(library) == n for n in needed[o])
        ]
        assert [e["from"] for e in why["declared_by"]] == declarers


def test_the_article_picture(answers: dict[str, Any]) -> None:
    """Why is libnvram loaded in busybox: busybox -> libnvram (declared), libapcfg -> libnvram [nvram_get];
    libaplog: loaded by busybox's DT_NEEDED, bound by libapcfg without declaring it (hidden)."""
    nvram = answers[f"why {NVRAM} in {BUSYBOX}"]
    assert [(e["from"], e["status"]) for e in nvram["declared_by"]] == [(BUSYBOX, "declared-unused"), (APCFG, "used")]
    assert [(b["module"], [s["name"] for s in b["symbols"]]) for b in nvram["bindings"]] == [(APCFG, ["nvram_get"])]
    aplog = answers[f"why {APLOG} in {BUSYBOX}"]
    assert [(e["from"], e["to"]) for e in aplog["chain"]] == [(BUSYBOX, APLOG)]
    assert [(b["module"], b["status"]) for b in aplog["bindings"]] == [(APCFG, "hidden")]
    # libapcfg, libaplog, libapp and its decoy match: the page from the second on
    assert [m["path"] for m in answers["search LIBAP"]["modules"]["items"]] == [APLOG, LIB_APP_DECOY, LIB_APP]
    util = answers["symbol util_bar"]
    assert [(b["module"], b["provider"], b["status"]) for b in util["all"]] == [(APCFG, UTIL, "hidden")]
