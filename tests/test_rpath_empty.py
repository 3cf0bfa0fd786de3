"""An empty DT_RPATH/DT_RUNPATH entry (``:/opt/x``, ``a::b``, ``a:``) is a warning only where the
loader that reads it searches the working directory there (glibc, uClibc); musl's ``path_open``
skips empty entries (docs/loaders/musl.md), which the host's musl loader shows here."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import scan_and_report
from support import musl_roots as musl

LIB_C = "int cwd_fn(void) { return 7; }\n"
PROG_C = "int cwd_fn(void);\nint main(void) { return cwd_fn() == 7 ? 0 : 1; }\n"
RPATH = ":/opt/none"  # a leading empty entry, then a folder that does not hold the library
MUSL_PROG, GLIBC_PROG = "/usr/bin/emptyrpath", "/usr/bin/emptyrpath-glibc"


def _build(tmp_path: Path) -> Path:
    """A root with the host's musl loader, a musl program and a glibc one, each with RPATH
    ``:/opt/none`` and NEEDED ``libcwd.so.1``, which is only in ``/`` (the working directory of a
    process started in a chroot of the root)."""
    src, root = tmp_path / "src", tmp_path / "root"
    src.mkdir()
    (src / "lib.c").write_text(LIB_C)
    (src / "prog.c").write_text(PROG_C)
    gcc = shutil.which("gcc")
    assert gcc, "gcc not found"
    for cc, out, interp in (
        (musl.musl_gcc(), MUSL_PROG, musl.INTERP),
        (gcc, GLIBC_PROG, "/lib64/ld-linux-x86-64.so.2"),
    ):
        lib = src / f"{Path(out).name}-libcwd.so.1"
        musl.run([cc, "-shared", "-fPIC", "-o", str(lib), "-Wl,-soname,libcwd.so.1", str(src / "lib.c")])
        dest = root / out.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        musl.run(
            [
                cc,
                "-o",
                str(dest),
                f"-Wl,--dynamic-linker={interp}",
                "-Wl,--disable-new-dtags",
                f"-Wl,-rpath,{RPATH}",
                str(src / "prog.c"),
                str(lib),
            ]
        )
        if out == MUSL_PROG:
            shutil.copy2(lib, root / "libcwd.so.1")
    (root / musl.LOADER_PATH.lstrip("/")).parent.mkdir(parents=True)
    shutil.copy2(musl.host_musl_loader(), root / musl.LOADER_PATH.lstrip("/"))
    os.symlink("x86_64-linux-musl/libc.so", root / musl.INTERP.lstrip("/"))
    return root


def test_an_empty_rpath_entry_warns_only_where_the_loader_searches_the_working_directory(tmp_path: Path) -> None:
    root = _build(tmp_path)
    readelf = subprocess.run(["readelf", "-d", str(root / MUSL_PROG.lstrip("/"))], capture_output=True, text=True)
    assert f"Library rpath: [{RPATH}]" in readelf.stdout  # the empty entry is in the file
    # the device's loader: started in / (the chroot's working directory, which holds the
    # library), musl does not find it through the empty entry
    listed = musl.musl_list(root, MUSL_PROG)
    assert listed.missing == [(MUSL_PROG, "libcwd.so.1")], listed.raw
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    link_map = next(lm for lm in report["link_maps"] if lm["executable"] == MUSL_PROG)
    assert "libcwd.so.1" in link_map["missing"]
    empty = {p["path"] for p in report["problems"] if p["code"] == "rpath-empty"}
    assert empty == {GLIBC_PROG}  # glibc's fillin_rpath: an empty entry is the working directory
