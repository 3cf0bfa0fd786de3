"""Licence finding (a) at scale (issue 38): peak resident memory and time of ``linkgraph scan`` on the
roots whose (a) is biggest, its (a) row count, and whether its rows are the independent judge's
(tests/support/findings_judge.py) and, with ``--before``, another linkgraph's (the same query's JSON).

Roots (``--roots``, comma-separated):

* ``findings``: the root of tests/test_findings_scale.py (300 programs, 200 libraries without a
  licence fact, a GPL library behind libc-like hubs), with its licence overrides;
* ``synthetic16k``: ``bench/synthetic_root.py`` at 16,000 ELF files (built by gcc once, cached);
* ``usr-opt-dpkg``: this machine's ``/usr`` + ``/opt`` (``bench/usr_opt_root.py``) with the host's
  package data (``/var/lib/dpkg``; the copyright files are in ``/usr/share/doc``), hard links;
* any other argument: a root folder as it is (the Debian wheezy PowerPC root with its dpkg data).

    python bench/findings_scale.py --roots findings,usr-opt-dpkg --before /path/to/old/.venv/bin/linkgraph

Each scan runs once (``--quiet``; peak RSS and CPU from os.wait4's rusage). The machine's load is
printed with the figures: other work on the cores slows the times, not the memory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_root
import usr_opt_root
from support import findings_root
from support.findings_judge import Judge, differences, query_rows

GIB = 1 << 30


def usr_opt_dpkg() -> Path:
    """The /usr+/opt root with the host's /var/lib/dpkg beside it (a sibling of hard links)."""
    base = usr_opt_root.cached_root()
    dest = base.with_name(base.name + "-dpkg")
    if not dest.is_dir():
        partial = dest.with_name(dest.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(["cp", "-al", str(base), str(partial)], check=True)
        (partial / "var/lib").mkdir(parents=True)
        shutil.copytree("/var/lib/dpkg", partial / "var/lib/dpkg", symlinks=True)
        partial.rename(dest)
    return dest


def root_of(name: str) -> tuple[Path, list[str]]:
    """A root's folder and the extra scan arguments it needs."""
    if name == "findings":
        root, overrides = findings_root.cached()
        return root, ["--licences", str(overrides)]
    if name == "synthetic16k":
        return synthetic_root.cached_root(16000, log=lambda m: print(m, file=sys.stderr)), []
    if name == "usr-opt-dpkg":
        return usr_opt_dpkg(), []
    return Path(name), []


def run(cmd: list[str]) -> tuple[float, float, int, int]:
    """Wall time, CPU time, peak RSS (bytes) and exit status of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(err.decode(errors="replace")[-2000:], file=sys.stderr)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, code


def scan(command: str, root: Path, extra: list[str], db: Path) -> dict[str, Any]:
    wall, cpu, peak, code = run([command, "scan", str(root), "--db", str(db), "--quiet", *extra])
    figures: dict[str, Any] = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_gib": round(peak / GIB, 2)}
    figures["exit"] = code
    if code in (0, 1):
        out = subprocess.run([command, "query", "licence-gpl-used-by", "--db", str(db), "--json"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
        figures["rows"] = query_rows(json.loads(out))
    return figures


def judged(command: str, root: Path, db: Path) -> str:
    """The judge's verdict on the scan in ``db``, decided in a process of its own: the judge holds the
    whole report (8 GiB for /usr+/opt), and a scan started from a process that big would count that
    process's memory as its own peak (the peak survives fork and exec)."""
    proc = subprocess.run([sys.executable, __file__, "--judge", str(root), str(db), command],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return proc.stdout.strip()


def judge_only(root: Path, db: Path, command: str) -> str:
    report = subprocess.run([command, "report", "--db", str(db), "--format", "json"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    out = subprocess.run([command, "query", "licence-gpl-used-by", "--db", str(db), "--json"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    want = Judge(json.loads(report), root).rows()
    return differences(str(root), want, query_rows(json.loads(out)), "linkgraph") or f"equal ({len(want)} rows)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--roots", default="findings,synthetic16k,usr-opt-dpkg")
    parser.add_argument("--before", help="another linkgraph command to scan the same roots with, and compare")
    parser.add_argument("--no-judge", action="store_true", help="leave out the judge (it reads every file)")
    parser.add_argument("--judge", nargs=3, metavar=("ROOT", "DB", "LINKGRAPH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.judge:
        print(judge_only(Path(args.judge[0]), Path(args.judge[1]), args.judge[2]))
        return 0
    command = shutil.which("linkgraph", path=str(Path(sys.executable).parent)) or "linkgraph"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    for name in args.roots.split(","):
        root, extra = root_of(name)
        with tempfile.TemporaryDirectory(prefix="findings-scale-") as tmp:
            now = scan(command, root, extra, Path(tmp) / "now.lbdb")
            rows = now.pop("rows", None)
            line = f"{name}: {now}" + (f", {len(rows)} (a) rows" if rows is not None else "")
            print(line, flush=True)
            if rows is not None and not args.no_judge:
                print(f"  judge: {judged(command, root, Path(tmp) / 'now.lbdb')}", flush=True)
            if args.before:
                before = scan(args.before, root, extra, Path(tmp) / "before.lbdb")
                old = before.pop("rows", None)
                same = "same rows" if old == rows else "OTHER ROWS" if old is not None else "no rows"
                print(f"  before: {before}, {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
