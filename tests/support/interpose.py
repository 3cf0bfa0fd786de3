"""Interposition against dependency (issue 26): roots built from C (tests/fixtures/interpose) with gcc.

Two roots hold the same libraries and the same program paths:

* the *real* root, which is scanned: every program defines what it defines in the field
  (``alloc_prog`` malloc and free, ``tree_prog`` tree_name, ``self_prog`` self_name, ``host_prog``
  host_version, ``mixed_prog`` mixed_hook and mixed_name, ``ver_prog`` ver_name) and
  ``needy_prog`` declares libundecl;
* the *without* root, a copy in which each program is rebuilt without the definition or the
  library the classification hinges on (``-DINTERPOSE`` left out, ``-DNO_HOST_FN``, libundecl not
  linked).  Running those programs is the second judge: a library that still loads and runs was
  only interposed; one that fails really depends on what was taken away.

Both roots are built once per content of the sources, this recipe, gcc and the host's glibc, in the
test cache (outside the repository), and copied for each test session.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from .fixture_root import FIXTURES, GCC, HOST_LDSO, HOST_LIBC, MULTIARCH, Root
from .hostroot import cache_dir

SRC = "interpose/"
LIBC = f"{MULTIARCH}/libc.so.6"
LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"

# (i) a program that defines malloc and free; a library that uses them.
ALLOC_PROG, ALLOC_LIB = "/usr/bin/alloc_prog", "/usr/lib/liballoc.so"
# (i, deeper) the twin of the program's definition sits two levels down the library's own tree.
TREE_PROG = "/usr/bin/tree_prog"
FRONT, MID, BACK = "/usr/lib/libfront.so", "/usr/lib/libmid.so", "/usr/lib/libback.so"
# (i, itself) the library defines what it calls; the program's definition comes first.
SELF_PROG, SELF = "/usr/bin/self_prog", "/usr/lib/libself.so"
# (ii) a plugin calling a function only its host program defines.
HOST_PROG, PLUGIN = "/usr/bin/host_prog", "/usr/lib/libplugin.so"
# (ii, mixed) one edge to the program with an interposed binding and one only the program satisfies.
MIXED_PROG, MIXED, MIXDEP = "/usr/bin/mixed_prog", "/usr/lib/libmixed.so", "/usr/lib/libmixdep.so"
# (ii, versions) the twin in the tree is at a version the loader never gives an unversioned reference.
VER_PROG, VER_FRONT, VER_BACK = "/usr/bin/ver_prog", "/usr/lib/libverfront.so", "/usr/lib/libverback.so"
# (iii) a library relying on an undeclared library that only the program loads.
NEEDY_PROG, NEEDY, UNDECL = "/usr/bin/needy_prog", "/usr/lib/libneedy.so", "/usr/lib/libundecl.so"

EXECUTABLES = [ALLOC_PROG, TREE_PROG, SELF_PROG, HOST_PROG, MIXED_PROG, VER_PROG, NEEDY_PROG]
LIBRARIES = [ALLOC_LIB, FRONT, MID, BACK, SELF, PLUGIN, MIXED, MIXDEP, VER_FRONT, VER_BACK, NEEDY, UNDECL]
# What each program prints when it runs (both builds, unless noted in the test).
OUTPUT = {
    ALLOC_PROG: ["copy=hello", "interposed=yes"],
    TREE_PROG: ["tree=program"],
    SELF_PROG: ["self=program"],
    HOST_PROG: ["plugin=42"],
    MIXED_PROG: ["mixed=105"],
    VER_PROG: ["ver=program"],
    NEEDY_PROG: ["needy=30"],
}
OUTPUT_WITHOUT = {ALLOC_PROG: ["copy=hello"], TREE_PROG: ["tree=back"], SELF_PROG: ["self=library"]}

SHLIB_UNDEFINED = ["-Wl,--allow-shlib-undefined"]  # a program linked while a library's need is unmet
BUILD_VERSION = "1"  # bump when the layout of the cached roots changes


def build_real(root: Root) -> None:
    root.install_glibc()
    root.lib(ALLOC_LIB, [SRC + "alloc_lib.c"])
    root.exe(ALLOC_PROG, [SRC + "alloc_prog.c"], cflags=["-DINTERPOSE"], needs=[ALLOC_LIB])
    root.lib(BACK, [SRC + "back.c"])
    root.lib(MID, [SRC + "mid.c"], needs=[BACK])
    root.lib(FRONT, [SRC + "front.c"], needs=[MID])
    root.exe(TREE_PROG, [SRC + "tree_prog.c"], cflags=["-DINTERPOSE"], needs=[FRONT])
    root.lib(SELF, [SRC + "self.c"])
    root.exe(SELF_PROG, [SRC + "self_prog.c"], cflags=["-DINTERPOSE"], needs=[SELF])
    root.lib(PLUGIN, [SRC + "plugin.c"])
    root.exe(HOST_PROG, [SRC + "host_prog.c"], needs=[PLUGIN])
    root.lib(MIXDEP, [SRC + "mixdep.c"])
    root.lib(MIXED, [SRC + "mixed.c"], needs=[MIXDEP])
    root.exe(MIXED_PROG, [SRC + "mixed_prog.c"], cflags=["-DINTERPOSE"], needs=[MIXED])
    stub = root.stub("libverback.so", [SRC + "ver_stub.c"])
    root.lib(VER_BACK, [SRC + "ver_back.c"], version_script=SRC + "ver_back.map")
    root.lib(VER_FRONT, [SRC + "ver_front.c"], needs=[stub], link_dirs=[])
    root.exe(VER_PROG, [SRC + "ver_prog.c"], cflags=["-DINTERPOSE"], needs=[VER_FRONT], ldflags=SHLIB_UNDEFINED)
    root.lib(UNDECL, [SRC + "undecl.c"])
    root.lib(NEEDY, [SRC + "needy.c"])
    root.exe(NEEDY_PROG, [SRC + "needy_prog.c"], needs=[NEEDY, UNDECL])


def build_without(root: Root) -> None:
    """Rebuild each program, at the same path, without the definition or library it contributes."""
    root.exe(ALLOC_PROG, [SRC + "alloc_prog.c"], needs=[ALLOC_LIB])
    root.exe(TREE_PROG, [SRC + "tree_prog.c"], needs=[FRONT])
    root.exe(SELF_PROG, [SRC + "self_prog.c"], needs=[SELF])
    root.exe(HOST_PROG, [SRC + "host_prog.c"], cflags=["-DNO_HOST_FN"], needs=[PLUGIN], ldflags=SHLIB_UNDEFINED)
    root.exe(MIXED_PROG, [SRC + "mixed_prog.c"], needs=[MIXED], ldflags=SHLIB_UNDEFINED)
    root.exe(VER_PROG, [SRC + "ver_prog.c"], needs=[VER_FRONT], ldflags=SHLIB_UNDEFINED)
    root.exe(NEEDY_PROG, [SRC + "needy_prog.c"], needs=[NEEDY], ldflags=SHLIB_UNDEFINED)


def _key() -> str:
    digest = hashlib.sha256(BUILD_VERSION.encode())
    for path in sorted((FIXTURES / "interpose").iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    digest.update((FIXTURES.parent / "support" / "fixture_root.py").read_bytes())
    for lib in (HOST_LDSO, HOST_LIBC):
        digest.update(lib.read_bytes())
    gcc = subprocess.run([GCC, "--version"], capture_output=True, text=True, check=True).stdout
    digest.update(gcc.encode())
    return digest.hexdigest()[:20]


def _cached_roots() -> Path:
    """The cache folder holding ``real/`` and ``without/`` (built on first use)."""
    final = cache_dir() / "interpose" / _key()
    if (final / "done").is_file():
        return final
    staging = final.parent / f"{final.name}.{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    real = Root(staging / "real")
    build_real(real)
    without = real.clone(staging / "without")
    build_without(without)
    for build in (real.build, without.build):  # link-time scratch, not part of a root
        shutil.rmtree(build, ignore_errors=True)
    (staging / "done").write_text("")
    try:
        os.replace(staging, final)
    except OSError:  # another session finished first: use its copy
        shutil.rmtree(staging, ignore_errors=True)
    return final


def interpose_roots(dest: Path) -> tuple[Root, Root]:
    """Copies of the cached real and without roots under *dest*."""
    cached = _cached_roots()
    roots = []
    for name in ("real", "without"):
        shutil.copytree(cached / name, dest / name, symlinks=True)
        root = Root(dest / name)
        root.built = [*EXECUTABLES, *LIBRARIES]
        root.executables = list(EXECUTABLES)
        roots.append(root)
    return roots[0], roots[1]
