"""What does the CycloneDX export cost beside the JSON report, on the host's whole-/usr/bin root?

Builds or reuses the host root (bench/host_root.py: every dynamically linked program of /usr/bin
with its libraries), scans it once into a temporary LadybugDB, then, in one run, alternately:

  * the reference: ``linkgraph report --db DB -o FILE`` (the JSON report, all sections);
  * ``linkgraph report --db DB --format cyclonedx-json -o FILE``;

each as a child process, its wall time and peak resident memory taken from os.wait4's rusage of
that very child, best of ``--runs``; the size of each output. Printed: both, and the SBOM's time
and peak as ratios of the report's. Both are written as they are read from the store, so the
peak of either should stay near the dependency edges held in memory, not grow with the output.

Goal: the SBOM's peak RSS at most MEMORY_RATIO_GOAL times the JSON report's.

Usage: python bench/sbom_cyclonedx.py [--runs N] [--limit N] [--db EXISTING.lbdb]
Exit status 0 when the goal holds.
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

from support import hostroot

MEMORY_RATIO_GOAL = 1.5
MIB = 1024**2


def linkgraph() -> list[str]:
    exe = Path(sys.executable).with_name("linkgraph")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "linkgraph.cli.main"]


def timed(argv: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (bytes) of one child process, which must exit 0 or 1."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed with status {status}")
    return time.monotonic() - t0, usage.ru_maxrss * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each export (best kept)")
    parser.add_argument("--limit", type=int, default=None, help="only this many programs of /usr/bin")
    parser.add_argument("--db", type=Path, help="an existing scan of the host root (skips the scan)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sbom-bench-") as tmp:
        work = Path(tmp)
        db = args.db
        if db is None:
            root = hostroot.cached_host_root(limit=args.limit)
            db = work / "host.lbdb"
            scan_s, _ = timed([*linkgraph(), "scan", str(root), "--db", str(db), "--quiet"])
            print(f"scan of {root}: {scan_s:.1f} s")
        formats = {"json": work / "report.json", "cyclonedx-json": work / "sbom.cdx.json"}
        best: dict[str, tuple[float, int]] = {}
        for _ in range(args.runs):
            for fmt, out in formats.items():
                wall, rss = timed([*linkgraph(), "report", "--db", str(db), "--format", fmt, "-o", str(out)])
                old = best.get(fmt)
                best[fmt] = (min(wall, old[0]), min(rss, old[1])) if old else (wall, rss)
        (report_s, report_rss), (sbom_s, sbom_rss) = best["json"], best["cyclonedx-json"]
        for fmt, out in formats.items():
            wall, rss = best[fmt]
            print(f"{fmt:15} {wall:6.2f} s  peak RSS {rss / MIB:6.0f} MiB  output {out.stat().st_size / MIB:7.1f} MiB")
        print(f"cyclonedx-json / json: time {sbom_s / report_s:.2f} x, peak RSS {sbom_rss / report_rss:.2f} x")
    ok = sbom_rss <= MEMORY_RATIO_GOAL * report_rss
    print("goal met" if ok else f"goal missed (peak RSS at most {MEMORY_RATIO_GOAL} x the report's)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
