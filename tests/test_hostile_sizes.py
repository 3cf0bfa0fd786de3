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
from fixture_root import MULTIARCH, Root

R = "loader_rules/"
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


def small_root(path: Path) -> Root:
    root = Root(path)
    root.install_glibc()
    root.lib("/usr/lib/libbeta.so", [R + "onefn.c"], cflags=["-DFN=v_fn"])
    root.lib(
        "/usr/lib/libalpha.so", [R + "callfn.c"], cflags=["-DFN=x_fn", "-DCALLEE=v_fn"], needs=["/usr/lib/libbeta.so"]
    )
    root.exe(PROG, [R + "x_main.c"], needs=["/usr/lib/libalpha.so", "/usr/lib/libbeta.so"])
    return root


def sparse(path: Path, head: bytes, size: int) -> None:
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        out.write(head)
        out.truncate(size)


def problems(db: Path) -> list[dict]:
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)["problems"]


def test_two_gib_sparse_ld_so_cache(tmp_path: Path) -> None:
    root = small_root(tmp_path / "root")
    sparse(root.host("/etc/ld.so.cache"), b"glibc-ld.so.cache1.1", 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB ld.so.cache: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert ("/etc/ld.so.cache", "config-too-large") in codes


def test_two_gib_sparse_interpreter(tmp_path: Path) -> None:
    root = small_root(tmp_path / "root")
    ldso = root.host(f"{MULTIARCH}/ld-linux-x86-64.so.2")
    sparse(ldso, ldso.read_bytes(), 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB interpreter: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert (f"{MULTIARCH}/ld-linux-x86-64.so.2", "too-large") in codes
    assert (PROG, "default-dirs-guessed") in codes
