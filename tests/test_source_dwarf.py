"""Tier 2 of the source check (docs/sources.md): a program built here with ``-g`` from a small source
tree, a release packed from that tree, and the program's DWARF compile paths naming its folder. The
judge reads the DWARF itself with binutils' ``readelf --debug-dump=info``; the program's bytes are
in no release file (tier 1 cannot match) and its source holds no string literal and exports no
function (tier 3 has nothing to go on)."""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import linkgraph

# no string literal, no exported function: only the compile paths can tie the program to its folder
PROGRAM = b"""static int twice(int n) { return n * 2; }
int main(int argc, char **argv) { (void)argv; return twice(argc) - 2; }
"""
HELPER = b"int helper_value(int n) { return n + 40; }\n"


def _tree(top: Path) -> None:
    """A vendor tree: the program's package, and another package with a file of the same name."""
    (top / "apps" / "counter-1.3" / "src").mkdir(parents=True)
    (top / "apps" / "counter-1.3" / "src" / "main.c").write_bytes(PROGRAM)
    (top / "apps" / "counter-1.3" / "src" / "helper.c").write_bytes(HELPER)
    (top / "apps" / "counter-1.3" / "Makefile").write_bytes(b"all:\n\tgcc -g -o counter src/main.c src/helper.c\n")
    (top / "apps" / "other-2.0" / "src").mkdir(parents=True)
    (top / "apps" / "other-2.0" / "src" / "main.c").write_bytes(b"int main(void) { return 0; }\n")
    (top / "apps" / "other-2.0" / "Makefile").write_bytes(b"all:\n\tgcc -o other src/main.c\n")
    (top / "README").write_bytes(b"Run make in each folder of apps.\n")


def _build(tree: Path, out: Path) -> None:
    """Built in its own folder, as a vendor builds: the compile paths are relative to it."""
    subprocess.run(
        ["gcc", "-g", "-O0", "-o", str(out), "src/main.c", "src/helper.c"],
        cwd=tree / "apps" / "counter-1.3",
        check=True,
    )


def readelf_compile_paths(binary: Path) -> list[str]:
    """The judge: every compile unit's DW_AT_name joined to its DW_AT_comp_dir, from binutils."""
    dump = subprocess.run(
        ["readelf", "--debug-dump=info", "--wide", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    paths, unit = [], {}
    for line in dump.splitlines():
        if "DW_TAG_compile_unit" in line:
            unit = {}
        found = re.search(r"DW_AT_(name|comp_dir)\s*:\s*(?:\(.*?\):\s*)?(.+)$", line)
        if found and unit is not None:
            unit[found.group(1)] = found.group(2).strip()
            if "name" in unit and "comp_dir" in unit:
                name = unit["name"]
                paths.append(name if name.startswith("/") else f"{unit['comp_dir']}/{name}")
                unit = None  # the unit's later entries have names of their own
    return paths


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    base = tmp_path_factory.mktemp("dwarf")
    tree = base / "build" / "vendor-gpl"
    _tree(tree)
    root = base / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    binary = root / "usr" / "bin" / "counter"
    _build(tree, binary)
    release = base / "vendor-gpl.tar.gz"
    with tarfile.open(release, "w:gz") as tar:
        tar.add(tree, arcname="vendor-gpl")
    db = base / "graph.lbdb"
    env = {"LINKGRAPH_CACHE": str(base / "cache")}
    linkgraph("scan", str(root), "--db", str(db), "--quiet", "--source", str(release), env=env)
    rows = json.loads(linkgraph("query", "source-status", "--db", str(db), "--json", "--quiet").stdout)
    return binary, tree, {r["module"]: r for r in rows}


def test_compile_paths_name_the_source_folder(checked) -> None:
    binary, tree, status = checked
    judged = readelf_compile_paths(binary)
    # the judge's compile paths: both units, in the program's package of the tree
    assert sorted(p.rsplit("/", 1)[1] for p in judged) == ["helper.c", "main.c"]
    row = status["/usr/bin/counter"]
    assert row["release_paths"] == []  # no release file has its bytes
    assert (row["status"], row["tier"], row["folder"], row["package"], row["version"]) == (
        "source",
        "dwarf",
        "apps/counter-1.3",
        "counter",
        "1.3",
    )
    evidence = json.loads(row["evidence"])
    assert {e["kind"] for e in evidence} == {"dwarf"}
    # each piece of evidence: a compile path of the judge's, ending in the release path it names
    assert sorted(e["text"] for e in evidence) == sorted(judged)
    for piece in evidence:
        assert piece["text"].endswith("/" + piece["file"])
        assert (tree / piece["file"]).is_file()
    assert sorted(e["file"] for e in evidence) == ["apps/counter-1.3/src/helper.c", "apps/counter-1.3/src/main.c"]


def test_hostile_dwarf_is_a_problem_record(checked, tmp_path: Path) -> None:
    """The same program with its .debug_info overwritten: the scan finishes, the module's DWARF is a
    ``dwarf-unreadable`` problem, and the module is no longer tied to a folder by it."""
    from elftools.elf.elffile import ELFFile

    binary, tree, _status = checked
    data = bytearray(binary.read_bytes())
    with open(binary, "rb") as stream:
        info = ELFFile(stream).get_section_by_name(".debug_info")
        start, size = info["sh_offset"], info["sh_size"]
    data[start : start + size] = b"\xff" * size
    root = tmp_path / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / "counter").write_bytes(bytes(data))
    release = tmp_path / "vendor-gpl.tar.gz"
    with tarfile.open(release, "w:gz") as tar:
        tar.add(tree, arcname="vendor-gpl")
    db = tmp_path / "graph.lbdb"
    env = {"LINKGRAPH_CACHE": str(tmp_path / "cache")}
    linkgraph("scan", str(root), "--db", str(db), "--quiet", "--source", str(release), env=env, check=False)
    problems = json.loads(linkgraph("query", "problems", "--db", str(db), "--json", "--quiet").stdout)
    assert [(p["path"], p["code"]) for p in problems if p["code"] == "dwarf-unreadable"] == [
        ("/usr/bin/counter", "dwarf-unreadable")
    ]
    rows = json.loads(linkgraph("query", "source-status", "--db", str(db), "--json", "--quiet").stdout)
    assert [(r["module"], r["status"], r["tier"]) for r in rows] == [("/usr/bin/counter", "absent", None)]
