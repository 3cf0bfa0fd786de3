"""Package URLs and CPEs for vulnerability tools (docs/identify.md, "Package URLs and CPEs"): the
CycloneDX of the Freifunk image and of two stock roots (D-Link DIR-880L, Hi-Link HLK-RM04) passes
cyclonedx-python-lib's strict 1.6 JSON validator and is read by its deserialiser; every purl (the
modules' and the components' found inside them) parses with packageurl-python; every CPE matches
the CPE 2.3 formatted-string grammar as spdx-tools checks it (its ``cpe23Type`` regular
expression, from the SPDX 2.3 specification's annex of external references), and names the
version of the identification. The counts per root are printed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from cyclonedx.model.bom import Bom
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from packageurl import PackageURL
from spdx_tools.spdx.validation.external_package_ref_validator import CPE23TYPE_REGEX
from support.images import FFULM
from support.vendor_roots import extracted_root

CPE = re.compile(CPE23TYPE_REGEX)


def _components(bom: Bom) -> list[Any]:
    found = []
    for c in bom.components:
        found.append(c)
        found += list(c.components)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("which", ["freifunk", "dlink_dir880l", "hilink_hlk-rm04"])
def test_purls_and_cpes_are_read_by_the_consumers(
    which: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = FFULM if which == "freifunk" else extracted_root(which)[0]
    db, out = tmp_path / "fw.lbdb", tmp_path / "sbom.cdx.json"
    linkgraph("scan", str(target), "--db", str(db), "--quiet", check=False)
    linkgraph("report", "--db", str(db), "--format", "cyclonedx-json", "-o", str(out))
    text = out.read_text(encoding="utf-8")
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text, all_errors=True)
    assert errors is None, [e.data.message for e in errors][:10]  # type: ignore[union-attr]
    bom = Bom.from_json(json.loads(text))  # type: ignore[attr-defined]
    components = _components(bom)
    identified = json.loads(linkgraph("query", "components", "--db", str(db), "--json").stdout)
    purls = cpes = 0
    for c in components:
        if c.purl is not None:
            parsed = PackageURL.from_string(str(c.purl))
            assert parsed.type in ("generic", "deb", "opkg") and parsed.name, c.purl
            purls += 1
        if c.cpe:
            assert CPE.fullmatch(c.cpe), c.cpe
            cpes += 1
    # every identification has a purl in the document, and a CPE where the query gives one
    assert all(r["purl"] for r in identified), [r for r in identified if not r["purl"]][:3]
    in_doc = {str(c.purl) for c in components if c.purl} | {c.cpe for c in components if c.cpe}
    assert {r["cpe"] for r in identified if r["cpe"]} <= in_doc
    modules = list(bom.components)
    assert purls >= len(identified) > 10 and cpes > 0
    with capsys.disabled():
        print(
            f"\n{which}: {len(modules)} modules, {len(components) - len(modules)} components inside;"
            f" {purls} with a purl, {cpes} with a CPE; {len(identified)} identifications"
        )
