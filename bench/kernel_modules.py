"""How fast does linkgraph read and resolve kernel modules, compared with depmod on the same tree?

Uses Debian's linux-image 6.1.0-50-amd64 (tests/support/kernel_debs.py: 4,022 modules), warms the
page cache, then times, in one run:

  * the reference: ``depmod -n -b ROOT RELEASE`` (kmod: reads every module's symbols and exports
    and writes modules.dep and the other indexes to stdout), best of 3;
  * linkgraph's kernel-module stage (``loader.kmod.stage.scan_kernel_modules``: modules read,
    Module.symvers, resolution) in a child process, with its peak resident memory (os.wait4's
    rusage of that child), best of ``--runs``.

Goals: at most RATIO_GOAL times depmod's wall time (depmod is C and skips relocations), peak
memory under MEMORY_GOAL.

Usage: python bench/kernel_modules.py [--runs N]
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.kernel_debs import kernel_root

RATIO_GOAL = 40.0
MEMORY_GOAL = 1024**3
CHILD = (
    "import sys; from pathlib import Path; from linkgraph.loader.kmod.stage import scan_kernel_modules; "
    "r = scan_kernel_modules(Path(sys.argv[1])); print(sum(len(g.modules) for g in r.graphs))"
)


def timed(argv: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS (bytes) and stdout of one child process."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"{argv[0]} failed with status {status}")
    return time.monotonic() - t0, usage.ru_maxrss * 1024, out.decode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="runs of linkgraph's stage (best kept)")
    args = parser.parse_args(argv)
    debs = kernel_root()
    for path in debs.modules.rglob("*.ko"):  # warm the page cache
        path.read_bytes()
    depmod = min(timed(["depmod", "-n", "-b", str(debs.root), debs.release])[0] for _ in range(3))
    ours = [timed([sys.executable, "-c", CHILD, str(debs.root)]) for _ in range(args.runs)]
    wall, rss, out = min(ours)
    ratio = wall / depmod
    print(f"modules: {out.strip()}")
    print(f"depmod -n: {depmod:.2f} s")
    print(f"linkgraph kernel-module stage: {wall:.2f} s ({ratio:.1f} x depmod), peak RSS {rss / 2**20:.0f} MiB")
    ok = ratio <= RATIO_GOAL and rss < MEMORY_GOAL
    print("goals met" if ok else f"goals missed (ratio <= {RATIO_GOAL}, peak < {MEMORY_GOAL / 2**20:.0f} MiB)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
