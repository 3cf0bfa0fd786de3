"""The licence facts of this machine's /usr/bin root (no package data) against the host's dpkg data.

The root is tests/support/hostroot.py's (bench/host_root.py builds or reuses it); the truth is
tests/support/host_truth.py's (the owning package by ``dpkg-query -S``, its source package, the
DEP-5 paragraph of the file's source folder), compared by tests/support/host_measure.py. Goals
(issue 37): copyleft recall >= 0.90, wrong class 0, every coreutils program identified with its
version.

For every source package whose copyleft modules linkgraph misses, it prints up to three example
files and the distinctive strings of their bytes (a version banner naming the package or the
program, a licence statement, a gnu.org or project URL, a bug-report address, a copyright line),
first those every example shares: what an identification rule could match.

Usage: python bench/identify_host.py [--json FILE] [--quiet]   (also: python bench/identify.py --root host)
Exit status 0 when the goals are met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.host_measure import HostMeasure, HostOutcome, measure_host
from support.host_truth import upstream_version
from support.hostroot import cached_host_root

RECALL_GOAL = 0.90
PRINTABLE = re.compile(rb"[\x20-\x7e]{3,}")  # 3: a version alone ("9.1"); other kinds want 6
SHORTEST = 6
# what makes a string worth matching, in the order they are shown
KINDS = {
    "licence": re.compile(r"(?i)\bL?GPL|General Public Licen[cs]e|free software|WITHOUT ANY WARRANTY|License\b"),
    "gnu": re.compile(r"gnu\.org"),
    "url": re.compile(r"https?://[\w.-]+\.[a-z]{2,}"),
    "address": re.compile(r"\b[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}\b"),
    "copyright": re.compile(r"(?i)copyright|\(c\) *\d{4}"),
}
TOOLCHAIN = re.compile(r"^(GCC: |GLIBC|GLIBCXX|CXXABI|GCC_|_)|\.(c|h|cc|cpp)$")
PER_KIND, PER_FILE, EXAMPLES, WIDTH = 2, 8, 3, 110


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.2f}" if whole else "-"


def banner(names: set[str]) -> re.Pattern[str]:
    """A version banner naming one of ``names``: ``mount from util-linux 2.38.1``, ``tar (GNU tar) 1.34``."""
    words = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if len(n) >= 2)
    return re.compile(rf"(?i)(?<![\w-])({words})(?![\w-]).{{0,40}}?\b\d+\.\d+")


def distinctive(path: Path, names: set[str], version: str | None) -> list[str]:
    """The strings of a file worth an identification rule: a banner, the package's upstream version
    alone or in a short string, a short string naming the package, then each kind of KINDS."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    words = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if len(n) >= 2)
    kinds = {
        "banner": banner(names),
        "version": re.compile(rf"^.{{0,30}}(?<![\w.]){re.escape(version)}(?![\w.]).{{0,30}}$" if version else "(?!)"),
        "name": re.compile(rf"(?i)^.{{0,30}}(?<![\w-])({words})(?![\w-]).{{0,30}}$"),
        **KINDS,
    }
    found: dict[str, list[str]] = {k: [] for k in kinds}
    for match in PRINTABLE.finditer(data):
        text = match.group().decode("ascii").strip()
        if TOOLCHAIN.search(text):
            continue
        for kind, pattern in kinds.items():
            if (len(text) >= SHORTEST or kind == "version") and pattern.search(text):
                if len(found[kind]) < PER_KIND and text not in found[kind]:
                    found[kind].append(text)
                break
    shown = [t for k in kinds for t in found[k]]
    return shown[:PER_FILE]


def examples(missed: list[HostOutcome]) -> list[HostOutcome]:
    """Up to EXAMPLES modules of a source package, one of each binary package first."""
    chosen: list[HostOutcome] = []
    seen: set[str | None] = set()
    for o in missed:
        if o.truth.package not in seen:
            chosen.append(o)
            seen.add(o.truth.package)
    chosen += [o for o in missed if o not in chosen]
    return chosen[:EXAMPLES]


def short(text: str) -> str:
    return repr(text if len(text) <= WIDTH else text[: WIDTH - 3] + "...")


def missed_lines(source: str, missed: list[HostOutcome], root: Path) -> list[str]:
    """One source package's missed copyleft modules: counts, the examples and their strings."""
    classes = Counter(o.truth.truth_class for o in missed)
    found = Counter(f"{o.found or 'unknown'}" for o in missed)
    licences = sorted({o.truth.licence or "" for o in missed})
    lines = [
        f"  {source}: {len(missed)} ({', '.join(f'{k} {v}' for k, v in classes.items())}; "
        f"truth {' | '.join(licences)}; found {', '.join(f'{k} {v}' for k, v in found.most_common())})"
    ]
    strings = {}
    for o in examples(missed):
        base = o.truth.path.rsplit("/", 1)[-1]
        names = {source, base, base.split(".so")[0], (o.truth.package or "").split(":")[0]}
        version = upstream_version(o.truth.version) if o.truth.version else None
        strings[o.truth.path] = distinctive(root / o.truth.path.lstrip("/"), {n for n in names if n}, version)
    shared = [s for s in next(iter(strings.values()), []) if len(strings) > 1 and all(s in v for v in strings.values())]
    if shared:
        lines.append(f"    in every example: {', '.join(short(s) for s in shared)}")
    for path, found_strings in strings.items():
        own = [s for s in found_strings if s not in shared]
        lines.append(f"    {path}: {', '.join(short(s) for s in own) or '(nothing distinctive)'}")
    return lines


def host_lines(measure: HostMeasure, quiet: bool) -> tuple[list[str], bool]:
    """The figures and, unless quiet, the wrong modules, the coreutils misses and the missed copyleft."""
    fig = measure.figures()
    truth = ", ".join(f"{k} {v}" for k, v in fig["truth_by_class"].items())
    without = ", ".join(f"{k} {v}" for k, v in fig["without_truth"].items()) or "none"
    wrong, core_missed = measure.wrong(), measure.coreutils_misses()
    by = ", ".join(f"{k} {v}" for k, v in fig["found_by_certainty"].items())
    lines = [
        f"== host: {fig['modules']} ELF modules of {measure.root}",
        f"  truth (host dpkg, DEP-5 paragraphs): {truth}; without a truth: {without}",
        f"  copyleft recall {ratio(fig['copyleft_hit'], fig['copyleft'])} (goal >= {RECALL_GOAL:.2f}); "
        f"wrong class {fig['wrong']} (goal 0); disputed {fig['disputed']}; "
        f"coverage {ratio(fig['with_fact'], fig['modules'])} ({by})",
        f"  coreutils programs identified as coreutils {fig['coreutils_version']}: "
        f"{ratio(fig['coreutils_identified'], fig['coreutils'])} (goal all)",
    ]
    if measure.not_scanned:
        lines.append(f"  truth modules the scan has no module for: {', '.join(measure.not_scanned[:5])}")
    ok = (
        fig["recall"] is not None
        and fig["recall"] >= RECALL_GOAL
        and not wrong
        and fig["coreutils"] > 0
        and not core_missed
        and not measure.not_scanned
    )
    if quiet:
        return lines, ok
    if wrong:
        lines.append(f"  wrong class ({len(wrong)}): path, truth (source package, paragraph), found")
        for o in wrong:
            t = o.truth
            lines.append(
                f"    {t.path}: {t.licence} ({'/'.join(t.classes)}; {t.source}, Files: {t.paragraph}); "
                f"found {o.found} ({o.found_class}, {o.found_source})"
            )
    for o in measure.disputed():
        t = o.truth
        lines.append(f"  disputed: {t.path}: {t.licence} ({t.source}, Files: {t.paragraph}); the sources: {o.disputed}")
    if core_missed:
        found = Counter(f"{o.component or '-'} {o.version or '-'}" for o in core_missed)
        lines.append(
            f"  coreutils not identified with {fig['coreutils_version']} ({len(core_missed)}): found {dict(found)}"
        )
    groups = measure.missed_by_source()
    lines.append(f"  missed copyleft by source package ({len(measure.missed())} modules, {len(groups)} packages):")
    for source, missed in groups.items():
        lines += missed_lines(source, missed, Path(measure.root))
    others = Counter(o.truth.source for o in measure.outcomes if not o.truth.copyleft and o.truth.classes and not o.hit)
    others.pop(None, None)
    if others:
        lines.append(
            "  missed permissive/incompatible by source package: "
            + ", ".join(f"{k} {v}" for k, v in others.most_common())
        )
    return lines, ok


def run(quiet: bool = False) -> tuple[list[str], bool, dict]:
    """Build or reuse the host root, measure it: the lines, whether the goals are met, the record."""
    measure = measure_host(cached_host_root())
    lines, ok = host_lines(measure, quiet)
    record = measure.figures() | {"root": measure.root, "outcomes": [o.record() for o in measure.outcomes]}
    return lines, ok, record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="write the figures and every module's outcome to this file")
    parser.add_argument("--quiet", action="store_true", help="figures only")
    args = parser.parse_args(argv)
    lines, ok, record = run(args.quiet)
    print("\n".join(lines))
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1, default=str) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
