"""The ``linkgraph`` command line. Its ``--help`` texts are the user documentation.

Exit codes: 0 = done, nothing worse than warnings; 1 = done, but some files had error-severity
problems (listed in the report); 2 = could not run (bad arguments, unreadable target, store);
3 = internal error (a bug: one line on stderr, the full trace in a file it names).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..loader.errors import LinkgraphError
from ..loader.model import Severity
from .console import ProgressBar, print_found, print_rows, print_summary

EXIT_OK, EXIT_PROBLEMS, EXIT_FAILED, EXIT_INTERNAL = 0, 1, 2, 3
DEFAULT_DB = "linkgraph.lbdb"


def fail(message: str) -> None:
    """One line on stderr, exit code 2 (could not run)."""
    click.echo(f"linkgraph: {message}", err=True)
    sys.exit(EXIT_FAILED)


def store_options(default_db: str | None) -> Callable:
    """--db / --neo4j / --neo4j-database, turned into one ``open`` argument for the command."""

    def decorate(command: Callable) -> Callable:
        @click.option("--neo4j-database", metavar="NAME", envvar="NEO4J_DATABASE",
                      help="Database on the Neo4j server (default: the server's default; also NEO4J_DATABASE).")
        @click.option("--neo4j", "neo4j", metavar="URI",
                      help="A Neo4j server instead of the embedded store, e.g. bolt://127.0.0.1:7687 "
                           "(also NEO4J_URI; user and password from NEO4J_USER / NEO4J_PASSWORD).")
        @click.option("--db", "db", metavar="PATH",
                      help="LadybugDB database file of the embedded store"
                           + (f" [default: {default_db}]" if default_db else "") + ".")
        @functools.wraps(command)
        def wrapper(db: str | None, neo4j: str | None, neo4j_database: str | None, **kwargs: Any) -> Any:
            from ..loader.store import open_store

            if not db and not neo4j:
                neo4j = os.environ.get("NEO4J_URI") or None
                db = None if neo4j else default_db
            where = neo4j or db or ""

            def open_(read_only: bool) -> Any:
                if not db and not neo4j:
                    fail("say where the graph is: --db PATH (embedded) or --neo4j URI (server)")
                return open_store(db=db, neo4j=neo4j, read_only=read_only, neo4j_database=neo4j_database)

            return command(open_=open_, where=where, **kwargs)

        return wrapper

    return decorate


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
      linkgraph scan ROOTFS_DIR --neo4j bolt://127.0.0.1:7687   # a shared Neo4j server

    Exit codes: 0 done; 1 done, but some files had errors (see the report's problems);
    2 could not run; 3 internal error (a bug in linkgraph: please report it with the trace file
    the message names).
    """


@main.command()
@click.argument("target", type=click.Path(exists=True, file_okay=True, dir_okay=True))
@store_options(DEFAULT_DB)
@click.option("--name", help="Name for the firmware in the graph (default: the target's file name).")
@click.option("--workdir", type=click.Path(file_okay=False), metavar="DIR",
              help="Unpack images here and keep the result (default: a temporary folder, removed afterwards).")
@click.option("--keep-workdir", is_flag=True, help="Keep the temporary unpack folder (its path is printed).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
              help="Parallel ELF parsers (default: 1 on machines with up to 2 CPUs, else up to 4).")
@click.option("--licences", "licences", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="Licence overrides: a YAML (PATTERN: SPDX-EXPRESSION) or CSV (pattern,licence[,package]) file. "
                   "A pattern with a / is a glob on module paths, any other one on sonames and file names; the "
                   "first match wins over every licence fact found in the firmware. The file is stored with the "
                   "scan and the report names it (see docs/licences.md).")
@click.option("--cpu", metavar="LEVEL[,LEVEL]", default="",
              help="glibc-hwcaps levels the device's CPU supports (e.g. x86-64-v3; a level implies the lower "
                   "ones): glibc then searches DIR/glibc-hwcaps/LEVEL before each directory. Default: a baseline "
                   "CPU, no such folder searched. The levels a loader knows are in the report's firmware.source.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
def scan(target: str, open_: Callable, where: str, name: str | None, workdir: str | None, keep_workdir: bool,
         jobs: int | None, licences: str | None, cpu: str, quiet: bool) -> None:
    """Analyse TARGET and store its dependency graph.

    TARGET is a directory holding a root filesystem (the device's "/"), an archive (tar, cpio,
    zip, compressed or not) or a firmware image (vendor headers, squashfs, cramfs, jffs2,
    ubifs, ext, initramfs, nested). Images are unpacked with unblob and Debian's tools; every
    root filesystem found is scanned and stored as its own firmware graph. For every
    executable (and every library no executable loads) the device's loader is emulated:
    which file each DT_NEEDED loads, and which object each symbol reference binds to. A
    re-scan of the same content replaces the earlier graph; every dependency is classified
    used, declared-unused, hidden or missing.

    Every module also gets a licence fact (an SPDX expression, where it comes from, declared or
    inferred, and its package): from --licences, the firmware's package data (dpkg, opkg,
    Buildroot, Yocto), a kernel module's .modinfo, or linkgraph's knowledge base, in that order.
    """
    from ..loader.licences import load_overrides
    from ..loader.scan.firmware import scan_target, work_folder
    from ..loader.scan.root import paused_gc
    from ..loader.store.rows import build_rows

    start = time.perf_counter()
    results = []
    try:
        overrides = load_overrides(licences) if licences else None
        with open_(False) as store, work_folder(workdir, keep_workdir) as folder:
            with ProgressBar(not quiet) as progress:
                unpacked, results = scan_target(Path(target), folder, name, jobs, progress, overrides,
                                               tuple(c for c in cpu.split(",") if c))
            if not quiet:
                print_found(unpacked, target, folder if (workdir or keep_workdir) else None)
            for result in results:
                t_store = time.perf_counter()
                with paused_gc():
                    store.replace_firmware(build_rows(result))
                fw = {"firmware": result.firmware_sha256}
                statuses = {r["status"]: r["edges"] for r in store.query("summary", fw)}
                result.elapsed["store"] = time.perf_counter() - t_store
                result.elapsed["total"] = time.perf_counter() - start
                if not quiet:
                    print_summary(result, statuses, where)
    except LinkgraphError as exc:
        fail(str(exc))
    failed = any(p.severity is Severity.ERROR for r in results for p in r.problems)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)


@main.command()
@store_options(None)
@click.option("--format", "fmt", type=click.Choice(["json", "html", "pdf"]), default="json", show_default=True,
              help="json: the whole analysis (schema linkgraph-report/1, docs/report.md); html or pdf: the "
                   "licence compliance report for people (docs/licences.md).")
@click.option("--firmware", help="Which firmware (id prefix or name), when the store holds several.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True),
              help="Write here instead of stdout (required for pdf).")
def report(open_: Callable, where: str, fmt: str, firmware: str | None, output: str | None) -> None:
    """Print the analysis of one firmware: the whole of it as JSON, or the licence compliance report.

    \b
    Formats:
      json  (default) modules, dependency edges with status and symbols, link maps, every
            binding, unresolved references, duplicate providers and problems (docs/report.md,
            docs/report.schema.json). The same scan gives the same report from either store.
      html  the licence compliance report as one self-contained page (no script, diagrams
            embedded): a title block, how to read it, the summary, then every licence finding
            with its diagram, the symbols as evidence and the source of each licence fact.
      pdf   the same report laid out for print (A4) by WeasyPrint; needs -o FILE.

    \b
    Examples:
      linkgraph report --db fw.lbdb > report.json
      linkgraph report --db fw.lbdb --format html -o compliance.html
      linkgraph report --db fw.lbdb --format pdf -o compliance.pdf
    """
    if fmt == "pdf" and not output:
        fail("--format pdf needs -o FILE (a PDF is not written to stdout)")
    try:
        with open_(True) as store:
            firmware_id = store.resolve_firmware(firmware)
            if fmt == "json":
                from ..loader.report.json_report import build_report

                text = json.dumps(build_report(store, firmware_id), indent=1, ensure_ascii=False) + "\n"
            elif fmt == "html":
                from ..viewer.compliance_render import html_report

                text = html_report(store, firmware_id)
            else:
                from ..viewer.compliance_render import pdf_report

                data = pdf_report(store, firmware_id)
    except LinkgraphError as exc:
        fail(str(exc))
    try:
        if fmt == "pdf":
            Path(output).write_bytes(data)
        elif output:
            with open(output, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(text)
        else:
            click.echo(text, nl=False)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")


@main.command()
@click.argument("name", required=False)
@store_options(None)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE",
              help="A query parameter (repeatable), e.g. --param path=/bin/busybox; "
                   "a list as JSON, e.g. --param 'paths=[\"/bin/sh\"]'.")
@click.option("--firmware", help="Which firmware (id prefix or name), when the store holds several.")
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON instead of a table.")
@click.option("--list", "list_them", is_flag=True, help="List the named queries with their descriptions.")
def query(name: str | None, open_: Callable, where: str, params: tuple[str, ...], firmware: str | None,
          as_json: bool, list_them: bool) -> None:
    """Run the named query NAME from linkgraph's Cypher folder and print its rows.

    `linkgraph query --list` shows every query, its description and its parameters.
    $firmware is filled in for you (with --firmware when the store holds several).
    """
    from ..loader.store.queries import list_queries, load_query

    if list_them or not name:
        for q in list_queries():
            extra = [p for p in q.parameters if p != "firmware"]
            suffix = f"  [--param {' --param '.join(p + '=…' for p in extra)}]" if extra else ""
            click.echo(f"{q.name:20} {q.description}{suffix}")
        return
    values = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep:
            fail(f"--param {item!r}: write it as KEY=VALUE")
        values[key] = json.loads(value) if value.startswith("[") else value
    try:
        named = load_query(name)
        if named.internal:
            fail(f"{name} is an internal query of the pipeline; `linkgraph query --list` shows the others")
        with open_(True) as store:
            if "firmware" in named.parameters and "firmware" not in values:
                values["firmware"] = store.resolve_firmware(firmware)
            rows = store.run_query(load_query(name, store.engine), values)
    except LinkgraphError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    print_rows(rows)


@main.command()
@click.option("--db", "db", required=True, metavar="PATH", help="The embedded database to copy from.")
@click.option("--neo4j", "neo4j", required=True, envvar="NEO4J_URI", metavar="URI",
              help="The Neo4j server to copy to (also NEO4J_URI; NEO4J_USER / NEO4J_PASSWORD).")
@click.option("--neo4j-database", metavar="NAME", envvar="NEO4J_DATABASE", help="Database on the server.")
@click.option("--firmware", help="Copy only this firmware (id prefix or name); default: all of them.")
def push(db: str, neo4j: str, neo4j_database: str | None, firmware: str | None) -> None:
    """Copy firmware graphs from an embedded database into a Neo4j server, without scanning again.

    Each firmware replaces the one with the same content hash on the server; the others there
    stay as they are.
    """
    from ..loader.store import open_store
    from ..loader.store.transfer import copy_firmware

    try:
        with open_store(db=db, read_only=True) as source, \
                open_store(neo4j=neo4j, neo4j_database=neo4j_database) as target:
            ids = [source.resolve_firmware(firmware)] if firmware else [f["id"] for f in source.firmware_ids()]
            for fw in ids:
                copied = copy_firmware(source, target, fw)
                click.echo(f"copied {copied['name']} ({fw[:12]}): {copied['modules']} modules, "
                           f"{copied['edges']} edges", err=True)
    except LinkgraphError as exc:
        fail(str(exc))


def _add_viewer_commands() -> None:
    from .viewer_commands import diagram, serve

    main.add_command(serve)
    main.add_command(diagram)


_add_viewer_commands()


def run() -> None:
    """The ``linkgraph`` command: ``main``, with an internal error turned into one line and exit 3.

    The traceback goes to a new file in the temporary folder, whose path the line names; nothing
    of it reaches the screen (exit 1 stays "done, with problems")."""
    try:
        main()
    except Exception as exc:  # noqa: BLE001 - every unexpected failure, MemoryError and RecursionError included
        import tempfile
        import traceback

        fd, path = tempfile.mkstemp(prefix="linkgraph-internal-error-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(f"linkgraph {__version__}: {' '.join(sys.argv)}\n")
            traceback.print_exception(exc, file=out)
        click.echo(f"linkgraph: internal error ({type(exc).__name__}: {str(exc)[:200]}); the full trace is in "
                   f"{path}: please report it", err=True)
        sys.exit(EXIT_INTERNAL)
