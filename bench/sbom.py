"""How fast, how big and how much memory: writing each SBOM format of one scanned root, against
the JSON report of the same graph measured in the same run.

Builds (or reuses) a root as bench/scan_speed.py does, scans it once into a temporary LadybugDB,
then runs ``linkgraph report --db DB -o FILE`` (the reference: the JSON report, every binding of
every link map) and ``linkgraph report --db DB --format FORMAT -o FILE`` for each format, each as
its own process: best wall time of N runs, the peak resident memory of that child (os.wait4's
rusage) and the size written.

Goals (per format): time <= RATIO_GOAL x the JSON report's (an SBOM holds the edges, not the
bindings), peak memory < 1 GiB (the JSON report's own goal: both are written as they are read).

Roots: ``host`` (default) is the whole-/usr/bin root of tests/support/hostroot.py (about 1,000
ELF files); ``usr-opt`` is this machine's whole /usr and /opt (bench/usr_opt_root.py).

Usage: python bench/sbom.py [--root host|usr-opt] [--limit N] [--format spdx-json,spdx3-json]
       [--runs N]
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import usr_opt_root
from scan_speed import elf_files, time_command, time_scan
from support import hostroot

FORMATS = "spdx-json,spdx3-json,cyclonedx-json"
RATIO_GOAL = 1.5
MEMORY_GOAL = 1024**3


def measure(db: Path, out: Path, fmt: str | None, runs: int) -> tuple[float, int, int, int]:
    """Best time, peak RSS, worst exit status and bytes written of ``linkgraph report``."""
    extra = ["--format", fmt] if fmt else []
    results = [time_command(["report", "--db", str(db), *extra, "-o", str(out)]) for _ in range(max(1, runs))]
    return min(r[0] for r in results), max(r[1] for r in results), max(r[2] for r in results), out.stat().st_size


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--root", choices=["host", "usr-opt"], default="host", help="which root (see above)")
    parser.add_argument("--limit", type=int, default=None, help="host root: sample N executables instead of all")
    parser.add_argument("--format", default=FORMATS, help=f"SBOM formats, comma-separated (default {FORMATS})")
    parser.add_argument("--runs", type=int, default=2, help="best of N runs of each report")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.format.split(",") if f.strip()]

    root = usr_opt_root.cached_root() if args.root == "usr-opt" else hostroot.cached_host_root(limit=args.limit)
    print(f"root: {root} ({len(elf_files(root))} ELF files)")
    ok = True
    with tempfile.TemporaryDirectory(prefix="linkgraph-sbom-") as tmp:
        db = Path(tmp) / "graph.lbdb"
        scan_s, scan_peak, code = time_scan(root, db)
        print(f"linkgraph scan: {scan_s:.2f}s (exit {code}), peak RSS {scan_peak / 1024**2:.0f} MiB")
        reference = measure(db, Path(tmp) / "report.json", None, args.runs)
        rows = [("json (reference)", *reference, 1.0)]
        for name in formats:
            found = measure(db, Path(tmp) / f"sbom.{name}", name, args.runs)
            ratio = found[0] / reference[0] if reference[0] else float("inf")
            rows.append((name, *found, ratio))
            ok = ok and found[2] == 0 and ratio <= RATIO_GOAL and found[1] < MEMORY_GOAL
    print(f"\nSUMMARY (best of {max(1, args.runs)} runs each)")
    print(f"  {'format':18} {'time':>8} {'x json':>7} {'peak RSS':>10} {'size':>10} exit")
    for name, seconds, peak, exit_code, size, ratio in rows:
        print(
            f"  {name:18} {seconds:7.2f}s {ratio:6.2f}x {peak / 1024**2:8.0f} MiB {size / 1024**2:7.1f} MiB {exit_code}"
        )
    print(f"  goals: each SBOM <= {RATIO_GOAL}x the JSON report's time, peak < {MEMORY_GOAL / 1024**3:.0f} GiB")
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
