"""uClibc's choice between a weak and a later global definition, by the loader's version.

uClibc's ``_dl_find_hash`` up to 0.9.26 kept a weak definition aside and took a later global one
(and a library's global STT_NOTYPE one); commit e98bb7452, first released in 0.9.27, made the first
definition win whatever its binding (``loader/ldso/uclibc_build.py``). The version is read from
the loader's file name (``ld-uClibc-0.9.28.so``), as uClibc installs it.

The fixture is the one of ``test_musl_weak`` (tests/fixtures/musl_weak, MIPS assembly: a program
whose NEEDED list is ``libwk.so`` then ``libgl.so``, weak and global definitions of ``pick_a`` ..
``pick_e``), assembled for little-endian MIPS-II and put into a copy of the Hi-Link HLK-RM04 root's
C library and loader (uClibc 0.9.28). That loader, run by the runtime oracle (qemu-user, gdb
reading every relocated slot at the entry point), is the judge: it takes the first definition,
and linkgraph's bindings must equal its own everywhere.

No loader of 0.9.26 or older is at hand here (the Netgear root of the report is not among the
roots we hold), so the old rule is checked against that loader's source only: the same fixture
with the loader's file named ``ld-uClibc-0.9.26.so`` must be read as the old loader
(``UCLIBC_BEFORE_0_9_27``) and bind as ``_dl_find_hash`` of 0.9.26 does.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import scan_and_report
from linkgraph.loader.ldso.uclibc_build import FIRST_DEFINITION_WINS, WEAK_STUBS_LIBDL
from linkgraph.loader.ldso.weak_rule import UCLIBC_BEFORE_0_9_27
from support import vendor_roots as vendor
from test_musl_weak import PROGRAM, _run, build_fixture
from test_runtime_agreement import root_agreement

pytestmark = pytest.mark.slow

WK, GL = "/lib/libwk.so", "/lib/libgl.so"
# which object the program's references (and libwk.so's use of pick_e) bind to, per rule
OLD_RULE = {"pick_a": GL, "pick_b": WK, "pick_c": WK, "pick_d": GL, "pick_e": GL}
NEW_RULE = {"pick_a": WK, "pick_b": WK, "pick_c": WK, "pick_d": WK, "pick_e": PROGRAM}


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
    """Not judged by a loader (none of 0.9.26 is at hand): the version is told from the file
    name, and the old ``_dl_find_hash`` rule is applied."""
    assert (0, 9, 26) < FIRST_DEFINITION_WINS <= (0, 9, 28)
    root = _hilink_root(tmp_path, "ld-uClibc-0.9.26.so")
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    bound = {(b["module"], b["symbol"]): b["provider"] for b in report["bindings"] if b["executable"] == PROGRAM}
    assert _picks(bound) == OLD_RULE, sorted(bound.items())
    assert UCLIBC_BEFORE_0_9_27.weak_yields_to_later_global


def _stub_libdl(build: Path) -> Path:
    """``libdl.so.0`` as uClibc 0.9.26 built it: weak ``_dl_*`` stubs (tests/fixtures/uclibc_weak)."""
    build.mkdir()
    source = Path(__file__).resolve().parent / "fixtures" / "uclibc_weak" / "libdl_stubs.s"
    _run(["mips-linux-gnu-as", "-EL", "-KPIC", "-mabi=32", "-march=mips2", "-o", str(build / "s.o"), str(source)])
    out = build / "libdl.so.0"
    _run(["mips-linux-gnu-ld", "-EL", "-shared", "-soname", "libdl.so.0", "-o", str(out), str(build / "s.o")])
    return out


@pytest.mark.parametrize("libdl", ["stubs", "hilink"])
def test_uclibc_silent_loader_name_told_by_its_libdl(libdl: str, tmp_path: Path) -> None:
    """A loader whose file name states no version (``ld-uClibc.so.0`` itself): a libdl beside it
    that defines weak ``_dl_find_hash`` stubs was built for the old rule (0.9.26's libdl.c), one
    that only references the loader's functions (the Hi-Link root's, 0.9.28) was not. From the
    sources only, as above."""
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
