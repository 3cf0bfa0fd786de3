"""Vendor code named as such (docs/identify.md, "Vendor code"): a module whose bytes show a vendor SDK
or the device maker gets that origin, with evidence, and no licence; "To review" splits vendor code
(ask the vendor) from code of unknown origin (investigate).

The rules, on modules made here with the bytes the matcher reads (``match_file``): an open-source
identification, a licence fact from package data, the knowledge base or a free licence the module
states wins over an origin; a free-software licence statement in the file leaves it without one;
so does a file naming three vendors (a list of makers). Then the root built from C of
tests/support/identify_root.py: its vendor library is vendor code in the report and the SBOMs, its
patched dnsmasq is not. Real roots: tests/test_vendor_roots_code.py.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.loader.identify.matcher import FREE, Hit, match_file
from linkgraph.loader.identify.model import Identification, ModuleIdentity
from linkgraph.loader.identify.vendor import add_origins, vendor_origins
from linkgraph.loader.identify.vendor_table import vendor_table
from linkgraph.loader.model import Certainty, ElfFacts, Kind, LicenceFact, Module
from linkgraph.loader.report.vendor_code import origin_counts, origin_statement
from support.identify_root import DNSMASQ, VENDOR_WIFI, build_identify_root, overrides_file

PATH = "/usr/sbin/tool"
BROADCOM_PATH = b"/home/builder/kernels/bcm4708_6_37_14/src/router/nas/nas.c"
TPLINK = b"TP-LINK TECHNOLOGIES CO., LTD."
REALTEK = b"Realtek Semiconductor Corp."
GPL = b"This program is free software; you can redistribute it"


def module(path: str = PATH, kind: Kind = Kind.EXECUTABLE) -> Module:
    facts = ElfFacts(path=path, size=0, sha256="0" * 64, kind=kind, elf_class=32, endian="little",
                     machine="EM_ARM", osabi="ELFOSABI_SYSV", elf_type="ET_EXEC")  # fmt: skip
    return Module(facts, "/")


def hits_of(*strings: bytes) -> list[Hit]:
    """What the identification's one pass finds in a file holding ``strings`` (NUL separated)."""
    data = b"\0" + b"\0".join(strings) + b"\0"
    return match_file(io.BytesIO(data), len(data))


def origins(hits: list[Hit], fact: LicenceFact | None = None, found: ModuleIdentity | None = None) -> str | None:
    m = module()
    identities = {PATH: found} if found else {}
    got = vendor_origins([m], {PATH: hits}, identities, {PATH: fact} if fact else {})
    return got[PATH].name if PATH in got else None


def test_the_table_reads_alike_in_yara_x_and_re() -> None:
    """Each vendor string, compiled into the identification's one rule set, matches in an example
    file exactly what Python's re matches there: the same bytes at the same offset."""
    table = vendor_table()
    regexes = {(v, p): s.regex for v, vendor in enumerate(table.vendors) for p, s in enumerate(vendor.strings)}
    regexes |= {(FREE, p): s.regex for p, s in enumerate(table.free)}
    samples = [BROADCOM_PATH, TPLINK, REALTEK, b"(C) D-Link Corp. Version", b"author=A <a@tp-link.net>",
               b"Ralink Technology, Corp.", b"Copyright (c) 2001-2007 Atheros Communications, Inc",
               b"description=Paragon ufsd driver", b"/system/package/miwifi/agent/ma.c", GPL]  # fmt: skip
    for sample in samples:
        data = b"\0" + sample + b"\0"
        by_yara = {(h.component, h.pattern, h.offset, h.text) for h in hits_of(sample) if h.vendor}
        by_re = {
            (v, p, m.start(), m.group().decode("latin-1"))
            for (v, p), regex in regexes.items()
            for m in re.finditer(regex.encode("latin-1"), data)
        }
        assert by_yara and by_yara == by_re, sample
    assert all(v.name and (v.strings or v.symbols) for v in table.vendors)


def test_strings_and_api_give_the_vendor_with_evidence_at_its_offset() -> None:
    data = b"\0" + BROADCOM_PATH + b"\0"
    hits = match_file(io.BytesIO(data), len(data))
    got = vendor_origins([module()], {PATH: hits}, {}, {})[PATH]
    assert got.name == "Broadcom SDK"
    (evidence,) = got.evidence
    assert data[evidence.offset : evidence.offset + len(evidence.text)] == evidence.text.encode()
    assert evidence.text == "/bcm4708_6_37_14/src/router/nas/nas.c"


def test_an_identification_or_a_free_licence_fact_wins() -> None:
    hits = hits_of(TPLINK)
    assert origins(hits) == "TP-Link"
    busybox = Identification("busybox", "1.14.1", "GPL-2.0-only", Certainty.IDENTIFIED, (), "table")
    assert origins(hits, found=ModuleIdentity(own=busybox)) is None  # a vendor-patched busybox is busybox
    # carrying a copy of a component inside is no identification of the module
    assert origins(hits, found=ModuleIdentity(contains=[busybox])) == "TP-Link"
    assert origins(hits, LicenceFact("GPL-2.0-only", "modinfo", Certainty.DECLARED)) is None
    assert origins(hits, LicenceFact("LicenseRef-Proprietary", "modinfo", Certainty.DECLARED)) == "TP-Link"
    assert origins(hits, LicenceFact("LicenseRef-Proprietary", "override:o.yaml:x", Certainty.DECLARED)) == "TP-Link"
    package = LicenceFact("LicenseRef-Proprietary", "opkg:/usr/lib/opkg/status (package x)", Certainty.DECLARED)
    assert origins(hits, package) is None
    assert origins(hits, LicenceFact("MIT", "knowledge-base", Certainty.INFERRED)) is None


def test_a_free_software_statement_or_a_list_of_makers_gives_none() -> None:
    assert origins(hits_of(TPLINK, GPL)) is None  # a vendor's line inside a GPL program
    assert origins(hits_of(BROADCOM_PATH, REALTEK)) == "Broadcom SDK"  # two: the first of a tie
    assert origins(hits_of(BROADCOM_PATH, TPLINK, b"a <a@tp-link.net>")) == "TP-Link"  # two: the most evidence
    assert origins(hits_of(BROADCOM_PATH, TPLINK, REALTEK)) is None  # three makers: a device table
    assert origins(hits_of(b"Broadcom", b"Ralink", b"D-Link")) is None  # bare names are no evidence


def test_add_origins_gives_a_module_an_entry_of_its_own() -> None:
    identities: dict[str, ModuleIdentity] = {}
    add_origins([module()], {PATH: hits_of(TPLINK)}, identities, {})
    found = identities[PATH]
    assert found.own is None and found.contains == [] and found.origin is not None
    assert found.origin.record()["name"] == "TP-Link"


@pytest.mark.parametrize(
    ("counts", "unknown", "said"),
    [
        ({}, 0, ""),
        (
            {"Broadcom SDK": 8, "D-Link": 1},
            3,
            "Of the modules to review, 9 are vendor code (Broadcom SDK 8, D-Link 1): "
            "ask the vendor; 3 are of unknown origin: investigate",
        ),
        ({"TP-Link": 1}, 0, "Of the modules to review, 1 is vendor code (TP-Link 1): ask the vendor"),
        ({}, 1, "Of the modules to review, 1 is of unknown origin: investigate"),
    ],
)
def test_the_split_in_words(counts: dict[str, int], unknown: int, said: str) -> None:
    assert origin_statement(counts, unknown) == said
    entries = [{"origin": {"name": n}} for n, k in counts.items() for _ in range(k)] + [{"origin": None}] * unknown
    assert origin_counts(entries) == (counts, unknown)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The identification's root built from C (support/identify_root.py), scanned with the vendor's
    overrides (its library proprietary): the JSON report and the CycloneDX and SPDX documents."""
    base = tmp_path_factory.mktemp("vendor-code")
    root = build_identify_root(base / "root").path
    db = str(base / "graph.lbdb")
    linkgraph("scan", str(root), "--db", db, "--quiet", "--licences", str(overrides_file(base / "o.yaml")))
    out = {"root": root, "report": json.loads(linkgraph("report", "--db", db).stdout)}
    for kind in ("cyclonedx-json", "spdx-json"):
        out[kind] = json.loads(linkgraph("report", "--db", db, "--format", kind).stdout)
    return out


def test_a_built_vendor_library_is_vendor_code_and_a_patched_program_is_not(built: dict[str, Any]) -> None:
    modules = {m["path"]: m for m in built["report"]["modules"]}
    origin = modules[VENDOR_WIFI]["origin"]
    assert origin["name"] == "Broadcom SDK" and modules[VENDOR_WIFI]["licence"] == "LicenseRef-Proprietary"
    data = (built["root"] / VENDOR_WIFI.lstrip("/")).read_bytes()
    (e,) = origin["evidence"]
    assert data[e["offset"] : e["offset"] + len(e["text"])] == b"/bcm4708_6_37_14/src/router/wifi/vendorwifi.c"
    assert b"Atheros Communications" in (built["root"] / DNSMASQ.lstrip("/")).read_bytes()
    assert modules[DNSMASQ]["identity"]["component"] == "dnsmasq" and modules[DNSMASQ]["origin"] is None
    assert [p for p, m in modules.items() if m["origin"]] == [VENDOR_WIFI]
    # the SBOMs: a CycloneDX property, an SPDX annotation with the evidence and its offset
    props = {
        c["bom-ref"]: [p["value"] for p in c["properties"] if p["name"] == "linkgraph:origin"]
        for c in built["cyclonedx-json"]["components"]
    }
    assert {ref: v for ref, v in props.items() if v} == {VENDOR_WIFI: ["Broadcom SDK"]}
    notes = [a["comment"] for f in built["spdx-json"]["files"] for a in f.get("annotations", [])]
    assert any(
        n.startswith("linkgraph origin: vendor code of Broadcom SDK") and f"{e['offset']:#x}" in n for n in notes
    )
