"""How fast, how big and how much memory: ``linkgraph diff`` of two scanned roots of one store.

For each pair OLD:NEW, builds (or reuses) both roots, scans them into one temporary LadybugDB
(named ``old`` and ``new``), then runs ``linkgraph diff old new --db DB --format FORMAT -o FILE``
for each format, each as its own process: best wall time of N runs, the peak resident memory of
that child (os.wait4's rusage), its CPU time (user + system, the steadier figure on a busy
machine) and the size written.

Roots: ``host`` is the whole-/usr/bin root of tests/support/hostroot.py (about 1,100 ELF files),
``host-N`` the same with N sampled executables, ``usr-opt`` this machine's whole /usr and /opt
(bench/usr_opt_root.py, about 3,200 ELF files), ``lede`` and ``ffulm`` the two router images of
the shared firmware folder (tests/support/images.py).

Goals: every diff's peak memory < 1 GiB, and independent of the firmware's size: the largest
pair's peak at most GROWTH_GOAL x the smallest pair's (pairs ordered by the size of their
database; the ELF column counts the files of the roots that are folders, 0 for an image).

Usage: python bench/diff.py [--pair OLD:NEW ...] [--format json,text] [--runs N] [--keep DIR]
       (default pairs: lede:ffulm, host-100:host and host:usr-opt; --keep DIR keeps the databases
       there and reuses them on the next run)
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import usr_opt_root
from scan_speed import elf_files, time_command
from support import hostroot

PAIRS = ("lede:ffulm", "host-100:host", "host:usr-opt")
FORMATS = "json,text"
MEMORY_GOAL = 1024**3
GROWTH_GOAL = 1.25
FIRMWARE = Path(__file__).resolve().parent.parent.parent / "shared" / "firmware"
IMAGES = {
    "lede": FIRMWARE / "lede-17.01.4-ar71xx-tiny-tl-wr841-v11-squashfs-sysupgrade.bin",
    "ffulm": FIRMWARE / "ffulm-0.6.5-ar71xx-tiny-tl-wr841-v11-squashfs-factory-eu.bin",
}


def root_of(spec: str) -> Path:
    """The root (or image) a name of the docstring stands for."""
    if spec in IMAGES:
        return IMAGES[spec]
    if spec == "usr-opt":
        return usr_opt_root.cached_root()
    if spec == "host":
        return hostroot.cached_host_root()
    if spec.startswith("host-") and spec[5:].isdigit():
        return hostroot.cached_host_root(limit=int(spec[5:]))
    raise SystemExit(f"unknown root {spec!r} (host, host-N, usr-opt, lede, ffulm)")


def scanned(old: str, new: str, folder: Path) -> tuple[Path, int]:
    """A LadybugDB holding both roots as ``old`` and ``new`` (reused when ``folder`` has it), and
    the two roots' ELF file count."""
    db = folder / f"{old}--{new}.lbdb"
    files = 0
    for spec, name in ((old, "old"), (new, "new")):
        root = root_of(spec)
        files += len(elf_files(root)) if root.is_dir() else 0
        if (folder / f"{old}--{new}.{name}.done").exists():
            continue
        seconds, peak, code = time_command(["scan", str(root), "--db", str(db), "--name", name, "--quiet"])
        print(f"  scan {spec} as {name}: {seconds:.1f}s, peak {peak / 1024**2:.0f} MiB (exit {code})")
        if code not in (0, 1):
            raise SystemExit(f"linkgraph scan {root} failed ({code})")
        (folder / f"{old}--{new}.{name}.done").touch()
    return db, files


def run_diff(args: list[str]) -> tuple[float, float, int, int]:
    """Wall time, CPU time, peak RSS in bytes and exit status of one linkgraph command."""
    start = time.perf_counter()
    proc = subprocess.Popen([*hostroot.linkgraph_command(), *args], stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, status


def measure(db: Path, out: Path, fmt: str, runs: int) -> tuple[float, float, int, int, int]:
    """Best wall time, best CPU time, peak RSS, worst exit status and bytes written of ``linkgraph diff``."""
    args = ["diff", "old", "new", "--db", str(db), "--format", fmt, "-o", str(out), "--quiet"]
    results = [run_diff(args) for _ in range(max(1, runs))]
    worst = max(os.waitstatus_to_exitcode(r[3]) for r in results)
    return min(r[0] for r in results), min(r[1] for r in results), max(r[2] for r in results), worst, out.stat().st_size


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--pair", action="append", help=f"OLD:NEW roots (default {', '.join(PAIRS)})")
    parser.add_argument("--format", default=FORMATS, help=f"diff formats, comma-separated (default {FORMATS})")
    parser.add_argument("--runs", type=int, default=2, help="best of N runs of each diff")
    parser.add_argument("--keep", type=Path, default=None, help="keep the databases in this folder, reuse them")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.format.split(",") if f.strip()]

    rows = []
    with tempfile.TemporaryDirectory(prefix="linkgraph-diff-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for pair in args.pair or PAIRS:
            old, _, new = pair.partition(":")
            print(f"pair {old} -> {new}")
            db, files = scanned(old, new, folder)
            size = db.stat().st_size
            rows.extend(
                (pair, files, name, *measure(db, Path(tmp) / f"diff.{name}", name, args.runs), size) for name in formats
            )
    print(f"\nSUMMARY (best of {max(1, args.runs)} runs each)")
    print(
        f"  {'pair':20} {'ELF':>5} {'db':>8} {'format':6} {'time':>8} {'CPU':>8} {'peak RSS':>10} {'output':>10} exit"
    )
    for pair, files, name, seconds, cpu, peak, code, size, db_size in rows:
        print(
            f"  {pair:20} {files:5} {db_size / 1024**2:4.0f} MiB {name:6} {seconds:7.2f}s {cpu:7.2f}s"
            f" {peak / 1024**2:6.0f} MiB {size / 1024**2:7.2f} MiB {code}"
        )
    ok = all(r[6] == 0 and r[5] < MEMORY_GOAL for r in rows)
    peaks: dict[int, int] = {}  # the worst peak of each input size (the database's bytes)
    for row in rows:
        peaks[row[8]] = max(peaks.get(row[8], 0), row[5])
    smallest, largest = peaks[min(peaks)], peaks[max(peaks)]
    growth = largest / smallest if smallest else float("inf")
    ok = ok and growth <= GROWTH_GOAL
    print(f"  largest pair's peak {largest / 1024**2:.0f} MiB, {growth:.2f}x the smallest pair's")
    print(f"  goals: peak < {MEMORY_GOAL / 1024**3:.0f} GiB, growth <= {GROWTH_GOAL}x")
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
