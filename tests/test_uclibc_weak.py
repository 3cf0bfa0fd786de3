"""uClibc's choice between a weak and a later global definition, by the loader's version.

uClibc's ``_dl_find_hash`` up to 0.9.26 kept a weak definition aside and took a later global one
(and a library's global STT_NOTYPE one); commit e98bb7452, first released in 0.9.27, made the first
definition win whatever its binding (``loader/ldso/uclibc_build.py``). The version is read from
the loader's file name (``ld-uClibc-0.9.28.so``), as uClibc installs it, else from the libdl
beside it (weak ``_dl_*`` stubs up to 0.9.26).

The fixture is the one of ``test_musl_weak`` (tests/fixtures/musl_weak, MIPS assembly: a program
whose NEEDED list is ``libwk.so`` then ``libgl.so``, weak and global definitions of ``pick_a`` ..
``pick_e``), assembled for little-endian MIPS-II and linked against a real uClibc root, whose
loader, run by the runtime oracle (qemu-user, gdb reading every relocated slot at the entry
point), is the judge; linkgraph's bindings must equal its own everywhere:

* the Hi-Link HLK-RM04 root's C library and loader (uClibc 0.9.28): the first definition wins;
* the Linksys WAG200G root's (uClibc 0.9.19, tests/support/old_uclibc_root.py): weak definitions
  give way to later global ones, libdl's weak ``_dl_*`` stubs to the loader's globals (in the
  three programs of that root that load libdl), a library's global definition without a type to
  a later such one or a later global object (tests/fixtures/uclibc_weak/notype_*.s), with the
  loader's file named as on the device and as a plain copy (the version then told by libdl).

The WAG200G files come from a public repository that no registry the suite installs from serves,
so its two tests are marked ``external`` and left out of the default run: fill the cache once
(``python tests/support/old_uclibc_root.py fetch``, or ``fetch --git CLONE`` from a clone), then
``pytest -m external tests/test_uclibc_weak.py``. Without the cache they fail, saying so.

Loader file names of 0.9.26 and of no version with libdl's stubs built from source
(tests/fixtures/uclibc_weak) are checked by linkgraph's scan alone.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import linkgraph, scan_and_report
from elftools.elf.elffile import ELFFile
from linkgraph.loader.ldso.uclibc_build import FIRST_DEFINITION_WINS, WEAK_STUBS_LIBDL
from linkgraph.loader.ldso.weak_rule import UCLIBC_BEFORE_0_9_27
from support import old_uclibc_root as old
from support import vendor_roots as vendor
from test_musl_weak import PROGRAM, _run, build_fixture
from test_runtime_agreement import root_agreement

pytestmark = pytest.mark.slow

WK, GL = "/lib/libwk.so", "/lib/libgl.so"
# which object the program's references (and libwk.so's use of pick_e) bind to, per rule
OLD_RULE = {"pick_a": GL, "pick_b": WK, "pick_c": WK, "pick_d": GL, "pick_e": GL}
NEW_RULE = {"pick_a": WK, "pick_b": WK, "pick_c": WK, "pick_d": WK, "pick_e": PROGRAM}
# the global definitions without a type (tests/fixtures/uclibc_weak/notype_*.s): libna.so defines
# pick_n, pick_m, pick_o so; libnb.so after it pick_n so, pick_m weak, pick_o as a global object
STUBS = Path(__file__).resolve().parent / "fixtures" / "uclibc_weak"
NOTYPE_PROGRAM, NA, NB = "/usr/bin/notypepick", "/lib/libna.so", "/lib/libnb.so"
NOTYPE_OLD_RULE = {"pick_n": NB, "pick_m": NA, "pick_o": NB}


def _hilink_root(tmp_path: Path, loader_name: str, libdl: Path | None = None) -> Path:
    """The Hi-Link root's uClibc (loader, libc) and the fixture, the loader's file named so."""
    image_root = vendor.extracted_root("hilink_hlk-rm04")[0]
    root, build = tmp_path / "uclibc-weak", tmp_path / "build-mipsel"
    for folder in (root / "lib", root / "usr/lib", root / "usr/bin", build):
        folder.mkdir(parents=True)
    shutil.copy2(image_root / "lib/ld-uClibc-0.9.28.so", root / "lib" / loader_name)
    if loader_name != "ld-uClibc.so.0":
        os.symlink(loader_name, root / "lib/ld-uClibc.so.0")
    shutil.copy2(image_root / "lib/libuClibc-0.9.28.so", root / "lib/libuClibc-0.9.28.so")
    os.symlink("libuClibc-0.9.28.so", root / "lib/libc.so.0")
    if libdl is not None:
        shutil.copy2(libdl, root / "lib/libdl.so.0")
    libc = [str(root / "lib/libc.so.0"), "-rpath-link", str(root / "lib")]
    build_fixture(root, build, ["-EL", "-march=mips2"], "/lib/ld-uClibc.so.0", "lib", libc)
    return root


def _picks(bound: dict[tuple[str, str], str]) -> dict[str, str | None]:
    out = {s: bound.get((PROGRAM, s)) for s in ("pick_a", "pick_b", "pick_c", "pick_d")}
    out["pick_e"] = bound.get((WK, "pick_e"))
    return out


def test_uclibc_0_9_28_first_definition_wins(tmp_path: Path) -> None:
    root = _hilink_root(tmp_path, "ld-uClibc-0.9.28.so")
    (tmp_path / "work").mkdir()
    result, traces = root_agreement(root, tmp_path / "work")
    print(result.summary(root.name))
    trace = traces[PROGRAM]
    assert trace.covered, trace.describe()
    # what the device's loader took, read in memory: the first definition
    assert _picks({(m, s): p for m, s, _v, p in trace.bindings}) == NEW_RULE, trace.bindings
    # and linkgraph took the same, everywhere
    assert not result.differences, result.summary(root.name)
    assert result.common == result.oracle == result.ours > 0
    assert not result.errors, result.errors


def test_uclibc_0_9_26_weak_gives_way_by_its_source(tmp_path: Path) -> None:
    """The last version of the old rule, told from the file name (the rule itself is judged by
    the 0.9.19 loader below)."""
    assert (0, 9, 26) < FIRST_DEFINITION_WINS <= (0, 9, 28)
    root = _hilink_root(tmp_path, "ld-uClibc-0.9.26.so")
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    bound = {(b["module"], b["symbol"]): b["provider"] for b in report["bindings"] if b["executable"] == PROGRAM}
    assert _picks(bound) == OLD_RULE, sorted(bound.items())
    assert UCLIBC_BEFORE_0_9_27.weak_yields_to_later_global


def _stub_libdl(build: Path) -> Path:
    """``libdl.so.0`` as uClibc 0.9.26 built it: weak ``_dl_*`` stubs (tests/fixtures/uclibc_weak)."""
    build.mkdir()
    source = STUBS / "libdl_stubs.s"
    _run(["mips-linux-gnu-as", "-EL", "-KPIC", "-mabi=32", "-march=mips2", "-o", str(build / "s.o"), str(source)])
    out = build / "libdl.so.0"
    _run(["mips-linux-gnu-ld", "-EL", "-shared", "-soname", "libdl.so.0", "-o", str(out), str(build / "s.o")])
    return out


@pytest.mark.parametrize("libdl", ["stubs", "hilink"])
def test_uclibc_silent_loader_name_told_by_its_libdl(libdl: str, tmp_path: Path) -> None:
    """A loader whose file name states no version (``ld-uClibc.so.0`` itself): a libdl beside it
    that defines weak ``_dl_find_hash`` stubs was built for the old rule (0.9.26's libdl.c), one
    that only references the loader's functions (the Hi-Link root's, 0.9.28) was not. Told by the
    scan alone (the real 0.9.19 loader judges the rule below)."""
    assert WEAK_STUBS_LIBDL < FIRST_DEFINITION_WINS
    if libdl == "stubs":
        dl = _stub_libdl(tmp_path / "build-libdl")
    else:
        dl = vendor.extracted_root("hilink_hlk-rm04")[0] / "lib/libdl-0.9.28.so"
    root = _hilink_root(tmp_path, "ld-uClibc.so.0", dl)
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    bound = {(b["module"], b["symbol"]): b["provider"] for b in report["bindings"] if b["executable"] == PROGRAM}
    assert _picks(bound) == (OLD_RULE if libdl == "stubs" else NEW_RULE), sorted(bound.items())
    if libdl == "stubs":  # libdl's calls of its weak stubs go to the loader's global definitions
        own = {b["symbol"]: b["provider"] for b in report["bindings"] if b["module"] == "/lib/libdl.so.0"}
        loader = "/lib/ld-uClibc.so.0"
        assert own == {"_dl_find_hash": loader, "_dl_load_shared_library": loader}, own


def _wag200g_root(tmp_path: Path, links: bool) -> Path:
    """The WAG200G root's uClibc 0.9.19 and its libdl programs, with the fixture built against it."""
    root, build = old.wag200g_root(tmp_path / "wag200g", links), tmp_path / "build-mipsel"
    for folder in (root / "usr/lib", root / "usr/bin", build):
        folder.mkdir(parents=True, exist_ok=True)
    # this libc references the program's ``main`` (its startup calls it); the fixture has none
    libc = [str(root / "lib/libc.so.0"), "-rpath-link", str(root / "lib"), "--allow-shlib-undefined"]
    build_fixture(root, build, ["-EL", "-march=mips2"], "/lib/ld-uClibc.so.0", "lib", libc, got_loads=True)
    objects = {}
    for name in ("notype_a", "notype_b", "notype_prog"):
        objects[name] = str(build / f"{name}.o")
        source = str(STUBS / f"{name}.s")
        _run(["mips-linux-gnu-as", "-EL", "-march=mips2", "-KPIC", "-mabi=32", "-o", objects[name], source])
    for lib, name in ((NA, "notype_a"), (NB, "notype_b")):
        soname = lib.rsplit("/", 1)[1]
        _run(["mips-linux-gnu-ld", "-EL", "-shared", "-soname", soname, "-o", str(root / lib[1:]), objects[name]])
    _run(
        ["mips-linux-gnu-ld", "-EL", "-E", "--dynamic-linker", "/lib/ld-uClibc.so.0", "-e", "__start",
         "-o", str(root / NOTYPE_PROGRAM[1:]), objects["notype_prog"], str(root / NA[1:]), str(root / NB[1:]), *libc]
    )  # fmt: skip
    return root


def _notype_picks(bound: dict[tuple[str, str], str]) -> dict[str, str | None]:
    return {s: bound.get((NOTYPE_PROGRAM, s)) for s in ("pick_n", "pick_m", "pick_o")}


@pytest.mark.external
@pytest.mark.parametrize("links", [True, False], ids=["device-links", "copies"])
def test_uclibc_0_9_19_weak_gives_way_by_its_loader(links: bool, tmp_path: Path) -> None:
    """A real loader of the old rule: what it bound in memory, and linkgraph the same."""
    root = _wag200g_root(tmp_path, links)
    (tmp_path / "work").mkdir()
    result, traces = root_agreement(root, tmp_path / "work")
    print(result.summary(root.name))
    assert sorted(traces) == sorted((PROGRAM, NOTYPE_PROGRAM, *old.PROGRAMS))
    assert all(t.covered for t in traces.values()), [t.describe() for t in traces.values() if not t.covered]
    # the loader's choice: weak definitions give way to later global ones
    assert _picks({(m, s): p for m, s, _v, p in traces[PROGRAM].bindings}) == OLD_RULE, traces[PROGRAM].bindings
    # and a library's global definition without a type gives way too: to the last such one, to
    # a later global object, never to a weak one
    notype = {(m, s): p for m, s, _v, p in traces[NOTYPE_PROGRAM].bindings}
    assert _notype_picks(notype) == NOTYPE_OLD_RULE, traces[NOTYPE_PROGRAM].bindings
    loader = old.LOADER if links else "/lib/ld-uClibc.so.0"
    libdl = old.LIBDL if links else "/lib/libdl.so.0"
    stubs = _weak_dl_stubs(root / libdl.lstrip("/"))
    assert "_dl_find_hash" in stubs and len(stubs) == 12, stubs
    for exe in old.PROGRAMS:  # libdl's references to its own weak stubs: the loader's globals
        bound = {s: p for m, s, _v, p in traces[exe].bindings if m == libdl and s in stubs}
        assert bound == dict.fromkeys(stubs, loader), (exe, bound)
    # and linkgraph bound every reference the loader did as it did
    assert not result.differences, result.summary(root.name)
    assert result.common == result.oracle == result.ours >= len(old.PROGRAMS) * len(stubs) + 6
    assert not result.errors, result.errors
    # the loader's own GOT is relocated once, against itself: its _DYNAMIC stays its own though
    # every program defines one first in the scope (linkgraph likewise)
    report = json.loads(linkgraph("report", "--db", str(tmp_path / "work/graph.lbdb"), "--format", "json").stdout)
    ours = {b["provider"] for b in report["bindings"] if b["module"] == loader and b["symbol"] == "_DYNAMIC"}
    assert ours == {loader}, ours
    assert all((loader, "_DYNAMIC", None, loader) in traces[exe].self_bindings for exe in old.PROGRAMS)


def _weak_dl_stubs(path: Path) -> set[str]:
    """The ``_dl_*`` names a libdl defines weak (read with pyelftools, apart from linkgraph)."""
    with open(path, "rb") as fh:
        dynsym = ELFFile(fh).get_section_by_name(".dynsym")
        assert dynsym is not None, path
        return {
            s.name
            for s in dynsym.iter_symbols()
            if s["st_info"]["bind"] == "STB_WEAK" and s["st_shndx"] != "SHN_UNDEF" and s.name.startswith("_dl_")
        }


@pytest.mark.external
def test_uclibc_0_9_19_root_read_as_a_newer_loader_differs(tmp_path: Path) -> None:
    """The same root with the loader's file named 0.9.28: linkgraph applies the newer rule there,
    so the fixture tells the two rules apart (the loader itself took OLD_RULE above)."""
    root = _wag200g_root(tmp_path, True)
    os.rename(root / "lib/ld-uClibc-0.9.19.so", root / "lib/ld-uClibc-0.9.28.so")
    os.remove(root / "lib/ld-uClibc.so.0")
    os.symlink("ld-uClibc-0.9.28.so", root / "lib/ld-uClibc.so.0")
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    programs = (PROGRAM, NOTYPE_PROGRAM)
    bound = {(b["module"], b["symbol"]): b["provider"] for b in report["bindings"] if b["executable"] in programs}
    assert _picks(bound) == NEW_RULE != OLD_RULE, sorted(bound.items())
    assert _notype_picks(bound) == dict.fromkeys(NOTYPE_OLD_RULE, NA) != NOTYPE_OLD_RULE, sorted(bound.items())
    own = {b["symbol"]: b["provider"] for b in report["bindings"] if b["module"] == old.LIBDL}
    assert own["_dl_find_hash"] == old.LIBDL, own
