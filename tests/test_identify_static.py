"""A component linked into a program is found inside it (a CONTAINS edge), as the linker recorded.

The oracle is the linker: musl-gcc links tests/fixtures/static/*.c with ``-static`` against musl's
``libc.a`` and a zlib compiled from Debian's source (tests/support/static_fixtures.py), and the
link map it writes lists every archive member that went into the program. A program holds a copy
of musl, of zlib, exactly when members of that archive were included; ``plain`` is linked with the
same ``-lz`` but uses no zlib, so the linker takes none of it and no zlib may be found. zlib's
version is the one its own ``zlib.h`` states. A vendor's static busybox is checked against its
banner and the root's own uClibc file names, and a program that loads zlib dynamically against its
``DT_NEEDED`` entries.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.loader.identify import EvidenceKind, Identification
from linkgraph.loader.scan.root import scan_root
from linkgraph.loader.store import open_store
from support import static_fixtures as sf
from support.host_programs import copy_with_libraries
from support.musl_roots import readelf_dynamic
from support.vendor_roots import extracted_root

DEVICE = {"ztool": "/usr/bin/ztool", "plain": "/usr/bin/plain"}
CONTAINS = (
    "MATCH (m:Module)-[c:CONTAINS]->(k:Component) "
    "RETURN m.path AS path, k.name AS name, k.version AS version, k.licence AS licence, "
    "c.certainty AS certainty, c.evidence AS evidence"
)


@pytest.fixture(scope="module")
def built() -> dict[str, sf.StaticProgram]:
    return {name: sf.static_program(name) for name in DEVICE}


@pytest.fixture(scope="module")
def root(built: dict[str, sf.StaticProgram], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny root holding both programs."""
    top = tmp_path_factory.mktemp("static") / "root"
    for name, device in DEVICE.items():
        dest = top / device.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[name].path, dest)
    return top


def linked(program: sf.StaticProgram) -> dict[str, set[str]]:
    """The members of musl's and zlib's archives the linker put into the program (the oracle)."""
    members = sf.archive_members(program.link_map)
    print(f"{program.path.name}: ld --trace read {', '.join(program.trace)}")
    shown = json.dumps({str(k): sorted(v) for k, v in members.items()})
    print(f"{program.path.name}: link map, members included: {shown}")
    return {
        comp: members[archive]
        for comp, archive in (("musl", program.libc), ("zlib", program.libz))
        if members.get(archive)
    }


def contained(found: Any) -> dict[str, Identification]:
    return {i.component: i for i in found.contains} if found is not None else {}


@pytest.mark.parametrize("name", sorted(DEVICE))
def test_a_static_program_contains_what_the_linker_put_in(
    name: str, built: dict[str, sf.StaticProgram], root: Path
) -> None:
    program = built[name]
    traced = {Path(os.path.realpath(p)) for p in program.trace}
    assert {program.libc, program.libz} <= traced, "the linker read both archives"
    oracle = linked(program)
    # the fixtures are what their names say: ztool uses zlib and plain does not
    assert "musl" in oracle and ("zlib" in oracle) == (name == "ztool")
    found = contained(scan_root(str(root)).identities.get(DEVICE[name]))
    assert set(found) == set(oracle)
    if "zlib" in found:
        assert found["zlib"].version == program.zlib.version  # zlib.h's ZLIB_VERSION
    data = program.path.read_bytes()
    archives = {"musl": program.libc, "zlib": program.libz}
    for comp, ident in found.items():
        strings = [e for e in ident.evidence if e.kind is EvidenceKind.STRING]
        assert strings, f"{comp}: no string evidence"
        members = {m: sf.member_bytes(archives[comp], m) for m in oracle[comp]}
        for evidence in strings:
            text = evidence.text.encode("latin-1")
            assert evidence.offset is not None and data[evidence.offset : evidence.offset + len(text)] == text
            # the matched bytes come from an object the linker took from that component's archive
            assert any(text in body for body in members.values()), f"{comp}: {evidence.text!r} in no included member"


def _stored(rows: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    return {(r["path"], r["name"], r["version"], r["licence"], r["certainty"], r["evidence"]) for r in rows}


def _scanned(root: Path) -> set[tuple[Any, ...]]:
    """The CONTAINS edges the scan's identities make, as the store should hold them."""
    return {
        (path, i.component, i.version, i.licence, i.certainty.value, json.dumps([e.record() for e in i.evidence]))
        for path, found in scan_root(str(root)).identities.items()
        for i in found.contains
    }


def _check_store(rows: list[dict[str, Any]], built: dict[str, sf.StaticProgram], root: Path) -> None:
    stored = _stored(rows)
    assert {(r[0], r[1]) for r in stored} == {(DEVICE[n], c) for n, p in built.items() for c in linked(p)}
    assert {r[2] for r in stored if r[1] == "zlib"} == {built["ztool"].zlib.version}
    assert {r[:5] for r in stored} == {r[:5] for r in _scanned(root)}
    assert {(r[0], r[1], tuple(e["text"] for e in json.loads(r[5]))) for r in stored} == {
        (r[0], r[1], tuple(e["text"] for e in json.loads(r[5]))) for r in _scanned(root)
    }


def test_the_contains_edges_are_stored(built: dict[str, sf.StaticProgram], root: Path, tmp_path: Path) -> None:
    db = tmp_path / "graph.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet")
    with open_store(db=str(db), read_only=True) as store:
        rows = store.execute(CONTAINS)
    _check_store(rows, built, root)


@pytest.mark.slow
def test_the_contains_edges_are_stored_in_neo4j(
    built: dict[str, sf.StaticProgram], root: Path, neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    from linkgraph.loader.store.neo4j_store import Neo4jStore

    with Neo4jStore(neo4j_server.uri, neo4j_server.user, neo4j_server.password) as store:
        store.execute("MATCH (n) DETACH DELETE n")
    linkgraph("scan", str(root), "--neo4j", neo4j_server.uri, "--quiet", env=neo4j_env)
    with Neo4jStore(neo4j_server.uri, neo4j_server.user, neo4j_server.password, read_only=True) as store:
        rows = store.execute(CONTAINS)
    _check_store(rows, built, root)


def test_a_program_that_loads_zlib_holds_no_copy(tmp_path: Path) -> None:
    program = tmp_path / "zdyn"
    sf.run(["gcc", "-O1", str(sf.FIXTURES / "zdyn.c"), "-o", str(program), "-lz"])
    assert "libz.so.1" in readelf_dynamic(program)["NEEDED"]
    header = Path("/usr/include/zlib.h").read_text(encoding="latin-1")
    version = sf.ZLIB_VERSION.search(header)
    assert version is not None
    # its credit line is zlib's own banner: only its DT_NEEDED says it holds no copy
    assert f"deflate {version.group(1)} Copyright 1995-".encode() in program.read_bytes()
    root = tmp_path / "root"
    copy_with_libraries(str(program), root)
    identities = scan_root(str(root)).identities
    assert "zlib" not in contained(identities.get(str(program)))
    ldd = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    libz = next(os.path.realpath(line.split()[2]) for line in ldd.splitlines() if line.split()[0] == "libz.so.1")
    own = identities[libz].own  # the library itself is zlib, and holds no copy of itself
    assert own is not None and (own.component, own.version) == ("zlib", version.group(1))
    assert "zlib" not in contained(identities[libz])


@pytest.mark.slow
def test_dlink_static_busybox_contains_uclibc() -> None:
    from elftools.elf.elffile import ELFFile

    top, _sha = extracted_root("dlink_dir880l")
    busybox = top / "bin/busybox"
    with open(busybox, "rb") as fh:
        segments = {s["p_type"] for s in ELFFile(fh).iter_segments()}
    assert "PT_INTERP" not in segments and "PT_DYNAMIC" not in segments, "busybox is linked statically"
    banner = re.search(rb"BusyBox v([0-9]+(?:\.[0-9]+)+) \(", busybox.read_bytes())
    assert banner is not None
    uclibc_files = {
        p.name: m[1] for p in (top / "lib").iterdir() if (m := re.fullmatch(r"(?:lib|ld-)uClibc-([0-9.]+)\.so", p.name))
    }
    assert len(set(uclibc_files.values())) == 1, uclibc_files
    (expected,) = set(uclibc_files.values())
    found = scan_root(str(top)).identities["/bin/busybox"]
    assert found.own is not None
    assert (found.own.component, found.own.version) == ("busybox", banner.group(1).decode())
    uclibc = contained(found)["uclibc"]
    assert uclibc.version == expected
    notes = [e.text for e in uclibc.evidence if e.kind is EvidenceKind.ROOT]
    assert len(notes) == 1
    named = posixpath.basename(notes[0].rsplit(": ", 1)[1])
    assert named in uclibc_files, f"the version's source {notes[0]!r} is no uClibc file of the root"
