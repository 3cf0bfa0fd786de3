"""What the command line shows a person: a progress bar, the scan summary, tables of rows."""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..loader.model import Kind, ScanResult, Status
from .coverage_lines import coverage_lines

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class ProgressBar:
    """A progress bar on a terminal; silent otherwise or with --quiet."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
            )
            self._bar.__enter__()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._bar is None:
            return
        if stage not in self._tasks:
            self._tasks[stage] = self._bar.add_task(stage, total=total or None)  # 0: not known yet
        self._bar.update(self._tasks[stage], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


@dataclass(frozen=True)
class ScanSummary:
    """The counts the end-of-scan table shows, taken from a scan before its graph is stored (the
    scan's parsed files and bindings can then be let go while the store writes)."""

    title: str
    kinds: Counter[str]
    static: int  # statically linked executables
    link_maps: int
    bindings: int
    unresolved_strong: int
    unresolved_weak: int
    duplicate_symbols: int
    certainty: Counter[str]
    severity: Counter[str]
    risky: Counter[str]
    dlopen: Counter[str]
    copies: int = 0  # components found inside modules that do not load them (CONTAINS)

    @classmethod
    def of(cls, result: ScanResult) -> ScanSummary:
        res = result.resolution
        strong = sum(1 for k in res.unresolved if not k.weak)
        return cls(
            title=f"{result.firmware_name}  ({result.firmware_sha256[:12]})",
            kinds=Counter(m.facts.kind.value for m in result.modules),
            static=sum(1 for m in result.modules if m.facts.static),
            link_maps=len(res.link_maps),
            bindings=len(res.bindings),
            unresolved_strong=strong,
            unresolved_weak=len(res.unresolved) - strong,
            duplicate_symbols=len({k.symbol for k in res.duplicates}),
            certainty=Counter(f.certainty.value if f.certainty else "unknown" for f in result.licences.values()),
            severity=Counter(),
            risky=Counter(),
            dlopen=Counter(),
            copies=sum(len(i.contains) for i in result.identities.values()),
        ).completed(result)

    def completed(self, result: ScanResult) -> ScanSummary:
        """The counts of the problems and the dlopen edges, which the scan's last stage adds to."""
        return dataclasses.replace(
            self,
            severity=Counter(p.severity.value for p in result.problems),
            risky=Counter(p.code.value for p in result.problems if p.code.value.startswith("rpath-")),
            dlopen=Counter(e.certainty.value for e in result.dlopen),
        )


SUMMARY_TO_REVIEW = 30  # modules to review the scan's summary names (the query lists them all)


def print_summary(
    summary: ScanSummary, statuses: dict[str, int], times: dict[str, float], db: str, coverage: dict
) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(summary.title), show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    for kind in Kind:
        table.add_row(f"modules: {kind}", str(summary.kinds.get(kind, 0)))
    table.add_row("executables statically linked", str(summary.static))
    table.add_row("link maps", str(summary.link_maps))
    for status in Status:
        table.add_row(f"dependencies: {status}", str(statuses.get(status, 0)))
    table.add_row("bindings (distinct)", str(summary.bindings))
    table.add_row("unresolved symbols (strong / weak)", f"{summary.unresolved_strong} / {summary.unresolved_weak}")
    table.add_row("duplicate providers", str(summary.duplicate_symbols))
    certainty = summary.certainty
    table.add_row(
        "licences (declared / identified / inferred / unknown)",
        " / ".join(str(certainty.get(c, 0)) for c in ("declared", "identified", "inferred", "unknown")),
    )
    table.add_row("components copied into other modules (CONTAINS)", str(summary.copies))
    sev = summary.severity
    table.add_row("problems (errors / warnings)", f"{sev.get('error', 0)} / {sev.get('warning', 0)}")
    for code, count in sorted(summary.risky.items()):  # risky DT_RPATH/DT_RUNPATH entries, per kind
        table.add_row(f"risky search paths: {code}", str(count))
    dlopen = summary.dlopen
    table.add_row(
        "dlopen edges (declared / named / pattern)",
        f"{dlopen.get('declared', 0)} / {dlopen.get('named', 0)} / {dlopen.get('pattern', 0)}",
    )
    table.add_row(
        "elapsed",
        f"{times.get('total', 0):.1f}s (parse {times.get('parse', 0):.1f}s, "
        f"resolve {times.get('resolve', 0):.1f}s, identify {times.get('identify', 0):.1f}s, "
        f"dlopen {times.get('dlopen', 0):.1f}s, "
        f"store {times.get('store', 0):.1f}s)",
    )
    console = Console(stderr=True)
    console.print(table)
    # lines that name a command are never wrapped (a command cut in two cannot be pasted)
    for line in coverage_lines(coverage, SUMMARY_TO_REVIEW):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    flag = "--neo4j" if "://" in db else "--db"
    console.print(escape(f"graph stored in {db}; next: linkgraph report {flag} {db} --format json"), soft_wrap=True)


def say_problem(*lines: str) -> None:
    """``linkgraph: LINE`` on stderr for each line, unwrapped (a command in it stays whole),
    escaped for a terminal."""
    import click

    from ..loader.store.printable import visible

    for line in lines:
        click.echo(f"linkgraph: {visible(line)}", err=True)


# a table is printed when each of its columns gets at least this many characters (or all of its
# widest cell); else each row as a record of "key value" lines, as psql's expanded display does
MIN_COLUMN = 24


def _cell(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else ("" if value is None else str(value))


def print_rows(rows: list[dict]) -> None:
    """Rows as a table that fits the terminal, a long path folded onto the next line, never cut to
    "/lib/li…". Columns empty in every row are left out; when the others are too many for the width,
    the first ones that fit are shown and stderr names the rest (``--json`` has them all). Only when
    not even two columns fit, the rows are records, one "key value" line per column."""
    import click
    from rich.console import Console
    from rich.table import Table

    if not rows:
        click.echo("(no rows)")
        return
    console = Console(markup=False, highlight=False)
    keys = [key for key in rows[0] if any(_cell(row[key]) for row in rows)] or list(rows[0])
    cells = [[_cell(row[key]) for key in keys] for row in rows]
    widest = [max(len(keys[i]), *(len(c[i]) for c in cells)) for i in range(len(keys))]
    room, shown = console.width - 1, 0
    while shown < len(keys) and room - (min(widest[shown], MIN_COLUMN) + 3) >= 0:
        room -= min(widest[shown], MIN_COLUMN) + 3
        shown += 1
    if shown >= min(2, len(keys)):
        table = Table()
        for key in keys[:shown]:
            table.add_column(key, overflow="fold")
        for row in cells:
            table.add_row(*row[:shown])
        console.print(table)
        if shown < len(keys):
            click.echo(
                f"{len(keys) - shown} more column(s) at a wider terminal or with --json: {', '.join(keys[shown:])}",
                err=True,
            )
        return
    for number, row in enumerate(cells, 1):
        console.print(f"-[ row {number} ]" + "-" * max(0, min(console.width, 40) - len(f"-[ row {number} ]")))
        record = Table.grid(padding=(0, 2))
        record.add_column(no_wrap=True)
        record.add_column(overflow="fold")
        for key, value in zip(keys, row, strict=True):
            record.add_row(key, value)
        console.print(record)


def print_found(unpacked: object, target: str, kept: object) -> None:
    """What the target was, and the roots found in it (with the chunks they were carved from)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True)
    kind = getattr(unpacked, "kind", "?")
    roots = getattr(unpacked, "roots", [])
    console.print(escape(f"{target}: {kind}, {len(roots)} root filesystem(s)"))
    for root in roots:
        chain = " > ".join(f"{c.format}@{c.offset:#x}" for c in root.origin) or "as given"
        console.print(escape(f"  root {root.name}: {chain}"))
    if kept:
        console.print(escape(f"  unpacked into {kept}"))
