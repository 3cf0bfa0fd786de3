"""The ``linkgraph`` command line. Its ``--help`` texts are the user documentation.

Exit codes: 0 = done, nothing worse than warnings; 1 = done, but some files had error-severity
problems (listed in the report); 2 = could not run (bad arguments, unreadable target, store).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter

import click

from .. import __version__
from .errors import LinkgraphError
from .model import ScanResult, Severity

EXIT_OK, EXIT_PROBLEMS, EXIT_FAILED = 0, 1, 2
DB_HELP = "LadybugDB database file holding the graph (created if absent)."


def _fail(message: str) -> None:
    click.echo(f"linkgraph: {message}", err=True)
    sys.exit(EXIT_FAILED)


class _Progress:
    """A progress bar on a terminal; silent otherwise or with --quiet."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar = None
        self._tasks: dict[str, int] = {}

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress("[progress.description]{task.description}", BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
            self._bar.__enter__()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._bar is None:
            return
        if stage not in self._tasks:
            self._tasks[stage] = self._bar.add_task(stage, total=total)
        self._bar.update(self._tasks[stage], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="linkgraph")
def main() -> None:
    """linkgraph: which libraries a firmware's programs really use, as the device's dynamic
    linker would bind them, stored as a graph.

    \b
    Typical use:
      linkgraph scan ROOTFS_DIR --db fw.lbdb     # analyse, store, classify
      linkgraph report --db fw.lbdb --format json > report.json
      linkgraph query --list                     # named questions to ask the graph
      linkgraph query hidden --db fw.lbdb

    Exit codes: 0 done; 1 done, but some files had errors (see the report's problems);
    2 could not run.
    """


@main.command()
@click.argument("target", type=click.Path(exists=True, file_okay=True, dir_okay=True))
@click.option("--db", "db", default="linkgraph.lbdb", show_default=True, help=DB_HELP)
@click.option("--name", help="Name for the firmware in the graph (default: the target's file name).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
              help="Parallel ELF parsers (default: 1 on machines with up to 2 CPUs, else up to 4).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
def scan(target: str, db: str, name: str | None, jobs: int | None, quiet: bool) -> None:
    """Analyse TARGET and store its dependency graph.

    TARGET is a directory holding a root filesystem (the device's "/"). Every ELF file is
    parsed; for every executable (and every library no executable loads) the device's
    loader is emulated: which file each DT_NEEDED loads, and which object each symbol
    reference binds to. The graph goes into the database, replacing an earlier scan of the
    same content, and every dependency is classified used, declared-unused, hidden or missing.
    """
    from .scan import scan_root
    from .store import open_store

    if not os.path.isdir(target):
        _fail(f"{target}: firmware images and archives are not supported yet; unpack it and scan the root folder")
    start = time.perf_counter()
    try:
        with _Progress(not quiet) as progress:
            result = scan_root(target, name=name, workers=jobs, progress=progress)
        t_store = time.perf_counter()
        from .graph_rows import build_rows

        with open_store(db=db) as store:
            store.replace_firmware(build_rows(result))
            statuses = {r["status"]: r["edges"] for r in store.query("summary", {"firmware": result.firmware_sha256})}
        result.elapsed["store"] = time.perf_counter() - t_store
    except LinkgraphError as exc:
        _fail(str(exc))
    result.elapsed["total"] = time.perf_counter() - start
    if not quiet:
        _print_summary(result, statuses, db)
    sys.exit(EXIT_PROBLEMS if any(p.severity is Severity.ERROR for p in result.problems) else EXIT_OK)


def _print_summary(result: ScanResult, statuses: dict[str, int], db: str) -> None:
    from rich.console import Console
    from rich.table import Table

    res = result.resolution
    from rich.markup import escape

    table = Table(title=escape(f"{result.firmware_name}  ({result.firmware_sha256[:12]})"), show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    kinds = Counter(m.facts.kind.value for m in result.modules)
    for kind in ("executable", "library", "kernel-module", "other-elf"):
        table.add_row(f"modules: {kind}", str(kinds.get(kind, 0)))
    table.add_row("link maps", str(len(res.link_maps)))
    for status in ("used", "declared-unused", "hidden", "missing"):
        table.add_row(f"dependencies: {status}", str(statuses.get(status, 0)))
    table.add_row("bindings (distinct)", str(len(res.bindings)))
    strong = sum(1 for k in res.unresolved if not k[3])
    table.add_row("unresolved symbols (strong / weak)", f"{strong} / {len(res.unresolved) - strong}")
    table.add_row("duplicate providers", str(len({k[0] for k in res.duplicates})))
    sev = Counter(p.severity.value for p in result.problems)
    table.add_row("problems (errors / warnings)", f"{sev.get('error', 0)} / {sev.get('warning', 0)}")
    times = result.elapsed
    table.add_row("elapsed", f"{times.get('total', 0):.1f}s (parse {times.get('parse', 0):.1f}s, "
                  f"resolve {times.get('resolve', 0):.1f}s, store {times.get('store', 0):.1f}s)")
    console = Console(stderr=True)
    console.print(table)
    console.print(escape(f"graph stored in {db}; next: linkgraph report --db {db} --format json"))


@main.command()
@click.option("--db", "db", required=True, help=DB_HELP)
@click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True,
              help="Report format (schema linkgraph-report/1, see docs/report.md).")
@click.option("--firmware", help="Which firmware (id prefix or name), when the database holds several.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write here instead of stdout.")
def report(db: str, fmt: str, firmware: str | None, output: str | None) -> None:
    """Print the whole analysis of one firmware as one JSON document.

    Modules, dependency edges with status and symbols, link maps, every binding, unresolved
    references, duplicate providers and problems (see docs/report.md and
    docs/report.schema.json).
    """
    from .report import build_report
    from .store import open_store

    try:
        with open_store(db=db, read_only=True) as store:
            doc = build_report(store, store.resolve_firmware(firmware))
    except LinkgraphError as exc:
        _fail(str(exc))
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        click.echo(text)


@main.command()
@click.argument("name", required=False)
@click.option("--db", "db", help=DB_HELP)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE",
              help="A query parameter (repeatable), e.g. --param path=/bin/busybox.")
@click.option("--firmware", help="Which firmware (id prefix or name), when the database holds several.")
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON instead of a table.")
@click.option("--list", "list_them", is_flag=True, help="List the named queries with their descriptions.")
def query(name: str | None, db: str | None, params: tuple[str, ...], firmware: str | None,
          as_json: bool, list_them: bool) -> None:
    """Run the named query NAME from linkgraph's Cypher folder and print its rows.

    `linkgraph query --list` shows every query, its description and its parameters.
    $firmware is filled in for you.
    """
    from .queries import list_queries, load_query
    from .store import open_store

    if list_them or not name:
        for q in list_queries():
            extra = [p for p in q.parameters if p != "firmware"]
            suffix = f"  [--param {' --param '.join(p + '=…' for p in extra)}]" if extra else ""
            click.echo(f"{q.name:18} {q.description}{suffix}")
        return
    if not db:
        _fail("say which database to ask: --db PATH")
    values = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep:
            _fail(f"--param {item!r}: write it as KEY=VALUE")
        values[key] = value
    try:
        named = load_query(name)
        if named.internal:
            _fail(f"{name} is an internal query of the pipeline; `linkgraph query --list` shows the others")
        with open_store(db=db, read_only=True) as store:
            if "firmware" in named.parameters and "firmware" not in values:
                values["firmware"] = store.resolve_firmware(firmware)
            rows = store.run_query(load_query(name, store.engine), values)
    except LinkgraphError as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    _print_rows(rows)


def _print_rows(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    if not rows:
        click.echo("(no rows)")
        return
    table = Table(*rows[0].keys())
    for row in rows:
        table.add_row(*(", ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else str(v))
                        for v in row.values()))
    Console(markup=False, highlight=False).print(table)
