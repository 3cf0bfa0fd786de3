"""The identification stage's answers where a user reads them (docs/identify.md): the ``components``
and ``licences`` queries and the JSON report's ``identity`` and ``contains``, on a root built from C
(support/identify_root.py) and on the stock D-Link DIR-880L root. The oracle of each piece of
evidence is the file itself: a string is at its offset in the file's bytes, exported symbols are in
``nm -D``'s list of the file's defined symbols, and glibc's version is what the C library that was
copied in reports of itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import linkgraph
from support.fixture_root import MULTIARCH
from support.identify_root import (
    BANNER_MARKUP,
    DNSMASQ,
    DOCVIEW,
    HELLO,
    HELLO_TWO,
    LIBIDN2,
    MEDIATOOL,
    VENDOR_WIFI,
    build_identify_root,
    overrides_file,
)

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "docs" / "report.schema.json").read_text())
LIBC = f"{MULTIARCH}/libc.so.6"
LOADER = f"{MULTIARCH}/ld-linux-x86-64.so.2"  # glibc's by its name alone (the name table): inferred


def scanned(root: Path, db: Path, *extra: str) -> dict[str, Any]:
    """The root scanned into ``db``: its ``components`` and ``licences`` rows and its JSON report
    (valid by the schema)."""
    assert linkgraph("scan", str(root), "--db", str(db), "--quiet", *extra).returncode in (0, 1)
    found: dict[str, Any] = {"root": root, "db": db}
    for name in ("components", "licences"):
        found[name] = json.loads(linkgraph("query", name, "--db", str(db), "--json").stdout)
    found["report"] = json.loads(linkgraph("report", "--db", str(db)).stdout)
    jsonschema.validate(found["report"], SCHEMA)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("identify")
    root = build_identify_root(base / "root").path
    return scanned(root, base / "graph.lbdb", "--licences", str(overrides_file(base / "overrides.yaml")))


def exported(host_path: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(host_path)], capture_output=True, text=True, check=True)
    # newer nm prints a versioned symbol as name@@VERSION (and the version itself as a symbol)
    return {line.split()[-1].split("@", 1)[0] for line in out.stdout.splitlines() if line.strip()}


def evidence_bytes(text: str) -> bytes:
    """The file's bytes an evidence text stands for (``\\xNN`` a byte, ``\\\\`` a backslash)."""
    return re.sub(r"\\(\\|x([0-9a-f]{2}))", lambda m: chr(int(m[2], 16)) if m[2] else "\\", text).encode("latin-1")


def check_evidence(root: Path, path: str, evidence: list[dict[str, Any]]) -> None:
    """Each string is at its offset in the file; each symbol listed is one the file exports."""
    host = root / path.lstrip("/")
    data = host.read_bytes()
    assert evidence, path
    for e in evidence:
        if e.get("offset") is not None:
            text = evidence_bytes(e["text"])
            assert data[e["offset"] : e["offset"] + len(text)] == text, (path, e)
        if e["kind"] == "symbols":
            names = e["text"].split(": ", 1)[1].split(" (+")[0].split(", ")
            assert set(names) <= exported(host), (path, e)


def test_components_lists_what_each_file_is_and_carries(built: dict[str, Any]) -> None:
    rows = {(r["path"], r["component"], r["contained"]): r for r in built["components"]}
    glibc = os.confstr("CS_GNU_LIBC_VERSION").split()[1]  # type: ignore[union-attr]
    assert {k: (r["version"], r["licence"], r["certainty"]) for k, r in rows.items()} == {
        (LIBC, "glibc", False): (glibc, "LGPL-2.1-or-later", "identified"),
        (LOADER, "glibc", False): (glibc, "LGPL-2.1-or-later", "inferred"),  # the root's libc's version
        (DNSMASQ, "dnsmasq", False): ("2.80", "GPL-2.0-only OR GPL-3.0-only", "identified"),
        (VENDOR_WIFI, "wireless-tools", True): (None, "GPL-2.0-only", "identified"),
        # libavcodec's ident names its library's version (Lavc58.91.100), not FFmpeg's release
        (MEDIATOOL, "ffmpeg", True): (None, "LGPL-2.1-or-later", "identified"),
        (MEDIATOOL, "glibc", True): ("2.99", "LGPL-2.1-or-later", "identified"),
        # gnulib's --version text: the licence the program states, its only version string
        (HELLO, "hello", False): ("2.12", "GPL-3.0-or-later", "declared"),
        # two version strings: the one every hello file of the root holds
        (HELLO_TWO, "hello", False): ("2.12", "GPL-3.0-or-later", "declared"),
        # a library's gnulib line is its tool's: the family's table gives the library's licence
        (LIBIDN2, "libidn2", False): ("2.12", "GPL-2.0-or-later OR LGPL-3.0-or-later", "identified"),
        # a copyright holder and a home page naming one project; the name table's poppler licence
        # (the program that only points to curl's home page is nothing)
        (DOCVIEW, "poppler", False): (None, "GPL-2.0-or-later", "identified"),
    }
    assert rows[(DNSMASQ, "dnsmasq", False)]["purl"] == "pkg:generic/dnsmasq@2.80"
    assert rows[(DNSMASQ, "dnsmasq", False)]["cpe"].startswith("cpe:2.3:a:thekelleys:dnsmasq:2.80:")
    for r in built["components"]:
        check_evidence(built["root"], r["path"], json.loads(r["evidence"]))
    strings = {e["text"] for r in built["components"] for e in json.loads(r["evidence"]) if e["kind"] == "string"}
    assert {"dnsmasq-2.80", "Lavc58.91.100"} <= strings


def test_licences_query_ends_with_the_component(built: dict[str, Any]) -> None:
    first = built["licences"][0]
    assert list(first)[-2:] == ["component", "version"]
    own = {r["path"]: (r["component"], r["version"]) for r in built["components"] if not r["contained"]}
    for r in built["licences"]:
        assert (r["component"], r["version"]) == own.get(r["path"], (None, None)), r["path"]
    assert {r["path"]: r["certainty"] for r in built["licences"]}[DNSMASQ] == "identified"


def test_report_modules_carry_identity_and_contains(built: dict[str, Any]) -> None:
    modules = {m["path"]: m for m in built["report"]["modules"]}
    for r in built["components"]:
        m = modules[r["path"]]
        if r["contained"]:
            (inside,) = [c for c in m["contains"] if c["component"] == r["component"]]
            assert (inside["version"], inside["certainty"]) == (r["version"], r["certainty"])
            assert inside["evidence"] == json.loads(r["evidence"])
        else:
            assert m["identity"]["component"] == r["component"]
            assert m["identity"]["evidence"] == json.loads(r["evidence"])
    assert modules[VENDOR_WIFI]["identity"] is None
    assert modules[VENDOR_WIFI]["contains"][0]["licence_class"] == "gpl"
    assert modules[MEDIATOOL]["static"] is True
    assert [(c["component"], c["licence_class"]) for c in modules[MEDIATOOL]["contains"]] == [
        ("ffmpeg", "lgpl"),
        ("glibc", "lgpl"),
    ]
    assert sum(1 + len(m["contains"]) if m["identity"] else len(m["contains"]) for m in modules.values()) == len(
        built["components"]
    )


@pytest.mark.slow
def test_dlink_busybox_is_busybox_with_uclibc_inside(tmp_path: Path) -> None:
    from support.vendor_roots import extracted_root

    root, _sha = extracted_root("dlink_dir880l")
    found = scanned(root, tmp_path / "dlink.lbdb")
    for r in found["components"]:
        check_evidence(root, r["path"], json.loads(r["evidence"]))
    modules = {m["path"]: m for m in found["report"]["modules"]}
    busybox = modules["/bin/busybox"]
    assert (busybox["identity"]["component"], busybox["identity"]["version"]) == ("busybox", "1.14.1")
    assert [(c["component"], c["version"], c["licence_class"]) for c in busybox["contains"]] == [
        ("uclibc", "0.9.32.1", "lgpl")
    ]
    avcodec = modules["/lib/libavcodec.so.53"]["identity"]
    assert (avcodec["licence"], avcodec["certainty"]) == ("GPL-2.0-or-later", "declared")
    # FFmpeg's own statement, after its "license: " prefix (coreutils' --version text has the words too)
    assert any(
        e["kind"] == "statement" and e["text"].endswith("license: GPL version 2 or later") for e in avcodec["evidence"]
    )


def test_findings_f_and_g_name_the_copies_with_their_evidence(built: dict[str, Any]) -> None:
    findings = built["report"]["licence_findings"]
    contained = {(r["path"], r["component"]): r for r in built["components"] if r["contained"]}
    assert [(r["module"], r["class"], r["component"]) for r in findings["gpl_contained"]] == [
        (VENDOR_WIFI, "incompatible", "wireless-tools")
    ]
    assert [(r["module"], r["component"], r["component_licence"]) for r in findings["lgpl_static"]] == [
        (MEDIATOOL, "ffmpeg", "LGPL-2.1-or-later"),
        (MEDIATOOL, "glibc", "LGPL-2.1-or-later"),
    ]
    for row in findings["gpl_contained"] + findings["lgpl_static"]:
        assert row["evidence"] == json.loads(contained[(row["module"], row["component"])]["evidence"])
        check_evidence(built["root"], row["module"], row["evidence"])
    counts = findings["summary"]["findings"]
    assert (counts["gpl_contained"], counts["lgpl_static"]) == (1, 2)


def test_compliance_report_shows_f_and_g_with_the_evidence(built: dict[str, Any]) -> None:
    from html.parser import HTMLParser

    class Sections(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.at: str | None = None
            self.text: dict[str, str] = {}

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.at = dict(attrs).get("id") if tag == "section" else self.at

        def handle_data(self, data: str) -> None:
            if self.at:
                self.text[self.at] = " ".join((self.text.get(self.at, "") + " " + data).split())

    page = Sections()
    html = linkgraph("report", "--db", str(built["db"]), "--format", "html").stdout
    page.feed(html)
    findings = built["report"]["licence_findings"]
    for section, key in (("gpl-contained", "gpl_contained"), ("lgpl-static", "lgpl_static")):
        text = page.text[section]
        for row in findings[key]:
            assert row["module"] in text and row["component"] in text, section
            for e in row["evidence"]:
                shown = f"{e['kind']} {e['text']}" + (f" at {e['offset']:#x}" if "offset" in e else "")
                assert shown in text, (section, shown)
    # the banner's markup is text in the page (the parser gave it back as data), never an element
    assert BANNER_MARKUP in page.text["lgpl-static"] and "<img" not in html
    assert f"(f) incompatible or unknown modules with a GPL component inside {1}" in page.text["summary"]


def test_viewer_api_gives_each_file_its_identification(built: dict[str, Any]) -> None:
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(built["db"]), "TESTING": True}).test_client()
    fw = client.get("/api/firmware").get_json()[0]["id"]
    modules = {m["path"]: m for m in built["report"]["modules"]}
    for path, m in modules.items():
        found = client.get(f"/api/firmware/{fw}/file", query_string={"path": path}).get_json()["identification"]
        assert found["contains"] == m["contains"], path
        if m["identity"] is None:
            assert found["identity"] is None, path
        else:
            keys = ("component", "version", "licence", "certainty", "purl", "cpe", "evidence")
            assert {k: found["identity"][k] for k in keys} == {k: m["identity"][k] for k in keys}, path
    overview = client.get(f"/api/firmware/{fw}/components").get_json()
    per = {c["certainty"]: c["modules"] for c in overview["certainties"]}
    assert per == {"declared": 2, "identified": 4, "inferred": 1, None: len(modules) - 7}
    assert [(c["component"], c["modules"]) for c in overview["contained"]] == [
        ("ffmpeg", [MEDIATOOL]),
        ("glibc", [MEDIATOOL]),
        ("wireless-tools", [VENDOR_WIFI]),
    ]
    banner = client.get(f"/api/firmware/{fw}/file", query_string={"path": MEDIATOOL}).get_json()
    texts = [e["text"] for c in banner["identification"]["contains"] for e in c["evidence"]]
    assert any(BANNER_MARKUP in t for t in texts), texts  # as the file has it: the page shows it as text
    licences = client.get(f"/api/firmware/{fw}/licences").get_json()
    for key in ("gpl_contained", "lgpl_static"):
        assert licences[key] == built["report"]["licence_findings"][key]
