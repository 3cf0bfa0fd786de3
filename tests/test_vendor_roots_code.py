"""Vendor code on real firmware (docs/identify.md, "Vendor code"): the stock D-Link DIR-880L root
(Broadcom SDK), the Hi-Link HLK-RM04 root (Ralink SDK) and TP-Link's stock TL-MR3020 image
(Atheros; TP-Link's own code).

The modules listed here were chosen by reading their strings and their dynamic symbol tables:
each shows its maker plainly (a copyright line, the SDK's build paths, a banner, the maker's API).
The oracle of each origin is the file itself: every string of the evidence is at its offset in the
file's bytes, every symbol it names is one the file defines and exports (``readelf --dyn-syms``).
The modules that must get none are open-source programs that carry a vendor's line or name
(identified: an identification wins) and kernel modules whose ``.modinfo`` states a free licence.
``licence-to-review`` splits the modules to review into vendor code, by origin, and unknown
origin, with the counts the JSON report, the compliance report and the viewer (its API, and its
Licences page in a real browser) give.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.browser import Pages, ViewerServer
from support.images import MR3020, unpacked_root
from support.vendor_roots import extracted_root

pytestmark = pytest.mark.slow

BROADCOM, RALINK, TPLINK, ATHEROS = "Broadcom SDK", "Ralink SDK", "TP-Link", "Qualcomm Atheros SDK"
RT2860 = "/lib/modules/2.6.21/kernel/drivers/net/wireless/rt2860v2_{0}/rt2860v2_{0}.ko"
MR_KMOD = "/lib/modules/2.6.31/"
# root -> origin -> modules whose bytes show it
VENDOR = {
    "dlink_dir880l": {
        BROADCOM: {"/lib/libbcm.so", "/lib/libbcmcrypto.so", "/lib/libshared.so", "/usr/sbin/nas",
                   "/usr/sbin/wps_monitor", "/usr/sbin/acsd", "/usr/sbin/gbsd", "/usr/sbin/wl"},
        "D-Link": {"/mydlink/tsa"},
        "Paragon Software": {"/lib/modules/ufsd.ko"},
        "Alpha Networks": {"/usr/sbin/rndimage"},
    },
    "hilink_hlk-rm04": {
        RALINK: {"/bin/rt2860apd", "/bin/lld2d", "/lib/libnvram-0.9.28.so", RT2860.format("ap"), RT2860.format("sta")},
    },
    "mr3020": {
        TPLINK: {"/usr/bin/httpd", MR_KMOD + "kernel/tp_domain.ko"},
        ATHEROS: {MR_KMOD + "net/ath_dev.ko", MR_KMOD + "net/ath_rate_atheros.ko"},  # Proprietary by .modinfo
    },
}  # fmt: skip
# modules that carry a vendor's line or name and are no vendor code: identified open-source
# programs (hostapd's Atheros copyright, dnsmasq's and minidlna's D-Link, pppd's Alpha Networks),
# kernel modules stating a free licence (usb-storage's device list naming D-Link, TP-Link's GPL
# statistics.ko, Atheros's dual-licensed umac.ko)
NOT_VENDOR = {
    "dlink_dir880l": {"/bin/busybox", "/usr/sbin/hostapd", "/usr/sbin/dnsmasq", "/usr/bin/minidlna",
                      "/usr/sbin/pppd", "/lib/modules/usb-storage.ko"},
    "hilink_hlk-rm04": {"/bin/busybox", "/bin/dnsmasq", "/lib/libupnp.so.1.3.1", "/lib/libiw.so.29"},
    "mr3020": {"/bin/busybox", "/sbin/hostapd", "/sbin/wpa_supplicant", MR_KMOD + "kernel/statistics.ko",
               MR_KMOD + "kernel/usb-storage.ko", MR_KMOD + "net/umac.ko"},
}  # fmt: skip
# root -> vendor code among the modules to review, per origin (the Atheros modules have a licence)
TO_REVIEW = {
    "dlink_dir880l": {BROADCOM: 8, "D-Link": 1, "Paragon Software": 1, "Alpha Networks": 1},
    "hilink_hlk-rm04": {RALINK: 5},
    "mr3020": {TPLINK: 2},
}


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each root scanned once: its folder, database, ``licence-to-review`` rows and JSON report."""
    found: dict[str, dict[str, Any]] = {}
    for name in VENDOR:
        base = tmp_path_factory.mktemp(name)
        db = base / "graph.lbdb"
        if name == "mr3020":
            proc = linkgraph("scan", str(MR3020), "--db", str(db), "--quiet", "--workdir", str(base / "work"))
            root = unpacked_root(base / "work")
        else:
            root, _sha = extracted_root(name)
            proc = linkgraph("scan", str(root), "--db", str(db), "--quiet")
        assert proc.returncode in (0, 1), proc.stderr
        review = json.loads(linkgraph("query", "licence-to-review", "--db", str(db), "--json").stdout)
        report = json.loads(linkgraph("report", "--db", str(db)).stdout)
        found[name] = {"root": root, "db": db, "review": review, "report": report}
    return found


def evidence_bytes(text: str) -> bytes:
    """The file's bytes an evidence text stands for (``\\xNN`` a byte, ``\\\\`` a backslash)."""
    return re.sub(r"\\(\\|x([0-9a-f]{2}))", lambda m: chr(int(m[2], 16)) if m[2] else "\\", text).encode("latin-1")


def defined_dynamic(path: Path) -> set[str]:
    """The file's defined GLOBAL and WEAK dynamic symbols, as readelf lists them."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", str(path)], capture_output=True, text=True, check=True)
    rows = [line.split() for line in out.stdout.splitlines()]
    return {r[7].split("@")[0] for r in rows if len(r) >= 8 and r[4] in ("GLOBAL", "WEAK") and r[6] != "UND"}


@pytest.mark.parametrize("name", list(VENDOR))
def test_vendor_modules_get_their_origin_with_evidence_read_back(name: str, scans: dict[str, Any]) -> None:
    scan = scans[name]
    modules = {m["path"]: m for m in scan["report"]["modules"]}
    for origin, paths in VENDOR[name].items():
        for path in sorted(paths):
            found = modules[path]["origin"]
            assert found is not None and found["name"] == origin, (path, found)
            assert found["evidence"], path
            host = scan["root"] / path.lstrip("/")
            data = host.read_bytes()
            for e in found["evidence"]:
                if e["kind"] == "symbols":
                    names = e["text"].split(": ", 1)[1].split(" (+")[0].split(", ")
                    assert set(names) <= defined_dynamic(host), (path, e)
                else:
                    assert e["kind"] == "string" and e["offset"] is not None, (path, e)
                    text = evidence_bytes(e["text"])
                    assert data[e["offset"] : e["offset"] + len(text)] == text, (path, e)
    # an origin gives no licence: each module keeps the licence fact it had, or none
    sdk = VENDOR[name].get(BROADCOM, set()) | VENDOR[name].get(RALINK, set())
    assert all(modules[p]["licence"] is None for p in sdk)


@pytest.mark.parametrize("name", list(VENDOR))
def test_open_source_code_gets_no_origin(name: str, scans: dict[str, Any]) -> None:
    modules = {m["path"]: m for m in scans[name]["report"]["modules"]}
    for path in sorted(NOT_VENDOR[name]):
        assert modules[path]["origin"] is None, (path, modules[path]["origin"])
    free = ("gpl", "lgpl", "permissive")
    wrong = [p for p, m in modules.items() if m["origin"] and (m["identity"] or m["licence_class"] in free)]
    assert not wrong, wrong


@pytest.mark.parametrize("name", list(VENDOR))
def test_to_review_splits_vendor_code_from_unknown_origin(name: str, scans: dict[str, Any]) -> None:
    scan = scans[name]
    rows = scan["review"]
    vendor = Counter(r["origin"] for r in rows if r["origin"])
    assert dict(vendor) == TO_REVIEW[name]
    unknown = len(rows) - sum(vendor.values())
    coverage = scan["report"]["licence_coverage"]
    assert coverage["vendor_code"] == TO_REVIEW[name] and coverage["unknown_origin"] == unknown
    assert [(m["path"], (m["origin"] or {}).get("name")) for m in coverage["to_review"]] == [
        (r["path"], r["origin"]) for r in rows
    ]
    assert coverage["origin_statement"].startswith(f"Of the modules to review, {sum(vendor.values())} are vendor code")
    assert coverage["origin_statement"].endswith(f"{unknown} are of unknown origin: investigate")
    for r in rows:
        if r["origin"]:
            assert json.loads(r["origin_evidence"]) == next(
                m["origin"]["evidence"] for m in coverage["to_review"] if m["path"] == r["path"]
            )
    print(f"{name}: {len(rows)} to review; vendor code {dict(vendor)}; unknown origin {unknown}")


def test_compliance_report_and_viewer_split_to_review(scans: dict[str, Any]) -> None:
    """The D-Link root's compliance report lists the vendor code under its own heading, each module
    with its origin and evidence offset, and the viewer's Licences API gives the same split."""
    from html import unescape

    from linkgraph.viewer import create_app

    scan = scans["dlink_dir880l"]
    html = linkgraph("report", "--db", str(scan["db"]), "--format", "html").stdout
    section = html[html.index('<section id="to-review">') :]
    section = section[: section.index("</section>")]
    vendor_part, _, unknown_part = section.partition('id="to-review-unknown"')
    assert (
        f"Vendor code: ask the vendor ({sum(TO_REVIEW['dlink_dir880l'].values())})" in vendor_part
        and "Unknown origin: investigate (" in unknown_part
    )
    coverage = scan["report"]["licence_coverage"]
    for m in coverage["to_review"]:
        shown = f'<td class="path">{m["path"]}'
        assert shown in (vendor_part if m["origin"] else unknown_part), m["path"]
        if m["origin"]:
            first = m["origin"]["evidence"][0]
            at = f" at {first['offset']:#x}" if "offset" in first else ""
            assert f"{first['kind']} {first['text']}{at}" in unescape(vendor_part), m["path"]
    client = create_app({"LINKGRAPH_DB": str(scan["db"]), "TESTING": True}).test_client()
    fw = client.get("/api/firmware").get_json()[0]["id"]
    api = client.get(f"/api/firmware/{fw}/licences").get_json()["coverage"]
    assert (api["vendor_code"], api["unknown_origin"], api["to_review"]) == (
        coverage["vendor_code"],
        coverage["unknown_origin"],
        coverage["to_review"],
    )


def test_the_viewer_licences_page_lists_vendor_code_first(scans: dict[str, Any], pages: Pages) -> None:
    """The D-Link root's Licences page in a real browser: under To review, the vendor code (by
    origin, each with its origin and the first evidence at its offset), then the unknown origin."""
    scan = scans["dlink_dir880l"]
    coverage = scan["report"]["licence_coverage"]
    with ViewerServer(["--db", str(scan["db"])], scan["db"].parent) as server:
        fw = server.firmware_id()
        page, watch = pages.open(server, f"/fw/{fw}/licences")
        section = "section[data-finding='to-review']"
        heads = page.eval_on_selector_all(f"{section} h3", "hs => hs.map(h => h.textContent)")
        vendor_count = sum(coverage["vendor_code"].values())
        assert heads == [
            f"Vendor code: ask the vendor ({vendor_count})",
            f"Unknown origin: investigate ({coverage['unknown_origin']})",
        ]
        rows = page.eval_on_selector_all(
            f"{section} tbody tr",
            "trs => trs.map(tr => [tr.dataset.path, tr.cells.length > 4 ? tr.cells[4].textContent : null,"
            " tr.cells.length > 5 ? tr.cells[5].textContent : null])",
        )
        entries = {m["path"]: m for m in coverage["to_review"]}
        vendor = sorted(
            (m for m in coverage["to_review"] if m["origin"]), key=lambda m: (m["origin"]["name"], m["path"])
        )
        assert [r[0] for r in rows] == [m["path"] for m in vendor] + [
            m["path"] for m in coverage["to_review"] if not m["origin"]
        ]
        for path, origin, shown in rows[:vendor_count]:
            first = entries[path]["origin"]["evidence"][0]
            assert origin == entries[path]["origin"]["name"] and first["text"] in shown, path
            assert "offset" not in first or f"at {first['offset']:#x}" in shown, path
        assert page.inner_text(f"{section} p.origin-split") == coverage["origin_statement"] + "."
        watch.assert_clean()
