"""Where ``linkgraph scan`` spends its time: a py-spy profile of one scan, its top entries written to
``bench/profiles/scan-ROOT.txt`` (kept in the repository).

py-spy samples the scan's threads while they hold the GIL (``--gil``): a thread waiting for the GIL,
or in a system call or a hash that released it, is not counted, so the entries are the Python work
that competes for the one interpreter. Two tables: the functions where the samples were taken
(self), and the functions on the stack (inclusive), each as a share of all samples.

    python bench/scan_profile.py [--root usr-opt|host] [--rate 200] [--top 30] [--keep-raw FILE]

Needs py-spy (``pip install -e .[bench]``). Roots as in bench/scan_speed.py.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import usr_opt_root
from support import hostroot

OUT = Path(__file__).resolve().parent / "profiles"  # kept in the repository: the published profile


def frame_name(frame: str) -> str:
    """``function (path:line)`` -> ``function (path)``: one entry per function, not per line."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0]})" if where else name


def tally(raw: Path) -> tuple[int, collections.Counter[str], collections.Counter[str]]:
    """Samples in all, per function where taken, per function on the stack (py-spy's raw format:
    a collapsed stack and its count per line)."""
    total = 0
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [frame_name(f) for f in stack.split(";")]
        own[frames[-1]] += n
        for name in set(frames):
            inclusive[name] += n
    return total, own, inclusive


def table(title: str, counts: collections.Counter[str], total: int, top: int) -> list[str]:
    lines = [title, f"{'samples':>8} {'share':>6}  function (file)"]
    lines += [f"{n:8d} {100 * n / total:5.1f}%  {name}" for name, n in counts.most_common(top)]
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--root", choices=["host", "usr-opt"], default="usr-opt", help="which root")
    parser.add_argument("--rate", type=int, default=200, help="samples per second")
    parser.add_argument("--top", type=int, default=30, help="entries per table")
    parser.add_argument("--keep-raw", type=Path, help="also keep py-spy's raw stacks in this file")
    args = parser.parse_args(argv)
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("py-spy is not installed: pip install -e .[bench]", file=sys.stderr)
        return 2
    root = usr_opt_root.cached_root() if args.root == "usr-opt" else hostroot.cached_host_root()
    with tempfile.TemporaryDirectory(prefix="linkgraph-profile-") as tmp:
        raw = Path(tmp) / "scan.raw"
        scan = [*hostroot.linkgraph_command(), "scan", str(root), "--db", str(Path(tmp) / "g.lbdb"), "--quiet"]
        cmd = [spy, "record", "--gil", "--rate", str(args.rate), "--format", "raw", "--output", str(raw), "--", *scan]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total, own, inclusive = tally(raw)
        if args.keep_raw is not None:
            shutil.copyfile(raw, args.keep_raw)
    if not total:
        print("py-spy took no samples", file=sys.stderr)
        return 1
    header = [
        f"linkgraph scan of the {args.root} root ({root.name}), profiled with py-spy --gil at {args.rate} Hz",
        f"{dt.date.today().isoformat()}: {total} samples ({total / args.rate:.1f} s of the GIL held)",
        "",
    ]
    lines = header + table("Self (where the samples were taken)", own, total, args.top)
    lines += table("Inclusive (on the stack)", inclusive, total, args.top)
    OUT.mkdir(exist_ok=True)
    out = OUT / f"scan-{args.root}.txt"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
