"""Sizes a hostile root claims cost no memory: huge sparse files where the loader reads its
configuration and its interpreter, ELF files past the size limit.

Each case runs the real ``linkgraph scan`` and measures that very child (os.wait4's rusage): it
must finish with exit 0 or 1, the right problem, under 1 GiB peak and 30 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import linkgraph, linkgraph_cmd
from fixture_root import MULTIARCH, Root, two_library_root

PROG = "/usr/bin/prog"
GIB = 1 << 30


def measured_scan(root: Path, db: Path) -> tuple[int, int, float]:
    """Exit code, peak RSS (bytes) and wall time of ``linkgraph scan ROOT``."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [*linkgraph_cmd(), "scan", str(root), "--db", str(db), "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    assert "Traceback" not in child.stderr.read().decode(errors="replace")
    return child.returncode, usage.ru_maxrss * 1024, time.perf_counter() - started


def sparse(path: Path, head: bytes, size: int) -> None:
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        out.write(head)
        out.truncate(size)


def problems(db: Path) -> list[dict]:
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)["problems"]


def test_two_gib_sparse_ld_so_cache(tmp_path: Path) -> None:
    root = two_library_root(tmp_path / "root")
    sparse(root.host("/etc/ld.so.cache"), b"glibc-ld.so.cache1.1", 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB ld.so.cache: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert ("/etc/ld.so.cache", "config-too-large") in codes


def test_two_gib_sparse_interpreter(tmp_path: Path) -> None:
    root = two_library_root(tmp_path / "root")
    ldso = root.host(f"{MULTIARCH}/ld-linux-x86-64.so.2")
    sparse(ldso, ldso.read_bytes(), 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB interpreter: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert (f"{MULTIARCH}/ld-linux-x86-64.so.2", "too-large") in codes
    assert (PROG, "default-dirs-guessed") in codes


def _rename(path: Path, old: bytes, new: bytes) -> None:
    """Overwrite every NUL-terminated ``old`` string in the file with ``new`` (NUL padded)."""
    assert len(new) <= len(old)
    data = path.read_bytes()
    assert b"\0" + old + b"\0" in data, (path, old)
    path.write_bytes(data.replace(b"\0" + old + b"\0", b"\0" + new.ljust(len(old), b"\0") + b"\0"))


def test_raw_byte_and_escaped_names_stay_distinct(tmp_path: Path) -> None:
    """``libq\\xff.so`` (a raw byte) and ``libq\\\\xff.so`` (a literal backslash) display alike, as do
    two such symbol names: they stay two libraries and two symbols, and the scan stores them all."""
    root = Root(tmp_path / "root")
    root.install_glibc()
    names = {b"libqaaaaaaaa.so": b"libq\xff.so", b"libqbbbbbbbb.so": b"libq\\xff.so"}
    syms = {b"symqaaaaaaaa": b"symq\xff", b"symqbbbbbbbb": b"symq\\xff"}
    for lib, sym in zip(names, syms, strict=True):
        root.lib(f"/usr/lib/{lib.decode()}", ["loader_rules/onefn.c"], cflags=[f"-DFN={sym.decode()}"])
    root.exe(PROG, ["collide/main.c"], needs=[f"/usr/lib/{n.decode()}" for n in names])
    for old, new in names.items():
        host = root.host(f"/usr/lib/{old.decode()}")
        _rename(host, old, new)
        for sym_old, sym_new in syms.items():
            if sym_old[4:5] == old[4:5]:
                _rename(host, sym_old, sym_new)
        os.rename(host, os.path.join(os.fsencode(host.parent), new))
    for old, new in (*names.items(), *syms.items()):
        _rename(root.host(PROG), old, new)
    db = tmp_path / "db.lbdb"
    rc, peak, seconds = measured_scan(root.path, db)
    assert rc in (0, 1) and peak < GIB and seconds < 30
    report = json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)
    libs = [m["path"] for m in report["modules"] if m["path"].startswith("/usr/lib/libq")]
    assert sorted(libs) == ["/usr/lib/libq\\xff.so", "/usr/lib/libq\\xff.so"]  # two modules, shown alike
    edges = [e for e in report["dependencies"] if e["from"] == PROG and e["soname"].startswith("libq")]
    assert len(edges) == 2 and all(e["status"] == "used" for e in edges), edges
    bound = [b for b in report["bindings"] if b["module"] == PROG and b["symbol"].startswith("symq")]
    assert len(bound) == 2, bound
