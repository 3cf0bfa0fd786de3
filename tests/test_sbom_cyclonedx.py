"""The CycloneDX 1.6 SBOM (``linkgraph report --format cyclonedx-json``), judged by
cyclonedx-python-lib: its strict 1.6 JSON validator finds no error, its deserialiser (the real
consumer) reads the document back, and what it reads is the graph of the JSON report computed in
the same test: a component per module, ``dependsOn`` exactly the used and hidden edges, one
``linkgraph:dependency:STATUS`` property per edge, the bound symbols as evidence occurrences at
their users, blint's ``internal:`` summaries. On the article's root busybox is checked against
the article; on the LEDE and Freifunk images and a Debian armhf root the purls against the
firmware's own opkg / dpkg data."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from cyclonedx.model.bom import Bom
from cyclonedx.model.component import Component
from cyclonedx.model.license import LicenseExpression
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from packageurl import PackageURL
from support.article import APCFG, APLOG, BUSYBOX, CRYPT, GCC_S, LIBC, NVRAM, TRAP_MISSING, UTIL, build_article_root
from support.images import FFULM, LEDE

BINDING = ("used", "hidden")


def _sbom_and_report(db: Path) -> tuple[str, dict]:
    report = json.loads(linkgraph("report", "--db", str(db)).stdout)
    out = db.parent / "sbom.cdx.json"
    linkgraph("report", "--db", str(db), "--format", "cyclonedx-json", "-o", str(out))
    return out.read_text(encoding="utf-8"), report


def _read_back(text: str) -> Bom:
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text, all_errors=True)
    assert errors is None, [e.data.message for e in errors][:10]  # type: ignore[union-attr]
    bom = Bom.from_json(json.loads(text))  # type: ignore[attr-defined]
    assert bom.validate()  # the library's own checks: every dependency names a component of the BOM
    return bom


def _props(c: Component, name: str) -> list[str]:
    return sorted(str(p.value) for p in c.properties if p.name == name)


def _assert_is_the_report(bom: Bom, report: dict) -> dict[str, Component]:
    """Everything the SBOM says of the graph is what the JSON report says, and nothing else."""
    components = {str(c.bom_ref.value): c for c in bom.components}
    modules = {m["path"]: m for m in report["modules"]}
    assert sorted(components) == sorted(modules)
    assert bom.metadata.component is not None and bom.metadata.component.name == report["firmware"]["name"]
    edges = report["dependencies"]

    depends = {str(d.ref.value): {str(x.ref.value) for x in d.dependencies} for d in bom.dependencies}
    expected: dict[str, set[str]] = {path: set() for path in modules}
    for e in edges:
        if e["status"] in BINDING:
            expected[e["from"]].add(e["to"])
    programs = {p for p, m in modules.items() if m["kind"] == "executable"}
    assert depends == {**expected, "firmware": programs}

    said = [p.name for c in components.values() for p in c.properties]
    by_status = Counter(name.rsplit(":", 1)[1] for name in said if name.startswith("linkgraph:dependency:"))
    assert by_status == Counter(e["status"] for e in edges)

    occurrences = {
        (path, o.location, o.symbol)
        for path, c in components.items()
        for o in (c.evidence.occurrences if c.evidence else ())
        if o.symbol
    }
    assert occurrences == {(e["to"], e["from"], s) for e in edges if e["status"] in BINDING for s in e["symbols"]}

    def said_as(prefix: str) -> list[tuple[str, str, str]]:
        return sorted(
            (path, p.name.removeprefix(prefix), str(p.value))
            for path, c in components.items()
            for p in c.properties
            if p.name.startswith(prefix)
        )

    assert said_as("linkgraph:dlopen:") == sorted((e["from"], e["certainty"], e["to"]) for e in report["dlopen"])
    kernel = sorted((e["module"], e["state"], e["target"]) for e in report["kernel_links"])
    assert said_as("linkgraph:kernel_link:") == kernel

    blint = {
        "declared-unused": "unused_dependencies",
        "hidden": "undeclared_dependencies",
        "missing": "missing_dependencies",
    }
    for path, c in components.items():
        for status, name in blint.items():
            said = [part for value in _props(c, f"internal:{name}") for part in value.split(", ")]
            assert sorted(said) == sorted({e["soname"] for e in edges if e["from"] == path and e["status"] == status})
        licence = modules[path]["licence"]
        found = [lic.value if isinstance(lic, LicenseExpression) else lic.id or lic.name for lic in c.licenses]
        assert found == ([licence] if licence else []), path
        certainty = {"declared": "declared", "identified": "concluded", "inferred": "concluded"}.get(
            modules[path]["licence_certainty"]
        )
        assert [lic.acknowledgement and lic.acknowledgement.value for lic in c.licenses] == (
            [certainty] if licence else []
        ), path
        assert {h.alg.value: len(h.content) for h in c.hashes} == {"SHA-256": 64, "SHA-1": 40}
        _assert_identification(c, modules[path])
    return components


def _method(e: dict) -> tuple[str, str]:
    technique = "filename" if e["kind"] == "name" else "other" if e["kind"] == "root" else "binary-analysis"
    return technique, e["text"] + (f" (at offset {e['offset']:#x})" if "offset" in e else "")


def _identities(c: Component) -> dict[str, tuple[str, set[tuple[str, str]]]]:
    return {
        i.field.value: (str(i.concluded_value), {(m.technique.value, str(m.value)) for m in i.methods})
        for i in (c.evidence.identity if c.evidence else ())
    }


def _assert_identification(c: Component, module: dict) -> None:
    """The module's identification (the report's ``identity``) is the component's identity evidence,
    every piece of evidence a method with its offset; each component inside is a nested component."""
    own = module["identity"]
    fields = ("name", "version", "purl", "cpe")
    if own is None:
        assert not _identities(c), module["path"]
    else:
        methods = {_method(e) for e in own["evidence"]}
        values = {"name": own["component"], "version": own["version"], "purl": own["purl"], "cpe": own["cpe"]}
        assert _identities(c) == {f: (values[f], methods) for f in fields if values[f]}, module["path"]
        assert c.cpe == own["cpe"]
    inside = {str(x.name): x for x in c.components}
    assert sorted(inside) == sorted(x["component"] for x in module["contains"]), module["path"]
    for x in module["contains"]:
        nested = inside[x["component"]]
        assert (nested.version, nested.cpe, str(nested.purl) if nested.purl else None) == (
            x["version"], x["cpe"], x["purl"]
        )  # fmt: skip
        methods = {_method(e) for e in x["evidence"]}
        assert _identities(nested)["name"] == (x["component"], methods)


def test_identified_components_and_the_copies_inside(tmp_path: Path) -> None:
    """A root with identified files and components copied inside them (support/identify_root.py)."""
    from support.identify_root import MEDIATOOL, VENDOR_WIFI, build_identify_root

    root = build_identify_root(tmp_path / "root").path
    linkgraph("scan", str(root), "--db", str(tmp_path / "graph.lbdb"), "--quiet")
    text, report = _sbom_and_report(tmp_path / "graph.lbdb")
    components = _assert_is_the_report(_read_back(text), report)
    assert sorted(str(x.name) for x in components[MEDIATOOL].components) == ["ffmpeg", "glibc"]
    assert [str(x.name) for x in components[VENDOR_WIFI].components] == ["wireless-tools"]
    # dnsmasq and libc by their strings, the loader by its name (the name table), the two GNU
    # programs and the GNU library by gnulib's text, docview by its copyright holder and home page
    assert sum(1 for c in components.values() if c.evidence and c.evidence.identity) == 7


# --------------------------------------------------------------------------- the article's root


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, dict]:
    work = tmp_path_factory.mktemp("cdx-article")
    root = build_article_root(work / "root")
    db = work / "graph.lbdb"
    linkgraph("scan", str(root.path), "--db", str(db), "--name", "tew-636apb", "--quiet")
    text, report = _sbom_and_report(db)
    return root.path, db, text, report


def test_article_busybox_is_the_articles(article: tuple[Path, Path, str, dict]) -> None:
    """busybox depends on libutility and libapcfg (and libc); the four declared-unused libraries
    are blint's unused dependencies; libapcfg depends on libutility and libaplog it does not
    declare; the symbols behind each edge are occurrences at their user."""
    _, _, text, report = article
    bom = _read_back(text)
    components = _assert_is_the_report(bom, report)
    depends = {str(d.ref.value): {str(x.ref.value) for x in d.dependencies} for d in bom.dependencies}
    assert depends[BUSYBOX] == {UTIL, APCFG, LIBC}
    unused = _props(components[BUSYBOX], "internal:unused_dependencies")[0].split(", ")
    assert sorted(unused) == sorted(Path(p).name for p in (NVRAM, APLOG, CRYPT, GCC_S))
    assert _props(components[BUSYBOX], "linkgraph:dependency:declared-unused") == sorted(
        f"{Path(p).name} -> {p}" for p in (NVRAM, APLOG, CRYPT, GCC_S)
    )
    assert {UTIL, APLOG} <= depends[APCFG]
    assert sorted(_props(components[APCFG], "internal:undeclared_dependencies")[0].split(", ")) == [
        "libaplog.so",
        "libutility.so",
    ]
    assert _props(components[APCFG], "linkgraph:dependency:hidden") == [
        f"libaplog.so -> {APLOG}",
        f"libutility.so -> {UTIL}",
    ]

    def symbols(path: str) -> set[tuple[str, str | None]]:
        evidence = components[path].evidence
        assert evidence is not None
        return {(o.location, o.symbol) for o in evidence.occurrences}

    assert {(BUSYBOX, "util_foo"), (APCFG, "util_bar"), (UTIL, None)} <= symbols(UTIL)
    assert (APCFG, "aplog_write") in symbols(APLOG)
    assert (BUSYBOX, "apcfg_get") in symbols(APCFG)
    assert not {s for _, s in symbols(NVRAM) if s} - {"nvram_get"}  # libapcfg's only: busybox binds nothing there
    assert _props(components[TRAP_MISSING], "internal:missing_dependencies") == ["libgone.so.1"]
    assert _props(components[TRAP_MISSING], "linkgraph:dependency:missing") == ["libgone.so.1"]


def test_article_components_carry_the_files_hashes_and_stay_the_same(article: tuple[Path, Path, str, dict]) -> None:
    """Each component's SHA-256 and SHA-1 are its file's (hashlib), its name the file's; a second export of
    the same store gives the same document byte for byte (bom-refs and serial number stable)."""
    root, db, text, _ = article
    bom = _read_back(text)
    for c in bom.components:
        data = (root / str(c.bom_ref.value).lstrip("/")).read_bytes()
        hashes = {h.alg.value: h.content for h in c.hashes}
        assert hashes == {"SHA-256": hashlib.sha256(data).hexdigest(), "SHA-1": hashlib.sha1(data).hexdigest()}
        assert c.name == Path(str(c.bom_ref.value)).name
    busybox = next(c for c in bom.components if c.bom_ref.value == BUSYBOX)
    assert busybox.type.value == "application" and _props(busybox, "linkgraph:alias") == ["/bin/sh", "/sbin/init"]
    assert linkgraph("report", "--db", str(db), "--format", "cyclonedx-json").stdout == text


def test_the_document_is_written_component_by_component(article: tuple[Path, Path, str, dict]) -> None:
    """The writer hands the output one component (and one dependency entry) at a time."""
    from linkgraph.loader.sbom.cyclonedx import write_cyclonedx
    from linkgraph.loader.store.base import open_store

    _, db, text, report = article

    class Recorder(io.StringIO):
        sizes: list[int]

        def write(self, s: str, /) -> int:
            self.sizes.append(len(s))
            return super().write(s)

    out = Recorder()
    out.sizes = []
    with open_store(db=str(db), read_only=True) as store:
        write_cyclonedx(store, store.resolve_firmware(None), out)
    assert out.getvalue() == text
    assert len(out.sizes) >= 2 * len(report["modules"])
    assert max(out.sizes) < len(text) / 4


# --------------------------------------------------------------------------- real firmware


def _scan_image(image: Path, tmp_path: Path) -> tuple[Bom, dict[str, Component], dict]:
    assert image.is_file(), f"{image} is missing: the shared firmware folder is part of the workplace"
    db = tmp_path / "fw.lbdb"
    linkgraph("scan", str(image), "--db", str(db), "--quiet")
    text, report = _sbom_and_report(db)
    bom = _read_back(text)
    return bom, _assert_is_the_report(bom, report), report


def _assert_purls(components: dict[str, Component], report: dict, kind: str) -> int:
    """Each component's purl names its module's package (the report's NAME VERSION); the count."""
    count = 0
    for module in report["modules"]:
        c = components[module["path"]]
        if c.purl is None:
            continue
        purl: Any = PackageURL.from_string(str(c.purl))
        assert purl.type == kind and f"{purl.name} {purl.version}" == module["package"], module["path"]
        count += 1
    return count


@pytest.mark.slow
@pytest.mark.parametrize("image", [LEDE, FFULM], ids=["lede", "freifunk"])
def test_router_image_sbom_is_its_graph(image: Path, tmp_path: Path) -> None:
    """LEDE 17.01.4 and Freifunk Ulm 0.6.5 (TL-WR841N v11, opkg): the SBOM validates and is the
    report's graph; every module its opkg data places in a package has that package's pkg:opkg purl."""
    _, components, report = _scan_image(image, tmp_path)
    statuses = Counter(e["status"] for e in report["dependencies"])
    assert statuses["used"] > 50 and len(components) > 100
    assert report["dlopen"] and report["kernel_links"]  # both compared above, so not vacuously
    packaged = [m for m in report["modules"] if m["package"]]
    assert packaged and _assert_purls(components, report, "opkg") == len(packaged)


@pytest.mark.slow
def test_debian_root_purls_are_its_dpkg_packages(tmp_path: Path) -> None:
    """A Debian 12 armhf root: each module's purl is pkg:deb/debian/NAME@VERSION of the package
    whose dpkg file list (read here) names the file, with the version of dpkg's status file."""
    from support import debian_roots

    root = debian_roots.cached_debian_root("armhf")
    db = tmp_path / "fw.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet")
    text, report = _sbom_and_report(db)
    components = _assert_is_the_report(_read_back(text), report)
    versions = {}
    for para in (root / "var/lib/dpkg/status").read_text().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in para.splitlines() if ": " in line and not line.startswith(" "))
        if "Package" in fields:
            versions[fields["Package"]] = fields["Version"]
    owners: dict[str, set[str]] = defaultdict(set)
    for listing in (root / "var/lib/dpkg/info").glob("*.list"):
        name = listing.stem.split(":")[0]
        for line in listing.read_text().splitlines():
            owners[(root / line.lstrip("/")).resolve().as_posix()].add(name)
    checked = 0
    for module in report["modules"]:
        purl = components[module["path"]].purl
        if purl is None:
            continue
        found: Any = PackageURL.from_string(str(purl))
        assert found.type == "deb" and found.namespace == "debian"
        assert found.name in owners[(root / module["path"].lstrip("/")).resolve().as_posix()], module["path"]
        assert found.version == versions[found.name]
        checked += 1
    assert checked == len([m for m in report["modules"] if m["package"]]) > 20


@pytest.mark.slow
def test_neo4j_gives_the_same_document(
    article: tuple[Path, Path, str, dict], neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    """The article's graph pushed into a real Neo4j exports the same document byte for byte."""
    _, db, text, report = article
    server = ["--neo4j", neo4j_server.uri]
    proc = linkgraph("push", "--db", str(db), *server, env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    firmware = ["--firmware", report["firmware"]["sha256"]]
    proc = linkgraph("report", *server, *firmware, "--format", "cyclonedx-json", env=neo4j_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text
