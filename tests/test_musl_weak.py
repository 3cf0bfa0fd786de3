"""musl's choice between a weak and a later global definition, judged by two real musl loaders.

musl's ``find_sym`` up to 1.1.16 passed over a weak definition when a later object of the scope
defined the name global (commit c9783e4d, first in 1.1.17, made the first definition win). The
fixture (tests/fixtures/musl_weak: the same program and two libraries as MIPS assembly and as C)
has a program whose NEEDED list is ``libwk.so`` then ``libgl.so``:

=========  ====================  ====================  ============================
name       libwk.so (first)      libgl.so (second)     elsewhere
=========  ====================  ====================  ============================
pick_a     weak                  global
pick_b     weak                  weak
pick_c     global                weak
pick_d     weak object           global object
pick_e     (looked up by use_e)  global                the program: weak, exported
=========  ====================  ====================  ============================

* under the LEDE image's own loader (musl 1.1.16, MIPS big-endian, soft-float) in a root that
  holds its ``libc.so`` and the fixture assembled with GNU as for MIPS;
* under Debian's musl 1.2.3 (x86-64), the fixture built with ``musl-gcc``.

Both are run to their entry points by the runtime oracle (qemu-user, gdb reading every relocated
slot); linkgraph's bindings must equal the oracle's, and the oracle shows each loader's rule (the
test states which provider each loader took, as the loaders' sources say).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from linkgraph.loader.ldso.musl_build import musl_version
from support import musl_roots
from support import qemu_oracle as qo
from test_runtime_agreement import root_agreement

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "musl_weak"
PROGRAM = "/usr/bin/weakpick"
WK, GL = "/usr/lib/libwk.so", "/usr/lib/libgl.so"
# which object each loader binds the program's (and libwk.so's) references to
OLD_RULE = {"pick_a": GL, "pick_b": WK, "pick_c": WK, "pick_d": GL, "use_e": WK}
NEW_RULE = {"pick_a": WK, "pick_b": WK, "pick_c": WK, "pick_d": WK, "use_e": WK}


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{cmd!r} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"


def build_fixture(
    root: Path, build: Path, flags: list[str], interp: str, libdir: str, libc: list[str], got_loads: bool = False
) -> None:
    """The MIPS fixture assembled with GNU as (``flags``: endianness first) and linked into
    ``root``: the two libraries in ``libdir``, the program for ``interp`` with ``libc``. With
    ``got_loads`` every ``%call16`` GOT load is made a ``%got`` one: no lazy stub, so a loader
    that binds called functions only at their first call (uClibc 0.9.19) binds them at start-up."""
    endian = flags[0]
    for name in ("libwk", "libgl", "prog"):
        obj, src = str(build / f"{name}.o"), FIXTURE / f"{name}.s"
        if got_loads:
            src = build / src.name
            src.write_text((FIXTURE / src.name).read_text().replace("%call16(", "%got("))
        _run(["mips-linux-gnu-as", *flags, "-KPIC", "-mabi=32", "-o", obj, str(src)])
    libs = [str(root / libdir / f"{name}.so") for name in ("libwk", "libgl")]
    for name, out in zip(("libwk", "libgl"), libs, strict=True):
        _run(["mips-linux-gnu-ld", endian, "-shared", "-soname", f"{name}.so", "-o", out, str(build / f"{name}.o")])
    _run(
        ["mips-linux-gnu-ld", endian, "-E", "--dynamic-linker", interp, "-e", "__start",
         "-o", str(root / PROGRAM.lstrip("/")), str(build / "prog.o"), *libs, *libc]
    )  # fmt: skip


def _lede_root(tmp_path: Path) -> tuple[Path, Path]:
    """A root holding the LEDE image's musl loader and the MIPS fixture; the image's root too."""
    image_root = qo.extract_root(qo.firmware_image("lede-17.01.4-"), tmp_path / "image")
    root, build = tmp_path / "lede-weak", tmp_path / "build-mips"
    for folder in (root / "lib", root / "usr/lib", root / "usr/bin", build):
        folder.mkdir(parents=True)
    shutil.copy2(image_root / "lib/libc.so", root / "lib/libc.so")
    os.symlink("libc.so", root / "lib/ld-musl-mips-sf.so.1")
    build_fixture(root, build, ["-EB", "-march=mips32r2", "-msoft-float"], "/lib/ld-musl-mips-sf.so.1", "usr/lib",
                  ["-L", str(root / "lib"), "-lc"])  # fmt: skip
    return root, image_root


def _debian_root(tmp_path: Path) -> Path:
    """A root holding Debian's musl loader (x86-64) and the C fixture built with musl-gcc."""
    root = tmp_path / "musl-weak"
    for folder in (root / "lib", root / "usr/lib", root / "usr/bin"):
        folder.mkdir(parents=True)
    shutil.copy2(musl_roots.host_musl_loader(), root / "lib/ld-musl-x86_64.so.1")
    for name in ("libwk", "libgl"):
        out = root / "usr/lib" / f"{name}.so"
        _run(["musl-gcc", "-shared", "-fPIC", f"-Wl,-soname,{name}.so", "-o", str(out), str(FIXTURE / f"{name}.c")])
    _run(
        ["musl-gcc", "-fPIC", "-pie", "-rdynamic", "-o", str(root / PROGRAM.lstrip("/")), str(FIXTURE / "prog.c"),
         str(root / WK.lstrip("/")), str(root / GL.lstrip("/"))]
    )  # fmt: skip
    return root


def _check(root: Path, work: Path, expected: dict[str, str], pick_e: str) -> None:
    work.mkdir()
    result, traces = root_agreement(root, work)
    print(result.summary(root.name))
    trace = traces[PROGRAM]
    assert trace.covered, trace.describe()
    bound = {(m, s): p for m, s, _v, p in trace.bindings}
    # what the device's loader took: its rule, read in memory
    assert {s: bound.get((PROGRAM, s)) for s in expected} == expected, trace.bindings
    assert bound.get((WK, "pick_e")) == pick_e, trace.bindings
    # and linkgraph took the same, everywhere
    assert not result.differences, result.summary(root.name)
    assert result.common == result.oracle == result.ours > 0
    assert not result.errors, result.errors


def test_musl_1_1_16_weak_gives_way(tmp_path: Path) -> None:
    root, image_root = _lede_root(tmp_path)
    version = musl_version((root / "lib/libc.so").read_bytes())
    status = (image_root / "usr/lib/opkg/status").read_text()
    assert "Package: libc\nVersion: 1.1.16-" in status  # the image's package data says the same
    assert version == (1, 1, 16)
    # the program's own weak pick_e gives way to libgl.so's global one too
    _check(root, tmp_path / "work", OLD_RULE, GL)


def test_musl_1_2_3_first_definition_wins(tmp_path: Path) -> None:
    root = _debian_root(tmp_path)
    debian = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "musl"], capture_output=True, text=True).stdout
    version = musl_version((root / "lib/ld-musl-x86_64.so.1").read_bytes())
    assert version is not None and debian.startswith(".".join(map(str, version)) + "-"), (version, debian)
    assert version >= (1, 1, 17)
    _check(root, tmp_path / "work", NEW_RULE, PROGRAM)
