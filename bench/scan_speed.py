"""How fast is ``linkgraph scan`` compared with readelf reading the same ELF files?

Builds (or reuses) a root, warms the page cache, then times, in one run:

  * the reference: ``readelf -W --dyn-syms -d`` over every regular ELF file of the root, batched
    (many files per readelf process, BATCH per invocation, run one after the other): readelf's
    fast path, without paying one process start per file;
  * ``linkgraph scan ROOT --db TMP --quiet``, with its peak resident memory (os.wait4's rusage of
    that very child).

  * with ``--report``, ``linkgraph report`` (JSON) of the scanned graph into a file, with its peak.

Both are repeated (readelf 3 times, the scan once by default) and the best wall time is kept,
which damps the noise of other work on the machine.

Roots: ``host`` (default) is the whole-/usr/bin root of tests/support/hostroot.py (about 1,000
ELF files); ``usr-opt`` is this machine's whole /usr and /opt (bench/usr_opt_root.py, about 3,000).

Goals: scan wall time <= 2 x readelf's, scan peak memory < 1.5 GiB; the report's peak < 1 GiB and
its time < 40 s; with ``--identify-cost``, the identification stage adds <= 20% to the scan (each
scan is also run with ``--no-identify``, alternating, best of N each).

With ``--baseline REV`` the scan of another commit (bench/baseline.py installs it once, cached) is
timed in the same run, alternating with this one's, and its ratio and peak are printed beside.

Usage: python bench/scan_speed.py [--root host|usr-opt] [--limit N] [--report] [--batch N]
       [--per-file] [--readelf-runs N] [--scan-runs N] [--baseline REV]
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

import baseline
import usr_opt_root
from support import hostroot

BATCH = 200
RATIO_GOAL = 2.0
MEMORY_GOAL = 1.5 * 1024**3
REPORT_MEMORY_GOAL = 1024**3
REPORT_TIME_GOAL = 40.0


IDENTIFY_GOAL = 0.20  # the identification stage adds at most this share to the scan


def elf_files(root: Path) -> list[Path]:
    """Every regular (non-symlink) ELF file under *root*."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            with open(path, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(path)
    return sorted(out)


def warm(files: list[Path]) -> int:
    total = 0
    for path in files:
        total += len(path.read_bytes())
    return total


def time_readelf(files: list[Path], batch: int) -> float:
    start = time.perf_counter()
    for i in range(0, len(files), batch):
        chunk = [str(p) for p in files[i : i + batch]]
        cmd = ["readelf", "-W", "--dyn-syms", "-d", *chunk]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def time_scan(root: Path, db: Path, *extra: str, cli: list[str] | None = None) -> tuple[float, int, int]:
    """Wall time, peak RSS in bytes and exit status of one ``linkgraph scan`` (``cli``: another
    commit's command, bench/baseline.py)."""
    return time_command(["scan", str(root), "--db", str(db), "--quiet", *extra], cli)


def time_command(args: list[str], cli: list[str] | None = None) -> tuple[float, int, int]:
    """Wall time, peak RSS in bytes and exit status of one linkgraph command."""
    cmd = [*(cli or hostroot.linkgraph_command()), *args]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss * 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--root", choices=["host", "usr-opt"], default="host", help="which root (see above)")
    parser.add_argument("--limit", type=int, default=None, help="host root: sample N executables instead of all")
    parser.add_argument("--report", action="store_true", help="also time the JSON report of the last scan")
    parser.add_argument("--batch", type=int, default=BATCH, help="files per readelf process")
    parser.add_argument("--per-file", action="store_true", help="also time one readelf process per file")
    parser.add_argument("--readelf-runs", type=int, default=3, help="best of N readelf runs")
    parser.add_argument("--scan-runs", type=int, default=1, help="best of N scans")
    parser.add_argument(
        "--identify-cost",
        action="store_true",
        help="also run each scan with --no-identify (alternating) and give what the identification adds "
        f"(goal <= {IDENTIFY_GOAL * 100:.0f}%%)",
    )
    parser.add_argument("--baseline", metavar="REV", help="also time this commit's scan, in the same run")
    args = parser.parse_args(argv)
    base_cli = baseline.installed(args.baseline) if args.baseline else None

    root = usr_opt_root.cached_root() if args.root == "usr-opt" else hostroot.cached_host_root(limit=args.limit)
    files = elf_files(root)
    size = warm(files)
    print(f"root: {root}")
    print(f"ELF files: {len(files)} ({size / 1024**2:.0f} MiB), page cache warmed")

    readelf_s = min(time_readelf(files, args.batch) for _ in range(max(1, args.readelf_runs)))
    print(f"readelf -W --dyn-syms -d, batched {args.batch} files/process: {readelf_s:.2f}s")
    if args.per_file:
        print(f"readelf -W --dyn-syms -d, one process per file: {time_readelf(files, 1):.2f}s")

    runs = []
    report = None
    with tempfile.TemporaryDirectory(prefix="linkgraph-speed-") as tmp:
        bare, base = [], []
        for i in range(max(1, args.scan_runs)):
            runs.append(time_scan(root, Path(tmp) / f"db{i}"))
            if base_cli:
                base.append(time_scan(root, Path(tmp) / f"base{i}", cli=base_cli))
            if args.identify_cost:
                bare.append(time_scan(root, Path(tmp) / f"bare{i}", "--no-identify"))
        if args.report:
            out = Path(tmp) / "report.json"
            report = (*time_command(["report", "--db", str(Path(tmp) / f"db{i}"), "-o", str(out)]), out.stat().st_size)
    scan_s = min(r[0] for r in runs)
    peak = max(r[1] for r in runs)
    code = max(r[2] for r in runs)
    ratio = scan_s / readelf_s if readelf_s else float("inf")
    ok = code in (0, 1) and ratio <= RATIO_GOAL and peak < MEMORY_GOAL
    print(f"linkgraph scan --quiet: {scan_s:.2f}s (exit {code}), peak RSS {peak / 1024**2:.0f} MiB")
    cost = None
    if bare:
        bare_s = min(r[0] for r in bare)
        cost = scan_s / bare_s - 1 if bare_s else float("inf")
        ok = ok and cost <= IDENTIFY_GOAL
        print(
            f"linkgraph scan --quiet --no-identify: {bare_s:.2f}s, peak RSS {max(r[1] for r in bare) / 1024**2:.0f} MiB"
        )
    if base:
        base_s, base_peak, base_code = min(r[0] for r in base), max(r[1] for r in base), max(r[2] for r in base)
        print(f"baseline {args.baseline} scan: {base_s:.2f}s (exit {base_code}), peak {base_peak / 1024**2:.0f} MiB")
    if report is not None:
        ok = ok and report[2] == 0 and report[1] < REPORT_MEMORY_GOAL and report[0] < REPORT_TIME_GOAL
    print("\nSUMMARY")
    print(f"  files            : {len(files)} ELF files, {size / 1024**2:.0f} MiB")
    print(f"  readelf (batched): {readelf_s:.2f}s")
    print(f"  linkgraph scan   : {scan_s:.2f}s")
    print(f"  ratio            : {ratio:.2f}x   (goal <= {RATIO_GOAL:.0f}x)")
    print(f"  peak memory      : {peak / 1024**2:.0f} MiB   (goal < {MEMORY_GOAL / 1024**3:.1f} GiB)")
    if base:
        print(f"  baseline {args.baseline:<8}: {base_s / readelf_s:.2f}x, peak {base_peak / 1024**2:.0f} MiB")
    if cost is not None:
        print(f"  identification   : +{cost:.1%} of the scan without it   (goal <= {IDENTIFY_GOAL:.0%})")
    if report is not None:
        r_s, r_peak, r_code, r_size = report
        print(
            f"  JSON report      : {r_s:.2f}s, peak {r_peak / 1024**2:.0f} MiB, {r_size / 1024**2:.0f} MiB written, "
            f"exit {r_code}   (goals < {REPORT_TIME_GOAL:.0f}s, < {REPORT_MEMORY_GOAL / 1024**3:.0f} GiB)"
        )
    print(f"  verdict          : {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
