"""Archives nested inside a source release (docs/sources.md): a vendor release that ships a
package's source as a tarball (``apps/hello-2.4.tar.bz2``) or a zip is read into it, each archive's
members below its path, and its folder a package named from the archive's name. Programs built
here from those sources (no DWARF: their strings alone tie them) get ``source`` from the nested
folders."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import linkgraph
from support.archive_bytes import tar_bytes, zip_bytes
from support.spdx_read import (
    pyspdxtools,
    spdx2_messages,
    spdx2_schema_errors,
    spdx3_schema_errors,
    spdx3_shacl_violations,
)


def _program(name: str) -> bytes:
    """A C program whose string literals are its own (tier 3 finds them in one folder only)."""
    lines = [f'    puts("{name}: distinctive message number {n} of the nested test");' for n in range(12)]
    return ("#include <stdio.h>\nint main(void) {\n" + "\n".join(lines) + "\n    return 0;\n}\n").encode()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    base = tmp_path_factory.mktemp("nested")
    root = base / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    for name in ("hello", "tool"):
        source = base / f"{name}.c"
        source.write_bytes(_program(name))
        subprocess.run(["gcc", "-O1", "-s", "-o", str(root / "usr" / "bin" / name), str(source)], check=True)
    hello = tar_bytes(
        [("hello-2.4/hello.c", _program("hello")), ("hello-2.4/Makefile", b"hello: hello.c\n\t$(CC) -o $@ $<\n")],
        "w:bz2",
    )
    tool = zip_bytes([("tool.c", _program("tool")), ("Makefile", b"tool: tool.c\n\t$(CC) -o $@ $<\n")])
    release = base / "gpl.tar.gz"
    release.write_bytes(
        tar_bytes(
            [
                ("gpl/README", b"make -C build\n"),
                ("gpl/build/Makefile", b"all:\n\ttar xjf ../apps/hello-2.4.tar.bz2\n"),
                ("gpl/apps/hello-2.4.tar.bz2", hello),
                ("gpl/apps/tool-0.9.zip", tool),
            ],
            "w:gz",
        )
    )
    db = base / "graph.lbdb"
    env = {"LINKGRAPH_CACHE": str(base / "cache")}
    linkgraph("scan", str(root), "--db", str(db), "--quiet", "--source", str(release), env=env)
    rows = json.loads(linkgraph("query", "source-status", "--db", str(db), "--json", "--quiet").stdout)
    return db, {r["module"]: r for r in rows}


@pytest.fixture(scope="module")
def checked(scanned: tuple[Path, dict[str, dict]]) -> dict[str, dict]:
    return scanned[1]


def test_programs_get_source_from_nested_archives(checked: dict[str, dict]) -> None:
    got = {m: (r["status"], r["tier"], r["folder"], r["package"], r["version"]) for m, r in checked.items()}
    assert got == {
        # the tarball's own top folder, named by itself
        "/usr/bin/hello": ("source", "strings", "apps/hello-2.4.tar.bz2/hello-2.4", "hello", "2.4"),
        # a zip with no top folder: the archive's folder, named by the archive's name
        "/usr/bin/tool": ("source", "strings", "apps/tool-0.9.zip", "tool", "0.9"),
    }
    evidence = json.loads(checked["/usr/bin/hello"]["evidence"])
    assert {e["file"] for e in evidence} == {"apps/hello-2.4.tar.bz2/hello-2.4/hello.c"}
    assert all("hello: distinctive message" in e["text"] for e in evidence)


def test_spdx_carries_the_source_status(scanned: tuple[Path, dict[str, dict]], tmp_path: Path) -> None:
    """SPDX 2.3: each checked module's File has its source status as an annotation, and is
    GENERATED_FROM a Package of its release folder whose sourceInfo names the folder; spdx-tools'
    validator, the published JSON schema and pyspdxtools accept the document."""
    db, status = scanned
    path = tmp_path / "fw.spdx.json"
    linkgraph("report", "--db", str(db), "--format", "spdx-json", "-o", str(path))
    assert spdx2_messages(path) == []
    assert spdx2_schema_errors(path) == []
    run = pyspdxtools(path, "-o", str(tmp_path / "fw.spdx"))
    assert run.returncode == 0, run.stderr
    doc = json.loads(path.read_text())
    files = {f["fileName"]: f for f in doc["files"]}
    packages = {p["SPDXID"]: p for p in doc["packages"]}
    generated = {r["spdxElementId"]: r["relatedSpdxElement"] for r in doc["relationships"]
                 if r["relationshipType"] == "GENERATED_FROM"}  # fmt: skip
    for module, row in status.items():
        entry = files["." + module]
        notes = [a["comment"] for a in entry.get("annotations", []) if "source status" in a["comment"]]
        assert notes == [
            f"linkgraph source status: source\nrelease: gpl.tar.gz\ntier: strings\nfolder: {row['folder']}"
        ]
        source = packages[generated[entry["SPDXID"]]]
        assert (source["name"], source["versionInfo"], source["primaryPackagePurpose"]) == (
            row["package"],
            row["version"],
            "SOURCE",
        )
        assert source["sourceInfo"] == f"the folder {row['folder']} of the vendor's source release gpl.tar.gz"


def test_spdx3_carries_the_source_status(scanned: tuple[Path, dict[str, dict]], tmp_path: Path) -> None:
    """SPDX 3.0.1: each checked module's status as an Annotation of its File, and a source
    software_Package of its release folder (software_sourceInfo) that ``generates`` it; the JSON
    schema and the model's SHACL shapes accept the document."""
    db, status = scanned
    path = tmp_path / "fw.spdx3.json"
    linkgraph("report", "--db", str(db), "--format", "spdx3-json", "-o", str(path))
    doc = json.loads(path.read_text())
    assert spdx3_schema_errors(doc) == []
    assert spdx3_shacl_violations(doc) == []
    elements = {e.get("spdxId"): e for e in doc["@graph"]}
    files = {e["name"]: e["spdxId"] for e in doc["@graph"] if e["type"] == "software_File"}
    notes = {e["subject"]: e["statement"] for e in doc["@graph"]
             if e["type"] == "Annotation" and e["statement"].startswith("linkgraph source status")}  # fmt: skip
    generates = {to: e["from"] for e in doc["@graph"] if e.get("relationshipType") == "generates" for to in e["to"]}
    for module, row in status.items():
        assert notes[files[module]].startswith("linkgraph source status: source\n")
        source = elements[generates[files[module]]]
        assert (source["name"], source["software_packageVersion"], source["software_primaryPurpose"]) == (
            row["package"],
            row["version"],
            "source",
        )
        assert source["software_sourceInfo"] == f"the folder {row['folder']} of the vendor's source release gpl.tar.gz"
