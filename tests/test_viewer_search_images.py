"""The symbol search (docs/viewer.md "Search") on real firmware: ``uci_lookup_ptr`` on the LEDE
17.01.4 image (musl, MIPS) and ``SSL_read`` on a host root of curl and the libraries it loads (glibc,
OpenSSL). The API lists exactly the bindings ``linkgraph query providers`` gives, every page of them,
and every provider defines the symbol as binutils' readelf reads it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.viewer import create_app
from support.host_programs import copy_with_libraries
from support.images import LEDE

pytestmark = pytest.mark.slow  # a real image: the fast lane (-m 'not slow') leaves it out


def _defines(path: Path, symbol: str) -> bool:
    out = subprocess.run(["readelf", "-W", "--dyn-syms", str(path)], capture_output=True, text=True, check=True).stdout
    return any(len(c) >= 8 and c[6] != "UND" and c[7].split("@")[0] == symbol for c in map(str.split, out.splitlines()))


def _check(db: Path, symbol: str, files: Path | None) -> list[dict[str, Any]]:
    """The API's providers and binders of *symbol* against ``linkgraph query providers``; the bindings."""
    client = create_app({"LINKGRAPH_DB": str(db), "TESTING": True}).test_client()
    fw = client.get("/api/firmware").get_json()[0]["id"]
    rows: list[dict[str, Any]] = []
    offset = 0
    while True:  # pages of 2, so that a few pages are asked for
        answer = client.get(f"/api/firmware/{fw}/symbol", query_string={"name": symbol, "limit": 2, "offset": offset})
        assert answer.status_code == 200, answer.get_data(as_text=True)
        found = answer.get_json()
        rows += found["bindings"]["items"]
        if not found["bindings"]["more"]:
            break
        offset += 2
    cli = json.loads(linkgraph("query", "providers", "--db", str(db), "--param", f"symbol={symbol}", "--json").stdout)
    assert cli, f"nothing binds {symbol}"
    assert sorted((b["module"], b["version"], b["provider"]) for b in rows) == sorted(
        (r["module"], r["version"], r["provider"]) for r in cli
    )
    assert {p["provider"] for p in found["providers"]} == {r["provider"] for r in cli}
    assert sum(p["references"] for p in found["providers"]) == len(cli)
    assert all(b["program_count"] >= 1 and b["status"] in ("used", "hidden") for b in rows), rows
    if files is not None:
        for p in found["providers"]:
            assert _defines(Path(str(files) + p["provider"]), symbol), p
    return rows


def test_uci_lookup_ptr_on_lede(tmp_path: Path) -> None:
    db = tmp_path / "lede.lbdb"
    proc = linkgraph("scan", str(LEDE), "--db", str(db), "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    rows = _check(db, "uci_lookup_ptr", None)
    assert {b["provider"] for b in rows} == {"/lib/libuci.so"}
    assert ("/sbin/uci", "used") in {(b["module"], b["status"]) for b in rows}


def test_ssl_read_on_a_host_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    copy_with_libraries("/usr/bin/curl", root)
    db = tmp_path / "host.lbdb"
    proc = linkgraph("scan", str(root), "--db", str(db), "--quiet")
    assert proc.returncode in (0, 1), proc.stderr
    rows = _check(db, "SSL_read", root)
    assert any(b["provider"].rsplit("/", 1)[1].startswith("libssl.so") for b in rows), rows
