"""SBOMs as SPDX 2.3 JSON and SPDX 3.0.1 JSON-LD (docs/sbom.md), judged by the maintained
validators and read back by real consumers (tests/support/spdx_read.py): spdx-tools' parser,
validator and ``pyspdxtools``; the published SPDX 3.0.1 JSON schema, the model's SHACL shapes
and spdx-python-model. Read back, every document holds exactly the JSON report's dependency
edges (status, target, soname, symbols) and the article's picture for busybox; the module hashes
are computed here from the files themselves.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import APCFG, APLOG, BUSYBOX, CRYPT, GCC_S, NVRAM, TRAP_MISSING, UTIL, build_article_root
from support.images import FFULM, LEDE, unpacked_root
from support.spdx2_files import check_files
from support.spdx_read import (
    pyspdxtools,
    report_edges,
    spdx2_edges,
    spdx2_messages,
    spdx2_schema_errors,
    spdx2_types,
    spdx3_edges,
    spdx3_objects,
    spdx3_relationships,
    spdx3_schema_errors,
    spdx3_shacl_violations,
)

# the article's busybox (LWN, "Dynamic linking and derivative works"), libc aside
ARTICLE_BUSYBOX = {
    (BUSYBOX, "used", UTIL, "libutility.so", ("util_foo",)),
    (BUSYBOX, "used", APCFG, "libapcfg.so", ("apcfg_get",)),
    (BUSYBOX, "declared-unused", NVRAM, "libnvram.so", ()),
    (BUSYBOX, "declared-unused", APLOG, "libaplog.so", ()),
    (BUSYBOX, "declared-unused", CRYPT, "libcrypt.so.0", ()),
    (BUSYBOX, "declared-unused", GCC_S, "libgcc_s.so.1", ()),
}
ARTICLE_APCFG_HIDDEN = {
    (APCFG, "hidden", UTIL, "libutility.so", ("util_bar",)),
    (APCFG, "hidden", APLOG, "libaplog.so", ("aplog_write",)),
}


def _scanned(target: Path, work: Path, name: str, *more: str) -> tuple[Path, dict[str, Any]]:
    db = work / f"{name}.lbdb"
    linkgraph("scan", str(target), "--db", str(db), "--name", name, "--quiet", *more)
    return db, json.loads(linkgraph("report", "--db", str(db)).stdout)


def _sbom(db: Path, fmt: str, out: Path) -> Path:
    linkgraph("report", "--db", str(db), "--format", fmt, "-o", str(out))
    return out


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """The article's root, its database and its JSON report."""
    work = tmp_path_factory.mktemp("sbom-article")
    root = build_article_root(work / "root")
    db, report = _scanned(root.path, work, "tew-636apb")
    return root.path, db, report


def _status_counts(edges: set[Any]) -> Counter[str]:
    return Counter(e[1] for e in edges)


def _article_edges(edges: set[Any]) -> None:
    busybox = {e for e in edges if e[0] == BUSYBOX and e[3] != "libc.so.6"}
    assert busybox == ARTICLE_BUSYBOX
    libc = next(e for e in edges if e[0] == BUSYBOX and e[3] == "libc.so.6")
    assert libc[1] == "used" and "printf" in libc[4]
    assert {e for e in edges if e[0] == APCFG and e[1] == "hidden"} == ARTICLE_APCFG_HIDDEN
    assert (TRAP_MISSING, "missing", None, "libgone.so.1", ()) in edges


def test_article_spdx2(article: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    root, db, report = article
    path = _sbom(db, "spdx-json", tmp_path / "article.spdx.json")
    assert spdx2_messages(path) == []
    assert spdx2_schema_errors(path) == []
    run = pyspdxtools(path, "-o", str(tmp_path / "article.spdx"))  # and converted to tag-value
    assert run.returncode == 0, run.stderr
    assert "Relationship: SPDXRef-Module-bin-busybox-" in (tmp_path / "article.spdx").read_text()
    edges = spdx2_edges(path)
    assert edges == report_edges(report)
    assert _status_counts(edges) == Counter(e["status"] for e in report["dependencies"])
    _article_edges(edges)
    assert spdx2_types(path) == {
        "used": {"DYNAMIC_LINK"},
        "hidden": {"DYNAMIC_LINK"},
        "declared-unused": {"DEPENDS_ON"},
        "missing": {"DEPENDS_ON"},
        "interposed": {"OTHER"},
    }
    files = check_files(path, root, report)
    assert {p["name"] for p in json.loads(path.read_text())["packages"]} == {"tew-636apb"}  # no package data
    for module in report["modules"]:
        assert files[module["path"]]["licenseConcluded"] == (module["licence"] or "NOASSERTION")
    data = json.loads(path.read_text())
    missing = [r for r in data["relationships"] if r["relatedSpdxElement"] == "NOASSERTION"]
    assert [r["comment"].splitlines()[0] for r in missing] == ["linkgraph dependency: missing"]
    symbols = {r["comment"] for r in data["relationships"] if r["spdxElementId"] == files[APCFG]["SPDXID"]}
    assert "linkgraph dependency: hidden\nsoname: libutility.so" in "\n".join(symbols)
    assert any(c.endswith("symbols (1): aplog_write") for c in symbols), symbols


def test_article_spdx3(article: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    root, db, report = article
    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "article.spdx3.json").read_text())
    assert spdx3_schema_errors(doc) == []
    assert spdx3_shacl_violations(doc) == []
    last = {k: v for k, v in doc["@graph"][-1].items() if k != "relationshipType"}
    assert spdx3_shacl_violations({**doc, "@graph": [*doc["@graph"][:-1], last]})  # the checker sees
    edges = spdx3_edges(doc)
    assert edges == report_edges(report)
    _article_edges(edges)
    kinds = {(status, r.relationshipType.rsplit("/", 1)[1], r.scope.rsplit("/", 1)[1], r.completeness.rsplit("/", 1)[1])
             for r, status in spdx3_relationships(doc, "dependency")}  # fmt: skip
    assert kinds == {
        ("used", "hasDynamicLink", "runtime", "complete"),
        ("hidden", "hasDynamicLink", "runtime", "complete"),
        ("declared-unused", "dependsOn", "runtime", "complete"),
        ("missing", "dependsOn", "runtime", "noAssertion"),
        ("interposed", "other", "runtime", "complete"),
    }
    model, objects = spdx3_objects(doc)
    files = {f.name: f for f in objects.foreach_type(model.software_File)}
    assert set(files) == {m["path"] for m in report["modules"]}
    digest = hashlib.sha256((root / BUSYBOX[1:]).read_bytes()).hexdigest()
    assert [(h.algorithm.rsplit("/", 1)[1], h.hashValue) for h in files[BUSYBOX].verifiedUsing] == [("sha256", digest)]
    concluded = {}
    for r in objects.foreach_type(model.Relationship):
        if r.relationshipType.endswith("/hasConcludedLicense"):
            (target,) = r.to
            concluded[r.from_.name] = None if isinstance(target, str) else target.simplelicensing_licenseExpression
    assert concluded == {m["path"]: m["licence"] for m in report["modules"]}


@pytest.mark.slow
def test_article_spdx3_by_the_reference_schema_validator(
    article: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    """The Python jsonschema package (the reference implementation) agrees with jsonschema-rs."""
    _, db, _ = article
    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "article.spdx3.json").read_text())
    assert spdx3_schema_errors(doc, reference=True) == []
    broken = {**doc, "@graph": [*doc["@graph"][:-1], {**doc["@graph"][-1], "scope": "sometime"}]}
    assert spdx3_schema_errors(broken, reference=True) and spdx3_schema_errors(broken)


def test_spdx_on_stdout_is_the_file(article: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    """Without -o the document goes to stdout (the same content, its creation time aside)."""
    _, db, _ = article
    for fmt in ("spdx-json", "spdx3-json"):
        env = {"SOURCE_DATE_EPOCH": "1700000000"}
        printed = linkgraph("report", "--db", str(db), "--format", fmt, env=env).stdout
        linkgraph("report", "--db", str(db), "--format", fmt, "-o", str(tmp_path / "sbom.json"), env=env)
        assert printed == (tmp_path / "sbom.json").read_text()
        assert "2023-11-14T22:13:20Z" in printed


class _Recorder(io.StringIO):
    """A text stream that remembers how much each write gave it."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def write(self, s: str) -> int:
        self.sizes.append(len(s))
        return super().write(s)


@pytest.mark.slow
@pytest.mark.parametrize("image", [LEDE, FFULM], ids=["lede", "freifunk"])
def test_image_sboms(image: Path, tmp_path: Path) -> None:
    assert image.is_file(), f"{image} is missing: the shared firmware folder is part of the workplace"
    db, report = _scanned(image, tmp_path, image.name, "--workdir", str(tmp_path / "unpacked"))
    spdx2 = _sbom(db, "spdx-json", tmp_path / "fw.spdx.json")
    check_files(spdx2, unpacked_root(tmp_path / "unpacked"), report)
    assert spdx2_messages(spdx2) == []
    assert spdx2_schema_errors(spdx2) == []
    run = pyspdxtools(spdx2)
    assert run.returncode == 0, run.stderr
    expected = report_edges(report)
    counts = Counter(e["status"] for e in report["dependencies"])
    assert spdx2_edges(spdx2) == expected and _status_counts(spdx2_edges(spdx2)) == counts
    packages = {m["package"] for m in report["modules"] if m["package"]}
    assert _purls_of_spdx2(spdx2) == packages  # both images hold opkg data: a purl per package
    comments = Counter(r.get("comment", "").split(":")[0] for r in json.loads(spdx2.read_text())["relationships"])
    assert comments["linkgraph dlopen"] == len(report["dlopen"]) > 0
    assert comments["linkgraph kernel link"] == len(report["kernel_links"]) > 0

    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "fw.spdx3.json").read_text())
    assert spdx3_schema_errors(doc) == []
    assert spdx3_shacl_violations(doc) == []
    assert spdx3_edges(doc) == expected
    dlopen = [(r.from_.name, t.name) for r, _ in spdx3_relationships(doc, "dlopen") for t in r.to]
    assert sorted(dlopen) == sorted((e["from"], e["to"]) for e in report["dlopen"])
    kernel = sum(len(r.comment.splitlines()) - 1 for r, _ in spdx3_relationships(doc, "kernel link"))
    assert kernel == len(report["kernel_links"])
    model, objects = spdx3_objects(doc)
    purls = [p.software_packageUrl for p in objects.foreach_type(model.software_Package) if p.software_packageUrl]
    assert _opkg_packages(purls) == packages


def _opkg_packages(purls: list[str]) -> set[str]:
    """``NAME VERSION`` of each ``pkg:opkg/NAME@VERSION`` (packageurl-python reads them)."""
    from packageurl import PackageURL

    parsed = [PackageURL.from_string(p) for p in purls]
    assert all(p.type == "opkg" for p in parsed), purls
    return {f"{p.name} {p.version}" for p in parsed}


def _purls_of_spdx2(path: Path) -> set[str]:
    from spdx_tools.spdx.parser.parse_anything import parse_file

    refs = [r for p in parse_file(str(path)).packages for r in p.external_references]
    assert all(r.category.name == "PACKAGE_MANAGER" and r.reference_type == "purl" for r in refs)
    return _opkg_packages([r.locator for r in refs])


@pytest.mark.slow
def test_sboms_are_written_as_they_are_read(tmp_path: Path) -> None:
    """Many writes, none much bigger than the writers' 64 KiB buffer: the document is never
    held whole."""
    from linkgraph.loader.sbom.spdx2_json import write_spdx2
    from linkgraph.loader.sbom.spdx3_jsonld import write_spdx3
    from linkgraph.loader.store import open_store

    db, _ = _scanned(FFULM, tmp_path, "ffulm")
    with open_store(db=str(db), read_only=True) as store:
        firmware = store.resolve_firmware(None)
        for writer in (write_spdx2, write_spdx3):
            out = _Recorder()
            writer(store, firmware, out)
            size = len(out.getvalue())
            assert size > 6 * 65536 and max(out.sizes) < 2 * 65536, (writer.__name__, size, max(out.sizes))


def test_hostile_names_make_valid_sboms(tmp_path: Path) -> None:
    """Markup, blanks and bytes that are not UTF-8 in file names (tests/test_bad_input.py's
    root): both documents still validate, and name the files as the report does."""
    from test_bad_input import MARKUP, build_hostile

    root, _ = build_hostile(tmp_path)
    db, report = _scanned(root, tmp_path, "hostile")
    spdx2 = _sbom(db, "spdx-json", tmp_path / "hostile.spdx.json")
    assert spdx2_messages(spdx2) == []
    assert spdx2_schema_errors(spdx2) == []
    assert spdx2_edges(spdx2) == report_edges(report)
    names = {f["fileName"] for f in json.loads(spdx2.read_text())["files"]}
    assert {"." + m["path"] for m in report["modules"]} == names and "./lib/" + MARKUP in names
    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "hostile.spdx3.json").read_text())
    assert spdx3_schema_errors(doc) == []
    assert spdx3_shacl_violations(doc) == []
    assert spdx3_edges(doc) == report_edges(report)


@pytest.mark.slow
def test_both_stores_give_the_same_sboms(
    article: tuple[Path, Path, dict[str, Any]], neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    """The article pushed into a real Neo4j: its SBOMs are byte for byte the embedded store's."""
    _, db, _ = article
    server = ["--neo4j", neo4j_server.uri]
    assert linkgraph("push", "--db", str(db), *server, env=neo4j_env).returncode == 0
    fixed = {"SOURCE_DATE_EPOCH": "1700000000"}
    for fmt in ("spdx-json", "spdx3-json"):
        embedded = linkgraph("report", "--db", str(db), "--format", fmt, env=fixed).stdout
        pushed = linkgraph(
            "report", *server, "--firmware", "tew-636apb", "--format", fmt, env={**neo4j_env, **fixed}
        ).stdout
        assert pushed == embedded, fmt


def test_licence_refs_and_override_packages(tmp_path: Path) -> None:
    """Licences outside the SPDX list (an override's LicenseRef-) get their extracted licensing
    info in SPDX 2.3 and stay expressions in SPDX 3; the override's package contains its module."""
    root = build_article_root(tmp_path / "root")
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(
        f"- match: {APCFG}\n  licence: LicenseRef-Proprietary\n  package: vendor-sdk 4.2\n"
        f"- match: {UTIL}\n  licence: LicenseRef-Vendor-EULA AND MIT\n"
    )
    db = tmp_path / "fw.lbdb"
    linkgraph("scan", str(root.path), "--db", str(db), "--licences", str(overrides), "--quiet")
    spdx2 = _sbom(db, "spdx-json", tmp_path / "fw.spdx.json")
    assert spdx2_messages(spdx2) == [] and spdx2_schema_errors(spdx2) == []
    data = json.loads(spdx2.read_text())
    assert {i["licenseId"] for i in data["hasExtractedLicensingInfos"]} == {
        "LicenseRef-Proprietary",
        "LicenseRef-Vendor-EULA",
    }
    files = {f["fileName"].removeprefix("."): f for f in data["files"]}
    assert files[APCFG]["licenseConcluded"] == "LicenseRef-Proprietary"
    assert files[UTIL]["licenseConcluded"] == "LicenseRef-Vendor-EULA AND MIT"
    vendor = next(p for p in data["packages"] if p["name"] == "vendor-sdk")
    assert vendor["versionInfo"] == "4.2" and "externalRefs" not in vendor  # no package manager: no purl
    assert vendor["licenseDeclared"] == "LicenseRef-Proprietary"  # the override declares it
    contains = {(r["spdxElementId"], r["relatedSpdxElement"]) for r in data["relationships"]}
    assert (vendor["SPDXID"], files[APCFG]["SPDXID"]) in contains

    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "fw.spdx3.json").read_text())
    assert spdx3_schema_errors(doc) == [] and spdx3_shacl_violations(doc) == []
    expressions = {e.get("simplelicensing_licenseExpression") for e in doc["@graph"]}
    assert {"LicenseRef-Proprietary", "LicenseRef-Vendor-EULA AND MIT"} <= expressions


def test_modules_without_sha1_stay_packages(article: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    """A store written before linkgraph kept SHA1s (here: one module's removed from a copy of the
    article's database) still gives a valid document: that module is a Package with its SHA256,
    under the same id, so it is still contained and every edge still reaches it."""
    import shutil

    import ladybug

    _, db, report = article
    old = tmp_path / "old.lbdb"
    shutil.copyfile(db, old)
    database = ladybug.Database(str(old))
    ladybug.Connection(database).execute("MATCH (m:Module) WHERE m.path = $path SET m.sha1 = NULL", {"path": UTIL})
    database.close()
    path = _sbom(old, "spdx-json", tmp_path / "old.spdx.json")
    assert spdx2_messages(path) == [] and spdx2_schema_errors(path) == []
    assert spdx2_edges(path) == report_edges(report)
    data = json.loads(path.read_text())
    assert UTIL not in {f["fileName"].removeprefix(".") for f in data["files"]}
    (util,) = [p for p in data["packages"] if p["name"] == UTIL]
    assert [c["algorithm"] for c in util["checksums"]] == ["SHA256"] and util["filesAnalyzed"] is False
    assert ("SPDXRef-Firmware", util["SPDXID"]) in {
        (r["spdxElementId"], r["relatedSpdxElement"])
        for r in data["relationships"]
        if r["relationshipType"] == "CONTAINS"
    }


def _evidence_line(ident: dict[str, Any]) -> str:
    """What each document says of an identification's evidence, made here from the JSON report's."""
    evidence = "; ".join(
        f'{e["kind"]} "{e["text"]}"' + (f" at offset {e['offset']:#x}" if "offset" in e else "")
        for e in ident["evidence"]
    )
    return f"evidence: {evidence}"


def test_identified_components_and_copies_inside(tmp_path: Path) -> None:
    """The identification (docs/identify.md) in both SPDX documents, read back by spdx-tools and
    spdx-python-model: each identified module's evidence annotates its File, each component found
    inside a module is a package the File contains, with its purl and CPE."""
    from spdx_tools.spdx.model import ExternalPackageRefCategory
    from spdx_tools.spdx.parser.parse_anything import parse_file
    from support.identify_root import MEDIATOOL, VENDOR_WIFI, build_identify_root

    root = build_identify_root(tmp_path / "root").path
    db, report = _scanned(root, tmp_path, "identify")
    modules = {m["path"]: m for m in report["modules"]}
    inside = {(p, c["component"]): c for p, m in modules.items() for c in m["contains"]}
    assert sorted(inside) == [(MEDIATOOL, "ffmpeg"), (MEDIATOOL, "glibc"), (VENDOR_WIFI, "wireless-tools")]

    spdx2 = _sbom(db, "spdx-json", tmp_path / "identify.spdx.json")
    assert spdx2_messages(spdx2) == [] and spdx2_schema_errors(spdx2) == []
    document = parse_file(str(spdx2))
    names = {f.spdx_id: f.name.removeprefix(".") for f in document.files}
    said = {names.get(a.spdx_id): a.annotation_comment for a in document.annotations}
    for path, m in modules.items():
        if m["identity"]:  # an SPDX 2.3 File has no external references: its annotation names them
            assert _evidence_line(m["identity"]) in said[path], path
            ids = [f"{k} {m['identity'][k]}" for k in ("purl", "cpe") if m["identity"][k]]
            assert ids and all(i in said[path] for i in ids), (path, said[path])
    packages = {p.spdx_id: p for p in document.packages}
    contains = [(names[r.spdx_element_id], packages[str(r.related_spdx_element_id)]) for r in document.relationships
                if r.relationship_type.name == "CONTAINS" and r.spdx_element_id in names]  # fmt: skip
    assert sorted((path, p.name) for path, p in contains) == sorted(inside)
    for path, package in contains:
        c = inside[(path, package.name)]
        refs = {(r.category, r.reference_type, r.locator) for r in package.external_references}
        expected = {(ExternalPackageRefCategory.PACKAGE_MANAGER, "purl", c["purl"])}
        expected |= {(ExternalPackageRefCategory.SECURITY, "cpe23Type", c["cpe"])} if c["cpe"] else set()
        assert refs == expected
        assert package.version == c["version"] and str(package.license_concluded) == c["licence"]
        assert any(_evidence_line(c) in a.annotation_comment for a in document.annotations
                   if a.spdx_id == package.spdx_id)  # fmt: skip

    doc = json.loads(_sbom(db, "spdx3-json", tmp_path / "identify.spdx3.json").read_text())
    assert spdx3_schema_errors(doc) == [] and spdx3_shacl_violations(doc) == []
    model, objects = spdx3_objects(doc)
    statements = {_element_name(a.subject): a.statement for a in objects.foreach_type(model.Annotation)}
    files = {f.name: f for f in objects.foreach_type(model.software_File)}
    for path, m in modules.items():
        if m["identity"]:
            assert _evidence_line(m["identity"]) in statements[path], path
            assert _identifiers(files[path]) == _expected_identifiers(m["identity"], ("packageUrl", "cpe23")), path
    for (_path, name), c in inside.items():
        (package,) = [p for p in objects.foreach_type(model.software_Package) if p.name == name]
        assert (package.software_packageVersion, package.software_packageUrl) == (c["version"], c["purl"])
        assert _identifiers(package) == _expected_identifiers(c, ("cpe23",)), name
        assert _evidence_line(c) in statements[name]
    held = {
        (_element_name(r.from_), _element_name(t))
        for r in objects.foreach_type(model.Relationship)
        if r.relationshipType == model.RelationshipType.contains
        for t in r.to
    }
    assert set(inside) <= held


def _identifiers(element: Any) -> set[tuple[str, str]]:
    """(type, identifier) of an SPDX 3 element's external identifiers, as spdx-python-model reads them."""
    return {(e.externalIdentifierType.split("/")[-1], e.identifier) for e in element.externalIdentifier}


def _expected_identifiers(ident: dict[str, Any], types: tuple[str, ...]) -> set[tuple[str, str]]:
    found = {("packageUrl", ident["purl"]), ("cpe23", ident["cpe"])}
    return {(t, v) for t, v in found if v and t in types}


def _element_name(element: Any) -> str | None:
    return None if isinstance(element, str) else element.name
