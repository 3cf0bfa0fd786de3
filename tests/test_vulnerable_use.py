"""``linkgraph query vulnerable-use`` and ``linkgraph vulnerable-use --rules`` (docs/identify.md,
"Vulnerable use"), judged by the real loaders: on one store holding the host's /usr/bin root and
the Debian foreign roots, the programs it lists for ``SSL_read`` in OpenSSL's libssl are exactly
the (program, module) pairs whose ``LD_DEBUG=bindings`` trace (the host's ld.so; each foreign
root's own ld.so under qemu-user) binds ``SSL_read`` to a ``libssl.so`` — in LadybugDB and in a
real Neo4j. Only the programs whose link map (the same loaders' ``LD_TRACE_LOADED_OBJECTS`` list)
holds a libssl can bind to one: they are traced, with a sample of the others. Version order is
judged by ``dpkg --compare-versions``."""

from __future__ import annotations

import functools
import json
import os
import posixpath
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.loader.identify.version_order import version_key
from support import debian_roots, foreign_oracle, hostroot, oracle

SYMBOL = "SSL_read"
Pair = tuple[str, str, str]  # (firmware, program, module)

# released versions of OpenSSL, glibc, zlib, busybox and uClibc, and dates (no Debian revisions:
# the identification gives upstream versions)
VERSIONS = [
    "0.9.8zh", "1.0.0", "1.0.1", "1.0.1u", "1.0.2", "1.0.2a", "1.0.2k", "1.0.2l", "1.0.2za", "1.1.0",
    "1.1.0a", "1.1.1w", "3.0.0", "3.0.9", "3.0.10", "3.0.19", "3.0.20", "3.1.0", "2.19", "2.36", "2.41",
    "1.2.11", "1.2.13", "1.14.1", "1.36.1", "0.9.28", "0.9.30.1", "0.9.32.1", "0.9.33.2", "20230101",
    "1.0.2.1", "1.0.10", "1.0.9", "10.0", "9.9.9",
]  # fmt: skip


def _dpkg_less(a: str, b: str) -> bool:
    return subprocess.run(["dpkg", "--compare-versions", a, "lt", b], check=False).returncode == 0


def test_version_keys_sort_as_dpkg_compares() -> None:
    """Every pair of versions: key(a) < key(b) exactly when dpkg says a < b (1.0.2k < 1.0.2l < 1.1.0)."""
    for a in VERSIONS:
        for b in VERSIONS:
            assert (version_key(a) < version_key(b)) == _dpkg_less(a, b), (a, b)
    assert version_key("1.0.2k") < version_key("1.0.2l") < version_key("1.1.0")


# --------------------------------------------------------------------------- the store and the oracle


# Programs traced with LD_DEBUG=bindings besides those whose link map holds a libssl: about this
# many from each root, spread over its sorted list (all of a smaller root)
SAMPLE = 40
Lister = Callable[[str], list[str]]
Tracer = Callable[[str], oracle.GlibcTrace]


def _holds_libssl(link_map: list[str]) -> bool:
    return any(posixpath.basename(path).startswith("libssl.so") for path in link_map)


def _ssl_bindings(firmware: str, trace: oracle.GlibcTrace) -> set[Pair]:
    return {
        (firmware, trace.executable, module)
        for module, symbol, _version, provider in trace.bindings
        if symbol == SYMBOL and posixpath.basename(provider).startswith("libssl.so")
    }


def _bound(firmware: str, exes: list[str], link_map: Lister, trace: Tracer) -> tuple[set[Pair], int]:
    """(firmware, program, module) of every binding of SYMBOL to a libssl the loader made, and how
    many programs were traced. A binding to libssl needs libssl in the program's link map, so only
    the programs whose link map (the real loader's ``LD_TRACE_LOADED_OBJECTS`` list) holds one are
    traced, and a sample of the others: their traces must bind nothing to a libssl."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        maps = list(pool.map(link_map, exes))
        users = [exe for exe, found in zip(exes, maps, strict=True) if _holds_libssl(found)]
        others = sorted(set(exes) - set(users))
        sample = others[:: max(1, len(others) // SAMPLE)]
        used = list(pool.map(trace, users))
        unused = list(pool.map(trace, sample))
    assert not set().union(*(_ssl_bindings(firmware, t) for t in unused)), firmware
    return set().union(*(_ssl_bindings(firmware, t) for t in used)), len(used) + len(unused)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[Pair]]:
    """One LadybugDB store of the host root and the Debian roots, and what their loaders bound."""
    db = tmp_path_factory.mktemp("vulnerable") / "all.lbdb"
    host = hostroot.cached_host_root()
    linkgraph("scan", str(host), "--db", str(db), "--name", "host", "--quiet", check=False)
    entries = hostroot.load_manifest(host)["entries"]
    expected, traced = _bound(
        "host",
        entries,
        lambda exe: [t.path for t in oracle.glibc_list(exe) if t.path],
        lambda exe: oracle.glibc_trace(exe, str(host)),
    )
    for arch in debian_roots.ARCHES:
        root = debian_roots.cached_debian_root(arch)
        linkgraph("scan", str(root), "--db", str(db), "--name", f"debian-{arch}", "--quiet", check=False)
        found, count = _bound(
            f"debian-{arch}",
            foreign_oracle.root_executables(root),
            functools.partial(foreign_oracle.foreign_list, arch, root),
            functools.partial(foreign_oracle.foreign_trace, arch, root),
        )
        expected |= found
        traced += count
    assert traced >= SAMPLE
    return db, expected


def _rows(where: list[str], below: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    params = ["--param", "component=openssl", "--param", f"version-below={below}", "--param", f"symbol={SYMBOL}"]
    proc = linkgraph("query", "vulnerable-use", *where, "--json", *params, env=env)
    return json.loads(proc.stdout)


def _pairs(rows: list[dict[str, Any]]) -> set[Pair]:
    return {(r["firmware"], r["program"], r["module"]) for r in rows}


@functools.cache
def _every_version_below(version: str | None, below: str) -> bool:
    return version is None or _dpkg_less(version, below)


def _check(rows: list[dict[str, Any]], expected: set[Pair]) -> None:
    assert _pairs(rows) == expected
    for row in rows:  # the binding is over an edge of the program's graph, and the version has its evidence
        assert row["component"] == "openssl" and posixpath.basename(row["provider"]).startswith("libssl.so")
        assert row["status"] in ("used", "hidden"), row
        assert row["version"] and json.loads(row["evidence"]), row


def test_rows_are_the_loaders_bindings(store: tuple[Path, set[Pair]], capsys: pytest.CaptureFixture[str]) -> None:
    """Below a version above every OpenSSL here: every program whose loader binds SSL_read to libssl.
    Below 1.0.2l: those whose libssl dpkg says is older (none of OpenSSL 3)."""
    db, expected = store
    rows = _rows(["--db", str(db)], "99")
    assert len(expected) >= 5 and {f for f, _p, _m in expected} >= {"host", "debian-armhf"}
    _check(rows, expected)
    old = _rows(["--db", str(db)], "1.0.2l")
    assert _pairs(old) == {
        (r["firmware"], r["program"], r["module"]) for r in rows if _every_version_below(r["version"], "1.0.2l")
    }
    with capsys.disabled():
        by_image: dict[str, int] = {}
        for firmware, _program, _module in expected:
            by_image[firmware] = by_image.get(firmware, 0) + 1
        print(
            f"\nvulnerable-use SSL_read: {len(rows)} rows = {len(expected)} LD_DEBUG bindings {by_image};"
            f" below 1.0.2l: {len(old)}"
        )


def test_rules_file_gives_the_same_rows(store: tuple[Path, set[Pair]], tmp_path: Path) -> None:
    """A rules file of two advisories: each rule's rows are the query's, tagged with the rule."""
    db, expected = store
    rules = {"rules": [
        {"id": "ANY-OPENSSL", "component": "openssl", "version-below": "99", "symbols": [SYMBOL, "SSL_write"]},
        {"id": "OLD-OPENSSL", "component": "openssl", "version-below": "1.0.2l", "symbols": [SYMBOL]},
    ]}  # fmt: skip
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    rows = json.loads(linkgraph("vulnerable-use", "--db", str(db), "--rules", str(path), "--json").stdout)
    read = {
        r["id"]: _pairs([x for x in rows if x["rule"] == r["id"] and x["symbol"] == SYMBOL]) for r in rules["rules"]
    }
    assert read["ANY-OPENSSL"] == expected
    assert read["OLD-OPENSSL"] == _pairs(_rows(["--db", str(db)], "1.0.2l"))
    assert any(r["symbol"] == "SSL_write" for r in rows)
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [{"component": "openssl", "symbols": ["SSL_read"]}]}')
    proc = linkgraph("vulnerable-use", "--db", str(db), "--rules", str(bad), check=False)
    assert proc.returncode == 2 and "version-below" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_neo4j_gives_the_same_rows(store: tuple[Path, set[Pair]], neo4j_server: Any, neo4j_env: dict[str, str]) -> None:
    """The same store pushed into a real Neo4j answers the same rows."""
    from neo4j import GraphDatabase

    db, expected = store
    with GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")
    proc = linkgraph("push", "--db", str(db), "--neo4j", neo4j_server.uri, env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    server = ["--neo4j", neo4j_server.uri]
    rows = _rows(server, "99", neo4j_env)
    _check(rows, expected)
    assert rows == _rows(["--db", str(db)], "99")
