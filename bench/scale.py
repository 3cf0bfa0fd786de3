"""How does ``linkgraph scan`` scale? Time, peak memory and store size against the size of the root.

Builds (or reuses, see bench/synthetic_root.py) synthetic roots of real gcc-built programs and
libraries, shaped like firmware (a seeded random DAG of DT_NEEDED with the fan-out, depth and
symbols per library measured on the LEDE and host roots), of 1k, 2k, 4k, 8k and 16k ELF files:
about 15 minutes of gcc on two cores the first time, then cached in
~/.cache/linkgraph/bench/scale-HASH/. Then, size after size:

  * warms the page cache and times ``readelf -W --dyn-syms -d`` over every ELF file of the root
    (BATCH files per process, best of --readelf-runs): the reference, as in scan_speed.py;
  * runs ``linkgraph scan ROOT --db TMP`` as a process of its own (best wall time of
    --scan-runs) and takes its CPU time and peak resident memory from os.wait4's rusage of that
    very child (nothing of this process counts); the store's size on disk; the distinct bindings,
    link maps and edges per status from the scan's summary. Its stderr is no terminal, so no
    progress bar is drawn: the summary is all that --quiet would leave out.

Written to --out (default bench/out/, git-ignored): scale.json with every figure and scale.png
(scan time, peak memory and store size against ELF files, and against bindings). Printed: a table,
the growth per doubling of time, memory and store size beside the growth of bindings, and the
exponents of a log-log fit against bindings. Other work on the machine slows the wall time: the
load average before each scan is kept in the JSON, and the CPU time is shown beside the wall time.

Goals (the scale issue): the largest root is scanned (exit 0 or 1) with a peak under 4 GiB, and
the scan's CPU time (user + system: other work on the machine changes it less than the wall
time) grows no faster than the number of bindings (fitted exponent <= 1.15).

Usage: python bench/scale.py [--sizes 1000,2000,4000] [--quick] [--seed N] [--out DIR] [--build-only]
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic_root

REPO = Path(__file__).resolve().parent.parent
SIZES = (1000, 2000, 4000, 8000, 16000)
QUICK_SIZES = (500, 1000)
BATCH = 200
MEMORY_GOAL = 4 * 1024**3
EXPONENT_GOAL = 1.15
MIB = 1024**2
ROW = re.compile(r"│\s*([^│]+?)\s*│\s*([^│]+?)\s*│")
ELAPSED = re.compile(r"parse ([\d.]+)s, resolve ([\d.]+)s, store ([\d.]+)s")


def elf_files(root: Path) -> list[Path]:
    """Every regular (non-symlink) ELF file under *root*."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and path.is_file():
                with open(path, "rb") as fh:
                    if fh.read(4) == b"\x7fELF":
                        out.append(path)
    return sorted(out)


def time_readelf(files: list[Path], batch: int) -> float:
    start = time.perf_counter()
    for i in range(0, len(files), batch):
        cmd = ["readelf", "-W", "--dyn-syms", "-d", *(str(p) for p in files[i : i + batch])]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def linkgraph_command() -> str:
    script = Path(sys.executable).with_name("linkgraph")
    return str(script) if script.is_file() else shutil.which("linkgraph") or "linkgraph"


def parse_summary(text: str) -> dict[str, float]:
    """The counts of the scan's summary table (stderr) that the benchmark keeps."""
    rows = dict(ROW.findall(text))
    out: dict[str, float] = {"bindings": int(rows.get("bindings (distinct)", "-1"))}
    out["link_maps"] = int(rows.get("link maps", "-1"))
    for status in ("used", "declared-unused", "hidden", "missing"):
        out[status] = int(rows.get(f"dependencies: {status}", "-1"))
    if found := ELAPSED.search(text):
        out.update(zip(("parse_s", "resolve_s", "store_s"), map(float, found.groups()), strict=True))
    return out


def run_scan(command: list[str], root: Path, tmp: Path) -> dict[str, float]:
    """One ``linkgraph scan`` in a fresh folder: wall and CPU seconds, peak RSS, exit code, store size."""
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    db, log = tmp / "scale.lbdb", tmp.with_name(tmp.name + ".stderr")
    env = {**os.environ, "COLUMNS": "200"}  # the summary table on one line per row
    load = os.getloadavg()[0]
    with open(log, "w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([*command, "scan", str(root), "--db", str(db)], stdout=err, stderr=err, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    text = log.read_text(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(text[-3000:], file=sys.stderr)
    store = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file() and not p.is_symlink())
    result = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss": usage.ru_maxrss * 1024}
    result.update(exit=code, store_bytes=store, load_before=load, **parse_summary(text))
    return result


def measure(size: int, args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    root = synthetic_root.cached_root(size, args.seed, args.jobs)
    files = elf_files(root)
    megabytes = sum(len(p.read_bytes()) for p in files) / MIB  # also warms the page cache
    readelf = min(time_readelf(files, args.batch) for _ in range(max(1, args.readelf_runs)))
    print(f"{size}: {len(files)} ELF files ({megabytes:.0f} MiB) in {root}; readelf {readelf:.2f}s", flush=True)
    runs = [run_scan(shlex.split(args.linkgraph), root, tmp / f"scan-{size}") for _ in range(max(1, args.scan_runs))]
    best = min(runs, key=lambda r: r["wall_s"])
    best.update(size=size, elf=len(files), elf_mib=megabytes, readelf_s=readelf, ratio=best["wall_s"] / readelf)
    best["peak_rss"] = max(r["peak_rss"] for r in runs)
    best["exit"] = max(r["exit"] for r in runs)
    print(
        f"{size}: scan {best['wall_s']:.1f}s (cpu {best['cpu_s']:.1f}s, exit {best['exit']}), peak "
        f"{best['peak_rss'] / MIB:.0f} MiB, store {best['store_bytes'] / MIB:.0f} MiB, {best['bindings']} bindings",
        flush=True,
    )
    return best


def exponent(xs: list[float], ys: list[float]) -> float:
    """Slope of the least-squares line through (log x, log y): y grows like x to this power."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=True)) / den if den else float("nan")


METRICS = (("bindings", "bindings"), ("wall_s", "time"), ("cpu_s", "cpu"), ("peak_rss", "memory"))
METRICS += (("store_bytes", "store"),)


def growth(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    """Per step between sizes, each metric's growth per doubling of the ELF count."""
    out = []
    for a, b in itertools.pairwise(rows):
        doublings = math.log2(b["elf"] / a["elf"])
        step: dict[str, float] = {"from": a["elf"], "to": b["elf"]}
        step.update({name: (b[key] / a[key]) ** (1 / doublings) for key, name in METRICS if a[key] > 0})
        out.append(step)
    return out


def print_report(rows: list[dict[str, float]], steps: list[dict[str, float]], fits: dict[str, float]) -> None:
    head = f"{'ELF':>7} {'bindings':>10} {'scan s':>8} {'cpu s':>8} {'readelf s':>9} {'ratio':>6} "
    print("\n" + head + f"{'peak MiB':>9} {'store MiB':>9} {'parse/resolve/store s':>22} {'load':>5}")
    for r in rows:
        stages = f"{r.get('parse_s', 0):.1f}/{r.get('resolve_s', 0):.1f}/{r.get('store_s', 0):.1f}"
        print(
            f"{r['elf']:>7} {r['bindings']:>10} {r['wall_s']:>8.1f} {r['cpu_s']:>8.1f} {r['readelf_s']:>9.2f} "
            f"{r['ratio']:>6.1f} {r['peak_rss'] / MIB:>9.0f} {r['store_bytes'] / MIB:>9.0f} {stages:>22} "
            f"{r['load_before']:>5.1f}"
        )
    if steps:
        print("\ngrowth per doubling of the ELF count (x2 = linear in files)")
        for s in steps:
            cols = "  ".join(f"{name} x{s[name]:.2f}" for _key, name in METRICS if name in s)
            print(f"  {s['from']:>6} -> {s['to']:<6} {cols}")
        print("exponents against bindings (1 = linear): " + ", ".join(f"{k} {v:.2f}" for k, v in fits.items()))


def plot(rows: list[dict[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    elf = [r["elf"] for r in rows]
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    (ax_t, ax_m), (ax_s, ax_b) = axes
    ax_t.plot(elf, [r["wall_s"] for r in rows], "o-", label="linkgraph scan, wall")
    ax_t.plot(elf, [r["cpu_s"] for r in rows], "s--", label="linkgraph scan, CPU")
    ax_t.plot(elf, [r["readelf_s"] for r in rows], "^-", label="readelf -W --dyn-syms -d")
    for stage, color in (("parse", "C4"), ("resolve", "C5"), ("store", "C6")):
        ax_t.plot(elf, [r.get(f"{stage}_s", math.nan) for r in rows], ":", color=color, label=f"scan: {stage} stage")
    ax_t.set(title="scan time", ylabel="seconds")
    ax_m.plot(elf, [r["peak_rss"] / MIB for r in rows], "o-", color="C3", label="peak RSS of the scan")
    ax_m.axhline(MEMORY_GOAL / MIB, color="grey", linestyle=":", label="goal: 4 GiB")
    ax_m.set(title="peak memory", ylabel="MiB")
    ax_s.plot(elf, [r["store_bytes"] / MIB for r in rows], "o-", color="C2", label="LadybugDB file")
    ax_s.set(title="store size on disk", ylabel="MiB")
    first, bindings = rows[0], [r["bindings"] for r in rows]
    lines = (("wall_s", "wall time", "o-"), ("cpu_s", "CPU time", "s--"), ("peak_rss", "memory", "D-"))
    for key, name, style in (*lines, ("store_bytes", "store", "^-")):
        ax_b.plot(bindings, [r[key] / first[key] for r in rows], style, label=name)
    ax_b.plot(bindings, [b / bindings[0] for b in bindings], ":", color="grey", label="linear in bindings")
    ax_b.set(title="growth against bindings", xlabel="distinct bindings", ylabel="x the smallest root's")
    for ax, xs in ((ax_t, elf), (ax_m, elf), (ax_s, elf), (ax_b, bindings)):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(xs, [f"{x / 1e6:.3g}M" if x >= 1e6 else f"{x / 1e3:.3g}k" for x in xs])
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    for ax in (ax_t, ax_m, ax_s):
        ax.set_xlabel("ELF files in the root")
    for r in rows:
        ax_t.annotate(f"{r['bindings'] / 1e3:.0f}k bindings", (r["elf"], r["wall_s"]), fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def revision() -> str:
    run = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return run.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument(
        "--sizes", default=",".join(map(str, SIZES)), help="ELF files per root, comma-separated (default %(default)s)"
    )
    parser.add_argument("--quick", action="store_true", help=f"sizes {','.join(map(str, QUICK_SIZES))} only")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic DAG (default 1)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out", help="folder of scale.json, scale.png")
    parser.add_argument("--jobs", type=int, default=0, help="parallel gcc processes when building (default: CPUs)")
    parser.add_argument("--scan-runs", type=int, default=1, help="best of N scans per size (default 1)")
    parser.add_argument("--readelf-runs", type=int, default=3, help="best of N readelf runs (default 3)")
    parser.add_argument("--batch", type=int, default=BATCH, help="files per readelf process")
    parser.add_argument("--build-only", action="store_true", help="build (or find) the roots, measure nothing")
    parser.add_argument("--linkgraph", default=linkgraph_command(), help="the command measured (default: %(default)s)")
    parser.add_argument("--label", default=revision(), help="what was measured, for the plot and JSON (default: git)")
    parser.add_argument("--replot", action="store_true", help="report and draw again from --out's scale.json")
    args = parser.parse_args(argv)
    sizes = sorted(QUICK_SIZES if args.quick else {int(s) for s in args.sizes.split(",") if s.strip()})

    if args.replot:
        saved = json.loads((args.out / "scale.json").read_text())
        rows, machine = saved["rows"], saved["machine"]
    else:
        for size in sizes:  # every root first, so that building does not overlap a measurement
            print(f"root of {size} ELF files: {synthetic_root.cached_root(size, args.seed, args.jobs)}", flush=True)
        if args.build_only:
            return 0
        with tempfile.TemporaryDirectory(prefix="linkgraph-scale-") as tmp:
            rows = [measure(size, args, Path(tmp)) for size in sizes]
        machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M")}
        machine |= {"linkgraph": args.linkgraph, "label": args.label, "seed": args.seed}
    steps = growth(rows)
    fits = {}
    if len(rows) > 1:
        fits = {name: exponent([r["bindings"] for r in rows], [r[key] for r in rows]) for key, name in METRICS[1:]}
    print_report(rows, steps, fits)

    largest = rows[-1]
    ok = largest["exit"] in (0, 1) and largest["peak_rss"] < MEMORY_GOAL and fits.get("cpu", 0) <= EXPONENT_GOAL
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"machine": machine, "rows": rows, "growth_per_doubling": steps, "exponents": fits}
    report["goals"] = {"peak_rss_below": MEMORY_GOAL, "cpu_exponent_at_most": EXPONENT_GOAL, "met": ok}
    (args.out / "scale.json").write_text(json.dumps(report, indent=1) + "\n")
    title = f"linkgraph scan on synthetic roots (seed {machine['seed']}, {machine['label']}, {machine['cpus']} CPUs, "
    title += f"{machine['date']})"
    plot(rows, args.out / "scale.png", title)
    print(f"\nwritten: {args.out / 'scale.json'}, {args.out / 'scale.png'}")
    print(f"goals (largest root scanned, peak < 4 GiB, CPU exponent <= {EXPONENT_GOAL}): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
