"""dlopen edges (docs/dlopen.md): candidates with their certainty, and the bindings of a dlopened
library in its program's link map, judged by the real glibc loader.

The fixture is built with gcc (tests/fixtures/dlopen): ``/usr/bin/host`` dlopens
``libplug_alpha.so`` by its exact name and ``/usr/lib/plugins/mod_%s.so`` through ``snprintf``;
the plugins use the program's ``libhelper.so`` without declaring it; ``libnoted.so`` declares
``libfeature.so.1`` in an ELF ``.note.dlopen`` note (the FDO dlopen metadata layout). The judge
is the root's own glibc ld.so started inside the root: the program runs, calls dlopen and exits,
with ``LD_DEBUG=bindings``; what each dlopened object bound to is read from that output. The
Freifunk image's ebtables and its 21 extension libraries are judged by the file system and
pyelftools' reading of ebtables' DT_RPATH and DT_NEEDED.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, linkgraph
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from linkgraph.loader.dlopen import DlopenEdge
from linkgraph.loader.scan.root import scan_root
from linkgraph.viewer import drawing_style
from support import strace_oracle as so
from support.fixture_root import FIXTURES, GCC, Root, real_loader, run_in_root, sstrip
from support.oracle import parse_bindings

APP, PLUGINS = "/usr/lib/app", "/usr/lib/plugins"
HOST = "/usr/bin/host"
ALPHA, DEP, HELPER = f"{APP}/libplug_alpha.so", f"{APP}/libplugdep.so", f"{APP}/libhelper.so"
BETA, GAMMA = f"{PLUGINS}/mod_beta.so", f"{PLUGINS}/mod_gamma.so"
NOTED, FEATURE = f"{APP}/libnoted.so", f"{APP}/libfeature.so.1"
PLUGS, FOLDER_HOST, FOLDER_PLAIN = "/opt/plugs", "/usr/bin/folder_host", "/usr/bin/folder_plain"
P1, P2, P3 = f"{PLUGS}/libp1.so", f"{PLUGS}/libp2.so", f"{PLUGS}/libp3.so"
RUN_ENV = {"LD_BIND_NOW": "1", "LD_DEBUG": "bindings", "LC_ALL": "C", "PATH": "/usr/bin:/bin"}
Binding = tuple[str, str, str | None, str]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Root:
    root = Root(tmp_path_factory.mktemp("dlopen") / "root")
    root.install_glibc()
    helper = root.lib(HELPER, ["dlopen/helper.c"])
    dep = root.lib(DEP, ["dlopen/plugdep.c"])
    root.lib(ALPHA, ["dlopen/plug_alpha.c"], needs=[dep])
    root.lib(BETA, ["dlopen/mod.c"])
    root.lib(GAMMA, ["dlopen/mod.c"])
    root.lib(FEATURE, ["dlopen/feature.c"])
    noted = root.lib(NOTED, ["dlopen/noted.c"])
    root.exe(HOST, ["dlopen/host.c"], needs=[helper, noted])
    root.lib(P1, ["dlopen/mod.c"])
    root.lib(P2, ["dlopen/mod.c"])
    root.exe(FOLDER_HOST, ["dlopen/folder_host.c"], runpath=f"{PLUGS}:{APP}")
    # a plugin: built without DT_SONAME, linked by name (-l), so DT_NEEDED says libp3.so
    subprocess.run([GCC, "-shared", "-fPIC", "-o", str(root.host(P3)), str(FIXTURES / "dlopen/mod.c")], check=True)
    libp3 = [f"-L{root.host(PLUGS)}", "-lp3"]
    root.exe(FOLDER_PLAIN, ["dlopen/folder_plain.c"], runpath=PLUGS, needs=[P1, helper], ldflags=libp3)
    root.write("/etc/ld.so.conf", APP + "\n")
    root.ldconfig()
    return root


@pytest.fixture(scope="module")
def edges(root: Root) -> dict[tuple[str, str], DlopenEdge]:
    result = scan_root(str(root.path))
    return {(e.source, e.target): e for e in result.dlopen}


def glibc_run(root: Root, *args: str) -> set[Binding]:
    """The program really run by the root's glibc (it dlopens, then exits): every binding printed."""
    proc = run_in_root(root, [HOST, *args], dict(RUN_ENV))
    assert proc.returncode == 0, f"{HOST} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-2000:]}"
    return {
        (root.canonical(m), s, v, root.canonical(p))
        for m, s, v, p, _protected in parse_bindings(proc.stderr)
        if "/" in m and "/" in p
    }


def test_exact_name_gives_a_named_edge(edges: dict[tuple[str, str], DlopenEdge]) -> None:
    edge = edges[(HOST, ALPHA)]
    assert (edge.certainty.value, edge.found_in.value, edge.evidence) == ("named", "string", "libplug_alpha.so")
    assert edge.host == HOST and not edge.loaded_at_start


def test_snprintf_pattern_gives_pattern_edges(edges: dict[tuple[str, str], DlopenEdge]) -> None:
    found = {target: (e.certainty.value, e.evidence) for (source, target), e in edges.items() if source == HOST}
    for plugin in (BETA, GAMMA):
        assert found.get(plugin) == ("pattern", f"{PLUGINS}/mod_%s.so"), found


def test_note_gives_a_declared_edge(root: Root, edges: dict[tuple[str, str], DlopenEdge]) -> None:
    notes = subprocess.run(["readelf", "-n", "-W", str(root.host(NOTED))], capture_output=True, text=True)
    assert re.search(r"^\s*FDO\s+0x[0-9a-f]+\s.*0x407c0c0a", notes.stdout, re.M), (
        notes.stdout
    )  # binutils reads the note
    edge = edges[(NOTED, FEATURE)]
    assert (edge.certainty.value, edge.found_in.value, edge.evidence) == ("declared", "note", "libfeature.so.1")
    # the file the note's soname names is the one glibc opens for it
    assert any(m == FEATURE for m, *_ in glibc_run(root, "beta", "libfeature.so.1"))


EXPECTED = {
    (HOST, ALPHA): ("named", "libplug_alpha.so"),
    (HOST, BETA): ("pattern", f"{PLUGINS}/mod_%s.so"),
    (HOST, GAMMA): ("pattern", f"{PLUGINS}/mod_%s.so"),
    (NOTED, FEATURE): ("declared", "libfeature.so.1"),
    (FOLDER_HOST, P1): ("pattern", PLUGS),  # DT_RUNPATH to a folder off the default search path
    (FOLDER_HOST, P2): ("pattern", PLUGS),  # (and none to /usr/lib/app: ld.so.conf lists it)
    (FOLDER_HOST, P3): ("pattern", PLUGS),
    (FOLDER_PLAIN, P3): ("pattern", PLUGS),  # no dlopen: the plugins it loads at start-up (not P1: a soname)
}


def test_nothing_else_gets_an_edge(edges: dict[tuple[str, str], DlopenEdge]) -> None:
    """Not the interpreter's name (.interp), not the DT_NEEDED names (.dynstr), not the libraries
    nobody names, not the libraries of a DT_RUNPATH folder the cache lists too, and from a program
    without a dlopen function only the plugins (no soname) of the folder it loads at start-up."""
    assert {key: (e.certainty.value, e.evidence) for key, e in edges.items()} == EXPECTED


def test_without_section_headers_the_same_edges(root: Root, tmp_path: Path) -> None:
    """sstripped: the strings come from the read-only PT_LOAD segments less the dynamic strings and
    PT_INTERP, the note from PT_NOTE."""
    stripped = root.clone(tmp_path / "stripped")
    for path in (HOST, NOTED):
        sstrip(stripped.host(path))
        with open(stripped.host(path), "rb") as fh:
            assert not ELFFile(fh).num_sections()
    found = {(e.source, e.target): (e.certainty.value, e.evidence) for e in scan_root(str(stripped.path)).dlopen}
    assert found == EXPECTED


@pytest.mark.parametrize("plugin", [ALPHA, BETA])
def test_bindings_in_the_host_link_map_equal_glibc(
    root: Root, edges: dict[tuple[str, str], DlopenEdge], plugin: str
) -> None:
    edge = edges[(HOST, plugin)]
    added = {plugin, DEP} if plugin == ALPHA else {plugin}
    theirs = {b for b in glibc_run(root) if b[0] in added}
    ours = {tuple(b) for b in edge.bindings}
    assert theirs, "glibc printed no binding of the plugin"
    assert ours == theirs, f"only ours: {sorted(ours - theirs)}\nonly glibc: {sorted(theirs - ours)}"
    own = set(real_loader(root, plugin).objects)  # the plugin's own link map, by glibc
    assert edge.hidden == sorted({b[3] for b in theirs} - own) == [HELPER]


# --------------------------------------------------------------------------- the Freifunk image


def _dynamic(path: Path) -> tuple[list[str], list[str]]:
    """DT_RPATH entries and DT_NEEDED names, read with pyelftools."""
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        rpath, needed = [], []
        for seg in elf.iter_segments():
            if seg["p_type"] == "PT_DYNAMIC":
                for tag in seg.iter_tags():
                    if tag.entry.d_tag == "DT_RPATH":
                        rpath += tag.rpath.split(":")
                    elif tag.entry.d_tag == "DT_NEEDED":
                        needed.append(tag.needed)
        assert not isinstance(elf.get_section_by_name(".dynamic"), DynamicSection)  # sstripped
        return rpath, needed


@pytest.mark.slow
def test_freifunk_ebtables_gets_its_extension_libraries() -> None:
    root, _sha = so.extracted_image("ffulm-0.6.5-")
    rpath, needed = _dynamic(root / "usr/sbin/ebtables")
    assert rpath == ["/usr/lib/ebtables"]
    folder = root / "usr/lib/ebtables"
    expected = {
        f"/usr/lib/ebtables/{p.name}" for p in folder.iterdir() if p.name.startswith(("libebt_", "libebtable_"))
    }
    assert len(expected) == 21
    result = scan_root(str(root))
    found = {e.target: e for e in result.dlopen if e.source == "/usr/sbin/ebtables"}
    assert set(found) == expected
    for target, edge in found.items():
        assert (edge.certainty.value, edge.found_in.value, edge.evidence) == ("pattern", "rpath", "/usr/lib/ebtables")
        assert edge.loaded_at_start == (target.rsplit("/", 1)[1] in needed)  # this build names them all as DT_NEEDED
    # uhttpd imports dlopen (a MIPS call through the global GOT) and names its TLS library
    uhttpd = root / "usr/sbin/uhttpd"
    with open(uhttpd, "rb") as fh:
        dynsym = ELFFile(fh).get_segment(0)  # no section headers: the symbols come from the dynamic segment
        undefined = {
            s.name
            for seg in ELFFile(fh).iter_segments()
            if seg["p_type"] == "PT_DYNAMIC"
            for s in seg.iter_symbols()
            if s["st_shndx"] == "SHN_UNDEF"
        }
    assert dynsym is not None and "dlopen" in undefined
    strings = subprocess.run(["strings", "-a", str(uhttpd)], capture_output=True, text=True, check=True).stdout
    assert "libustream-ssl.so" in strings.split()
    named = {
        (e.target, e.evidence) for e in result.dlopen if e.source == "/usr/sbin/uhttpd" and e.certainty.value == "named"
    }
    assert named == {("/lib/libustream-ssl.so", "libustream-ssl.so")}


# --------------------------------------------------------------------------- stores and report


def _report_entries(edges: dict[tuple[str, str], DlopenEdge]) -> list[dict[str, Any]]:
    """The report's dlopen section as docs/report.md describes it, made from the scan's edges."""
    return [
        {
            "from": e.source,
            "to": e.target,
            "certainty": e.certainty.value,
            "found_in": e.found_in.value,
            "evidence": e.evidence,
            "host": e.host,
            "loaded_at_start": e.loaded_at_start,
            "bindings": [dict(zip(("module", "symbol", "version", "provider"), b, strict=True)) for b in e.bindings],
            "hidden": e.hidden,
        }
        for _key, e in sorted(edges.items())
    ]


@pytest.mark.slow
def test_both_stores_and_the_report_agree(
    root: Root,
    edges: dict[tuple[str, str], DlopenEdge],
    neo4j_server: Any,
    neo4j_env: dict[str, str],
    tmp_path: Path,
) -> None:
    stores = {"ladybug": ["--db", str(tmp_path / "graph.lbdb")], "neo4j": ["--neo4j", neo4j_server.uri]}
    reports, answers = {}, {}
    for name, store in stores.items():
        proc = linkgraph("scan", str(root.path), *store, "--name", "dlopen-fixture", "--quiet", env=neo4j_env)
        assert proc.returncode in (0, 1), proc.stderr
        chosen = [*store, "--firmware", "dlopen-fixture"]
        reports[name] = json.loads(linkgraph("report", *chosen, env=neo4j_env).stdout)
        answers[name] = json.loads(linkgraph("query", "dlopen-edges", *chosen, "--json", env=neo4j_env).stdout)
    assert reports["ladybug"] == reports["neo4j"]
    assert answers["ladybug"] == answers["neo4j"]
    report = reports["ladybug"]
    jsonschema.validate(report, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    assert report["dlopen"] == _report_entries(edges)
    assert len(answers["ladybug"]) == len(EXPECTED)
    # not dependencies: the start-up classification does not know them
    plugins = {target for _source, target in EXPECTED}
    assert not [d for d in report["dependencies"] if d["to"] in plugins and d["from"] in (HOST, NOTED, FOLDER_HOST)]


def test_the_diagram_draws_dlopen_edges_in_their_own_style(root: Root, tmp_path: Path) -> None:
    db = tmp_path / "graph.lbdb"
    linkgraph("scan", str(root.path), "--db", str(db), "--quiet")
    out = tmp_path / "host.svg"
    linkgraph("diagram", HOST, "--db", str(db), "-o", str(out))
    svg = ET.fromstring(out.read_text())
    look = drawing_style.DLOPEN_LOOK
    drawn = {}
    for group in svg.iter(f"{SVG}g"):
        if {"edge", "dlopen"} <= set((group.get("class") or "").split()):
            tail, _, head = (group.find(f"{SVG}title").text or "").partition("->")
            path = next(group.iter(f"{SVG}path"))
            drawn[(tail, head)] = (path.get("stroke"), bool(path.get("stroke-dasharray")))
    assert len(drawn) == 3 and set(drawn.values()) == {(look.colour, True)}, drawn  # alpha, beta, gamma
    legend = svg.find(f".//{SVG}g[@id='legend']")  # the foot block names the dlopen style too
    assert legend is not None and "dlopen" in ["".join(t.itertext()) for t in legend.iter(f"{SVG}text")]


def test_hostile_notes_and_headers_are_problems_not_crashes(root: Root, tmp_path: Path) -> None:
    """A note whose JSON is broken declares nothing; section headers past the end of the file make a
    problem for that module (no string edges), and the scan goes on."""
    bad = root.clone(tmp_path / "bad")
    noted = bad.host(NOTED)
    data = noted.read_bytes()
    assert data.count(b'[{"feature"') == 1
    noted.write_bytes(data.replace(b'[{"feature"', b'[{"feature\x01'))
    host = bytearray(bad.host(HOST).read_bytes())
    struct.pack_into("<Q", host, 0x28, len(host) + 4096)  # e_shoff past the end
    bad.host(HOST).write_bytes(bytes(host))
    result = scan_root(str(bad.path))
    found = {(e.source, e.target) for e in result.dlopen}
    assert found == {(FOLDER_HOST, P1), (FOLDER_HOST, P2), (FOLDER_HOST, P3), (FOLDER_PLAIN, P3)}
    assert [p.code.value for p in result.problems if p.path == HOST and "dlopen" in p.code.value] == [
        "dlopen-hints-unreadable"
    ]


def test_plugin_folder_edges_of_a_program_without_dlopen(root: Root, edges: dict[tuple[str, str], DlopenEdge]) -> None:
    """glibc loads both libp1 (with a soname) and libp3 (a plugin) from the folder at start-up; only
    the plugin is an edge, marked as loaded at start-up."""
    loaded = set(real_loader(root, FOLDER_PLAIN).objects)
    assert {P1, P3} <= loaded
    assert [(t, e.found_in.value, e.loaded_at_start) for (s, t), e in edges.items() if s == FOLDER_PLAIN] == [
        (P3, "runpath", True)
    ]


def test_stored_bindings_read_back_in_both_forms() -> None:
    """A DLOPEN edge's bindings are stored compactly (each path once) and read back as they were;
    the plain list an older linkgraph stored reads back the same."""
    from linkgraph.loader.dlopen.rows import decode_bindings, encode_bindings

    bindings = [
        ("/usr/lib/plugin.so", "malloc", "GLIBC_2.2.5", "/lib/libc.so.6"),
        ("/usr/lib/plugin.so", "helper", None, "/usr/lib/libhelper.so"),
        ("/usr/lib/libhelper.so", "free", "GLIBC_2.2.5", "/lib/libc.so.6"),
    ]
    stored = encode_bindings(bindings)
    assert stored is not None and stored.count("/lib/libc.so.6") == 1
    assert decode_bindings(stored) == bindings
    assert decode_bindings(json.dumps([list(b) for b in bindings])) == bindings
    assert encode_bindings([]) is None and decode_bindings(None) == []
