"""linkgraph against the real glibc loader over the whole /usr/bin of this host.

Builds (or reuses, see tests/support/hostroot.py) a root holding every dynamically linked executable of
/usr/bin with its dependency closure, scans it with ``linkgraph scan``, and compares the JSON
report with ld.so's trace of every executable (tests/support/oracle.py):

  (a) link map objects == ld.so's list, same order;
  (b) cross-object bindings: recall and precision over all executables;
  (c) declared-unused NEEDED edges of each executable == ``ldd -u``.

Usage: python bench/agreement.py [--limit N] [--db DIR] [--examples K]
Exit status 0 when every criterion holds ((b) at >= 99.5%), 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import hostroot, oracle

THRESHOLD = 0.995


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--limit", type=int, default=None, help="sample N executables instead of all")
    parser.add_argument("--db", type=Path, default=None, help="database folder to write (default: temporary)")
    parser.add_argument("--examples", type=int, default=5, help="differences listed per criterion")
    args = parser.parse_args(argv)

    t0 = time.monotonic()
    root = hostroot.cached_host_root(limit=args.limit)
    manifest = hostroot.load_manifest(root)
    counts = f"{len(manifest['executables'])} executables, {len(manifest['libraries'])} libraries"
    print(f"root: {root} ({counts})")
    t1 = time.monotonic()

    with tempfile.TemporaryDirectory(prefix="linkgraph-agreement-") as tmp:
        db = args.db or Path(tmp) / "db"
        report = hostroot.scan_and_report(root, db, name="host-usr-bin")
    t2 = time.monotonic()
    traces, unused = oracle.trace_many(manifest["entries"], str(root))
    t3 = time.monotonic()
    agreement = oracle.compare_report(report, traces, unused)
    print(f"times: root {t1 - t0:.1f}s, scan+report {t2 - t1:.1f}s, oracle {t3 - t2:.1f}s")
    print(agreement.summary(args.examples))

    ok = (
        not agreement.no_link_map
        and not agreement.link_map_diffs
        and agreement.recall >= THRESHOLD
        and agreement.precision >= THRESHOLD
        and not agreement.unused_diffs
    )
    n = agreement.executables
    print("\nSUMMARY")
    print(
        f"  (a) link maps equal      : {n - len(agreement.link_map_diffs)}/{n}"
        f" (executables without a link map: {len(agreement.no_link_map)})"
    )
    print(f"  (b) bindings compared    : {agreement.oracle_bindings} oracle, {agreement.our_bindings} ours")
    print(f"      recall / precision   : {agreement.recall:.4%} / {agreement.precision:.4%} (goal >= {THRESHOLD:.1%})")
    print(f"      executables differing: {len(agreement.binding_diffs)}")
    print(f"  (c) ldd -u equal         : {n - len(agreement.unused_diffs)}/{n}")
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
