"""The licence findings (a)-(e) on the shared LEDE image and on a Debian armhf root, checked by hand.

LEDE 17.01.4 (TL-WR841 v11) ships opkg metadata for every ELF file. Its GPL code (busybox,
procd, netifd, dnsmasq, iptables, ...) uses only musl (MIT), libgcc_s (GCC runtime exception),
libubox (ISC), libubus / libuci / libnl-tiny (LGPL-2.1) and other GPL code; the six files whose
packages have no License field (fwtool, luci-bwc and four LuCI Lua modules) are identified by their
own bytes (fwtool GPL-2.0-only, LuCI Apache-2.0) and use only musl, libgcc_s, liblua (MIT), json-c
(MIT) and libnl-tiny (LGPL). So no finding of kind (a), (b) or (c) exists, and (d) lists the LGPL
libraries and who uses them. Checked by reading the dependency edges of those six modules
(``linkgraph query edges-from``) and the opkg control files. The counts are read off the graph;
the test pins them.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from conftest import linkgraph
from linkgraph.loader.report.licence_findings import licence_findings
from linkgraph.loader.report.report_sections import section
from linkgraph.loader.store import open_store
from support.images import LEDE

NO_LICENSE_FIELD = {
    "/usr/bin/fwtool",
    "/usr/bin/luci-bwc",
    "/usr/lib/lua/luci/ip.so",
    "/usr/lib/lua/luci/jsonc.so",
    "/usr/lib/lua/luci/template/parser.so",
    "/usr/lib/lua/nixio.so",
}


@pytest.fixture(scope="module")
def lede(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    db = tmp_path_factory.mktemp("lede-licences") / "fw.lbdb"
    linkgraph("scan", str(LEDE), "--db", str(db), "--quiet")
    with open_store(db=str(db), read_only=True) as store:
        firmware = store.resolve_firmware(None)
        return db, licence_findings(store, firmware)


def test_no_gpl_finding_on_lede(lede: tuple[Path, dict]) -> None:
    _, found = lede
    assert found["gpl_used_by"] == [] and found["gpl_uses"] == [] and found["declared_only"] == []


def test_modules_without_package_licence_use_no_gpl_code(lede: tuple[Path, dict]) -> None:
    db, _ = lede
    licences = json.loads(linkgraph("query", "licences", "--db", str(db), "--json").stdout)
    assert {m["path"] for m in licences if m["class"] == "unknown"} == set()
    classes = {m["path"]: m["class"] for m in licences if m["path"] in NO_LICENSE_FIELD}
    assert classes == {p: "gpl" if p == "/usr/bin/fwtool" else "permissive" for p in NO_LICENSE_FIELD}
    edges = json.loads(
        linkgraph(
            "query", "edges-from", "--db", str(db), "--json", "--param", f"paths={json.dumps(sorted(NO_LICENSE_FIELD))}"
        ).stdout
    )
    assert {e["to"] for e in edges} == {
        "/lib/libc.so",
        "/lib/libgcc_s.so.1",
        "/usr/lib/liblua.so.5.1.5",
        "/usr/lib/libjson-c.so.2.0.2",
        "/usr/lib/libnl-tiny.so",
    }
    assert all(e["licence_class"] in ("permissive", "lgpl") for e in edges)


def test_lgpl_libraries_used_dynamically(lede: tuple[Path, dict]) -> None:
    _, found = lede
    users = collections.Counter(r["library"] for r in found["lgpl_used"])
    assert users == {"/lib/libgcc_s.so.1": 67, "/lib/libubus.so": 11, "/lib/libuci.so": 10, "/usr/lib/libnl-tiny.so": 7}
    licences = {r["library"]: r["library_licence"] for r in found["lgpl_used"]}
    assert licences == {
        "/lib/libgcc_s.so.1": "GPL-3.0-or-later WITH GCC-exception-3.1",
        "/lib/libubus.so": "LGPL-2.1-only",
        "/lib/libuci.so": "LGPL-2.1-only",
        "/usr/lib/libnl-tiny.so": "LGPL-2.1-only",
    }
    netifd = {r["library"]: r["symbols"] for r in found["lgpl_used"] if r["module"] == "/sbin/netifd"}
    assert "ubus_connect" in netifd["/lib/libubus.so"] and "uci_load" in netifd["/lib/libuci.so"]
    assert all(r["status"] in ("used", "hidden") and r["symbols"] for r in found["lgpl_used"])


def test_summary_counts_every_module_once(lede: tuple[Path, dict]) -> None:
    _, found = lede
    by_class = collections.Counter()
    for row in found["summary"]["modules"]:
        by_class[row["class"]] += row["modules"]
    assert by_class == {"gpl": 85, "lgpl": 9, "permissive": 29}
    assert sum(by_class.values()) == 123
    assert found["summary"]["findings"] == {
        "gpl_used_by": 0,
        "gpl_uses": 0,
        "declared_only": 0,
        "lgpl_used": 95,
        "kernel_gpl_only": 0,
    }


@pytest.mark.slow
def test_debian_armhf_root_findings_follow_its_copyright_files(tmp_path: Path) -> None:
    """Debian's armhf packages (tests/support/debian_roots.py): the krb5 libraries and librtmp have no licence
    fact (krb5's copyright file is free text naming several licences, librtmp's is not DEP-5), while
    the DEP-5 `Files: *` paragraphs of libcom-err2, libkeyutils1 and libidn2-0 say GPL. So (a) holds
    exactly these chains, each read off the dependency edges by hand; nothing uses code of unknown
    licence from GPL code, and no GPL link is declared only."""
    from support import debian_roots

    root = debian_roots.cached_debian_root("armhf")
    db = tmp_path / "deb.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet")
    with open_store(db=str(db), read_only=True) as store:
        firmware = store.resolve_firmware(None)
        found = licence_findings(store, firmware)
        edges = {(e["from"], e["to"], e["status"]): e["symbols"] for e in section(store, firmware, "dependencies")}
        queried = store.query("licence-gpl-used-by", {"firmware": firmware})
    # the named query gives exactly the report's rows (the report adds symbols, never filters)
    assert [(r["module"], r["gpl_module"], r["hops"], r["statuses"], sorted(r["programs"])) for r in queried] == [
        (r["module"], r["gpl_module"], [r["module"], *(h["to"] for h in r["hops"])], [h["status"] for h in r["hops"]],
         r["programs"])
        for r in found["gpl_used_by"]
    ]  # fmt: skip
    # every hop's symbols: some, and those of its edge bound in the row's programs (a subset of the edge's)
    hops = [h for r in found["gpl_used_by"] for h in r["hops"]]
    assert all(h["symbols"] and set(h["symbols"]) <= set(edges[h["from"], h["to"], h["status"]]) for h in hops)
    assert found["gpl_uses"] == [] and found["declared_only"] == []
    name = lambda path: path.rsplit("/", 1)[1]  # noqa: E731
    chains = {
        (name(r["module"]), *(name(h["to"]) for h in r["hops"])): [name(p) for p in r["programs"]]
        for r in found["gpl_used_by"]
    }
    assert chains == {
        ("spake.so", "libkrb5.so.3.3", "libcom_err.so.2.1"): ["spake.so"],  # a plugin: its own link map
        ("spake.so", "libkrb5.so.3.3", "libkeyutils.so.1.10"): ["spake.so"],
        ("libgssapi_krb5.so.2.2", "libcom_err.so.2.1"): ["curl"],
        ("libgssapi_krb5.so.2.2", "libkrb5.so.3.3", "libcom_err.so.2.1"): ["curl"],
        ("libgssapi_krb5.so.2.2", "libkrb5.so.3.3", "libkeyutils.so.1.10"): ["curl"],
        ("libkrb5.so.3.3", "libcom_err.so.2.1"): ["curl", "spake.so"],
        ("libkrb5.so.3.3", "libkeyutils.so.1.10"): ["curl", "spake.so"],
        ("librtmp.so.1", "libgnutls.so.30.34.3", "libidn2.so.0.3.8"): ["curl"],
    }
    hop = next(
        r["hops"][-1]
        for r in found["gpl_used_by"]
        if name(r["module"]) == "libkrb5.so.3.3" and name(r["gpl_module"]) == "libcom_err.so.2.1"
    )
    assert hop["status"] == "used" and "error_message" in hop["symbols"]
