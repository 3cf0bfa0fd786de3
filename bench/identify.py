"""How well linkgraph knows the licences of userland modules without the firmware's package data.

1. Leave-one-out on the roots with package data (the LEDE and Freifunk images, the Xiaomi R4A
   root: opkg; goals recall >= 0.95, wrong 0): the truth is each userland module's declared fact
   from the package data; a copy of the root without it is scanned again, judged by a name table
   harvested without the root's own distribution (OpenWrt's recipes; Debian's packages for the
   Debian roots), and the classes compared
   (tests/support/identify_truth.py: recall of gpl and lgpl, wrong class, a conjunction's parts).
2. The same on the four Debian foreign-architecture roots of tests/support/debian_roots.py (dpkg
   status and info, copyright files removed; goals recall >= 0.90, wrong 0).
3. This machine's /usr/bin root (no package data; bench/identify_host.py): the truth is the host's
   dpkg data read by tests/support/host_truth.py; goals copyleft recall >= 0.90, wrong 0, every
   coreutils program identified with its version.
4. The stock vendor roots (no package data): the share of userland modules with a licence fact
   (goal >= 80%), by certainty, and the unknown ones with version-banner hints
   (bench/identify_stock.py). The TP-Link MR3020 image is skipped, with the reason, while linkgraph
   finds no root filesystem in it.

Usage: python bench/identify.py [--root NAME ...] [--json FILE] [--quiet]
Exit status 0 when every root meets its goals, 1 otherwise. Copies and unpacked images go to a
temporary folder; extracted vendor roots and Debian roots are cached as the tests cache them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from identify_host import host_lines
from identify_stock import Coverage, coverage
from linkgraph.loader.unpack import unpack
from support import debian_roots, vendor_roots
from support.host_measure import measure_host
from support.hostroot import cached_host_root
from support.identify_truth import MEASURED, LeaveOneOut, Outcome, leave_one_out, scan
from support.images import FFULM, FIRMWARE, LEDE

MR3020 = FIRMWARE / "tplink-mr3020v1-3.17.2-150921.bin"
STAGES = ("licen", "ident")  # the elapsed keys of the licence and identification stages


class Skipped(Exception):
    """A root that cannot be had today; the message says why."""


@dataclass(frozen=True)
class Target:
    name: str
    kind: str  # "leave-one-out", "host" or "stock"
    recall_goal: float  # leave-one-out: recall of each class; host: copyleft recall; stock: share with a fact
    root: Callable[[Path], Path]  # the root folder (an image is unpacked into the given folder)
    # leave-one-out: the name table's sources of the root's own distribution, left out of its judging
    harvested: frozenset[str] = frozenset()


def image_root(image: Path) -> Callable[[Path], Path]:
    def get(workdir: Path) -> Path:
        if not image.is_file():
            raise Skipped(f"{image} is missing")
        unpacked = unpack(image, workdir / "unpacked")
        if len(unpacked.roots) != 1:
            why = "; ".join(p.message for p in unpacked.problems) or f"{len(unpacked.roots)} roots"
            raise Skipped(f"linkgraph finds no single root filesystem in {image.name} ({why})")
        return unpacked.roots[0].path

    return get


def vendor_root(name: str) -> Callable[[Path], Path]:
    return lambda _workdir: vendor_roots.extracted_root(name)[0]


def debian_root(arch: str) -> Callable[[Path], Path]:
    def get(_workdir: Path) -> Path:
        try:
            return debian_roots.cached_debian_root(arch)
        except debian_roots.DebianRootError as exc:
            raise Skipped(f"the Debian {arch} root could not be built: {exc}") from exc

    return get


# the name table's sources that harvested a root's own distribution: left out when it is judged
OPENWRT = frozenset({"openwrt", "openwrt-packages"})
DEBIAN = frozenset({"debian"})

TARGETS = {
    t.name: t
    for t in (
        Target("lede", "leave-one-out", 0.95, image_root(LEDE), OPENWRT),
        Target("ffulm", "leave-one-out", 0.95, image_root(FFULM), OPENWRT),
        Target("alt_xiaomi_r4a", "leave-one-out", 0.95, vendor_root("alt_xiaomi_r4a"), OPENWRT),
        *(Target(f"debian-{a}", "leave-one-out", 0.90, debian_root(a), DEBIAN) for a in debian_roots.ARCHES),
        Target("host", "host", 0.90, lambda _workdir: cached_host_root()),
        *(Target(n, "stock", 0.80, vendor_root(n)) for n in ("hilink_hlk-rm04", "dlink_dir880l", "jiofi2_m2")),
        Target("tplink-mr3020", "stock", 0.80, image_root(MR3020)),
    )
}


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.2f}" if whole else "-"


def stage_times(elapsed: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f} s" for k, v in elapsed.items() if k.startswith(STAGES)) or "not recorded"


def outcome_table(rows: list[Outcome], quiet: bool) -> list[str]:
    """One aligned line per module: path, truth (class), package, what was found without package data."""
    if quiet or not rows:
        return []
    cells = [
        (
            o.path,
            f"{o.truth} ({o.truth_class}{', parts' if o.parts else ''})",
            o.package or "-",
            f"{o.found} ({o.found_class}, {o.found_source})" if o.found else "unknown",
        )
        for o in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(3)]
    return ["    " + "  ".join(c[i].ljust(widths[i]) for i in range(3)) + "  " + c[3] for c in cells]


def leave_one_out_lines(loo: LeaveOneOut, goal: float, quiet: bool) -> tuple[list[str], bool]:
    classes = ", ".join(f"{k} {v}" for k, v in loo.record()["truth_by_class"].items() if v)
    parts = sum(o.parts for o in loo.outcomes)
    lines = [
        f"== {loo.name}: {loo.modules} userland modules; truth {len(loo.outcomes)} "
        f"(from {', '.join(f'{k} {v}' for k, v in loo.sources().items()) or 'nothing'}): {classes}; "
        f"{parts} with a list of parts (any part's class accepted)",
        f"  not in the truth: {', '.join(f'{k} {v}' for k, v in sorted(loo.left_out.items())) or 'none'}",
        f"  package data removed ({len(loo.removed)}): {', '.join(loo.removed[:4]) or 'NONE'}"
        + (", ..." if len(loo.removed) > 4 else ""),
    ]
    ok = bool(loo.removed and loo.outcomes)
    figures = []
    for cls in MEASURED:
        truth = loo.truth(cls)
        recall = loo.recall(cls)
        ok = ok and (recall is None or recall >= goal)
        figures.append(f"recall {cls.value} {ratio(sum(o.hit for o in truth), len(truth))} (goal >= {goal:.2f})")
    wrong = loo.wrong()
    ok = ok and not wrong
    disputed = loo.disputed()
    lines.append("  " + "; ".join(figures) + f"; wrong class {len(wrong)} (goal 0); disputed {len(disputed)}")
    certainties = Counter(o.found_certainty for o in loo.outcomes if o.found)
    by = ", ".join(f"{k} {v}" for k, v in sorted(certainties.items())) or "none"
    lines.append(f"  truth modules with a fact without package data: {sum(certainties.values())} ({by})")
    lines.append(
        f"  licence stage: with package data {stage_times(loo.elapsed['with'])}; "
        f"without {stage_times(loo.elapsed['without'])}"
    )
    if wrong and not quiet:
        lines += ["  wrong class:", *outcome_table(wrong, quiet)]
    if disputed and not quiet:
        lines += ["  disputed (the package data contradicts the component's own sources):"]
        lines += [f"    {o.path}: package data {o.truth}, the sources {o.disputed}" for o in disputed]
    missed = sorted(loo.missed(), key=lambda o: (o.truth_class, o.package or "", o.path))
    if missed and not quiet:
        lines += [f"  missed gpl/lgpl ({len(missed)}): path, truth, package, found without package data"]
        lines += outcome_table(missed, quiet)
    return lines, ok


def coverage_lines(cov: Coverage, goal: float, quiet: bool) -> tuple[list[str], bool]:
    by = ", ".join(f"{k} {v}" for k, v in sorted(cov.by_certainty.items())) or "none"
    sources = ", ".join(f"{k} {v}" for k, v in sorted(cov.by_source.items())) or "none"
    lines = [
        f"== {cov.name}: {cov.modules} userland modules; with a licence fact {ratio(cov.known, cov.modules)} "
        f"(goal >= {goal:.2f}); by certainty: {by}; by source: {sources}",
        f"  licence stage: {stage_times(cov.elapsed)}",
    ]
    if cov.unknown and not quiet:
        lines.append(f"  unknown ({len(cov.unknown)}): path, size, soname, version-banner hints")
        width = max(len(u.path) for u in cov.unknown)
        for u in cov.unknown:
            hints = " | ".join(u.hints) or "-"
            lines.append(f"    {u.path.ljust(width)}  {u.size:>8}  {u.soname or '-'}  {hints}")
    return lines, cov.modules > 0 and cov.share >= goal


def run_target(target: Target, tmp: Path, quiet: bool) -> tuple[list[str], bool, dict]:
    root = target.root(tmp)
    if target.kind == "leave-one-out":
        loo = leave_one_out(target.name, root, tmp, target.harvested)
        lines, ok = leave_one_out_lines(loo, target.recall_goal, quiet)
        return lines, ok, loo.record() | {"kind": target.kind, "goal": target.recall_goal}
    if target.kind == "host":
        measure = measure_host(root)
        lines, ok = host_lines(measure, quiet)
        return lines, ok, measure.figures() | {"kind": target.kind, "goal": target.recall_goal}
    cov = coverage(target.name, root, scan(root, target.name))
    lines, ok = coverage_lines(cov, target.recall_goal, quiet)
    return lines, ok, cov.record() | {"kind": target.kind, "goal": target.recall_goal}


def summary_line(name: str, record: dict) -> str:
    if "skipped" in record:
        return f"  {name:16} skipped: {record['skipped'][:120]}"
    if record["kind"] == "host":
        recall = "-" if record["recall"] is None else f"{record['recall']:.2f}"
        return (
            f"  {name:16} truth {record['copyleft']:3} copyleft, recall {recall}  wrong {record['wrong']}  "
            f"disputed {record['disputed']}  coreutils {record['coreutils_identified']}/{record['coreutils']}"
        )
    if record["kind"] == "stock":
        by = ", ".join(f"{k} {v}" for k, v in sorted(record["by_certainty"].items()))
        return f"  {name:16} with a fact {record['with_fact']}/{record['modules']} = {record['share']:.2f} ({by})"
    recall = "  ".join(
        f"{k} {'-' if v is None else f'{v:.2f}'} of {record['truth_by_class'][k]}" for k, v in record["recall"].items()
    )
    wrong = f"wrong {record['wrong']}  disputed {record['disputed']}"
    return f"  {name:16} truth {record['truth_modules']:3} recall {recall}  {wrong}"


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--root", action="append", choices=list(TARGETS), help="run this root (repeatable)")
    parser.add_argument("--json", type=Path, help="write every figure and list to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress lines and no lists, figures only")
    args = parser.parse_args(argv)

    ok = True
    records: dict[str, dict] = {}
    for name in args.root or list(TARGETS):
        target = TARGETS[name]
        if not args.quiet:
            print(f"-- {name} ({target.kind}) ...", file=sys.stderr, flush=True)
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"linkgraph-identify-{name}-") as tmp:
            try:
                lines, passed, record = run_target(target, Path(tmp), args.quiet)
            except Skipped as exc:
                lines, passed, record = [f"== {name}: skipped: {exc}"], True, {"kind": target.kind, "skipped": str(exc)}
        record["seconds"] = round(time.monotonic() - started, 1)
        records[name] = record
        ok = ok and passed
        print("\n".join(lines), flush=True)
    print("\nSUMMARY")
    for name, record in records.items():
        print(summary_line(name, record))
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1, default=str) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
