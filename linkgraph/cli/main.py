"""The ``linkgraph`` command line. Its ``--help`` texts are the user documentation.

Exit codes: 0 = done, nothing worse than warnings; 1 = done, but some files had error-severity
problems (listed in the report); 2 = could not run (bad arguments, unreadable target, store);
3 = internal error (a bug: one line on stderr, the full trace in a file it names);
130 = interrupted (Ctrl-C): the work folder removed, a graph being written discarded.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from .. import __version__
from ..loader.errors import LinkgraphError
from ..loader.model import Resolution
from ..loader.problems import Severity
from .console import ProgressBar, ScanSummary, print_found, print_summary, say_problem
from .exit_noise import silence_exit_noise
from .internal_error import keep_traces_in, write_trace
from .near_choices import problems_command
from .options import DEFAULT_DB, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, fail, store_options
from .source_command import check_result, load_release, source_option

NOTHING_FOUND_HINT = (
    " (give the device's root filesystem, the folder holding /bin and /lib, or the firmware image file)"
)


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
    the message names, written next to the database); 130 interrupted (Ctrl-C; a graph being
    written is discarded).
    """


@main.command()
@click.argument("target", type=click.Path(exists=True, file_okay=True, dir_okay=True))
@store_options(DEFAULT_DB)
@click.option("--name", help="Name for the firmware in the graph (default: the target's file name).")
@click.option(
    "--workdir",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Unpack images here and keep the result (default: a temporary folder, removed afterwards).",
)
@click.option("--keep-workdir", is_flag=True, help="Keep the temporary unpack folder (its path is printed).")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, 64),
    default=None,
    help="Worker processes that hash and parse the ELF files (default: 1 on machines with up to 2 CPUs, "
    "else up to 4). With 1, this process parses while one child process finds the ELF files as the walk "
    "goes on and another hashes them while the link maps are worked out. Link maps and bindings are "
    "always worked out in this process, with lookups shared between link maps.",
)
@click.option(
    "--licences",
    "licences",
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="Licence overrides: a YAML (PATTERN: SPDX-EXPRESSION) or CSV (pattern,licence[,package]) file. "
    "A pattern with a / is a glob on module paths, any other one on sonames and file names; the "
    "first match wins over every licence fact found in the firmware. The file is stored with the "
    "scan and the report names it (see docs/licences.md).",
)
@click.option(
    "--cpu",
    metavar="LEVEL[,LEVEL]",
    default="",
    help="glibc-hwcaps levels the device's CPU supports (e.g. x86-64-v3; a level implies the lower "
    "ones): glibc then searches DIR/glibc-hwcaps/LEVEL before each directory. Default: a baseline "
    "CPU, no such folder searched. The levels a loader knows are in the report's firmware.source.",
)
@click.option(
    "--identify/--no-identify",
    default=True,
    show_default=True,
    help="Identify components from the files themselves: version banners, licence statements, exported "
    "APIs and the name table (docs/identify.md); --no-identify leaves licences to the package data, "
    ".modinfo and the knowledge base, and finds no copies inside programs.",
)
@source_option
@click.option(
    "--budget",
    "budgets",
    multiple=True,
    metavar="KIND=AMOUNT",
    help="Raise (or lower) one of the scan's budgets, e.g. --budget written=64G --budget entries=5000000: "
    "written (bytes unpacked into the work folder), entries (files, folders and links created there), "
    "matched (bytes read by the identification). Defaults grow with the image's size (docs/budget.md); "
    "when one is spent, that extraction stops and a scan-budget problem says where.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
def scan(
    target: str,
    open_: Callable,
    where: str,
    name: str | None,
    workdir: str | None,
    keep_workdir: bool,
    jobs: int | None,
    licences: str | None,
    cpu: str,
    identify: bool,
    release: Path | None,
    budgets: tuple[str, ...],
    quiet: bool,
) -> None:
    """Analyse TARGET and store its dependency graph.

    TARGET is a directory holding a root filesystem (the device's "/"), an archive (tar, cpio,
    zip, compressed or not) or a firmware image (vendor headers, squashfs, cramfs, jffs2,
    ubifs, ext, initramfs, nested). Images are unpacked with unblob and Debian's tools; every
    root filesystem found is scanned and stored as its own firmware graph. For every
    executable (and every library no executable loads) the device's loader is emulated:
    which file each DT_NEEDED loads, and which object each symbol reference binds to. A
    re-scan of the same content replaces the earlier graph; every dependency is classified
    used, declared-unused, hidden, interposed (bound only because that module comes first in
    the lookup, while the object's own dependencies define the symbol too), upcall (that module's
    own dependencies load the object, which calls back into it, as libc calls main) or missing.

    Every module also gets a licence fact (an SPDX expression, where it comes from, declared,
    identified or inferred, and its package): from --licences, the firmware's package data (dpkg,
    opkg, Buildroot, Yocto), a kernel module's .modinfo, the identification of the file itself (its
    own licence statement, a version banner or API of a known component, with the evidence and
    its offset), linkgraph's knowledge base or its name table, in that order. Components copied
    into a program (a static program's libc, zlib inside a vendor binary) become CONTAINS edges.
    """
    from ..loader.budget import parse_budgets
    from ..loader.licences import load_overrides
    from ..loader.report.licence_coverage import licence_coverage
    from ..loader.scan.firmware import scan_target, work_folder
    from ..loader.scan.root import paused_gc
    from ..loader.store.rows import build_rows

    start = time.perf_counter()
    results = []
    modules = 0  # ELF files found, over every root
    if workdir:
        keep_traces_in(workdir)
    try:
        chosen = parse_budgets(budgets)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--budget") from None
    try:
        overrides = load_overrides(licences) if licences else None
        index = load_release(release, quiet) if release is not None else None
        # the collector paused (scan_root pauses it too) until the command ends, see paused_gc
        with open_(False) as store, work_folder(workdir, keep_workdir) as folder, paused_gc(freeze=True):
            with ProgressBar(not quiet) as progress:
                unpacked, results = scan_target(
                    Path(target),
                    folder,
                    name,
                    jobs,
                    progress,
                    overrides,
                    tuple(c for c in cpu.split(",") if c),
                    defer_dlopen=True,
                    identify=identify,
                    budgets=chosen,
                )
            if not quiet:
                print_found(unpacked, target, folder if (workdir or keep_workdir) else None)
            for result in results:
                t_store = time.perf_counter()
                summary = ScanSummary.of(result)
                modules += sum(summary.kinds.values())
                rows = build_rows(result)
                if index is not None:
                    check_result(rows, result, index, quiet)
                rows.disposable = True
                # what the store needs is in the rows now: the parsed files and bindings go (the
                # dlopen stage, run while the store writes, keeps what it needs of them)
                result.modules, result.resolution = [], Resolution()
                store.replace_firmware(rows)
                del rows
                summary = summary.completed(result)
                fw = {"firmware": result.firmware_sha256}
                statuses = {r["status"]: r["edges"] for r in store.query("summary", fw)}
                result.elapsed["store"] = time.perf_counter() - t_store
                result.elapsed["total"] = time.perf_counter() - start
                if not quiet and summary.kinds.total():
                    coverage = licence_coverage(store, result.firmware_sha256)
                    print_summary(summary, statuses, result.elapsed, where, coverage)
    except LinkgraphError as exc:
        fail(str(exc))
    if not modules:
        say_problem(f"no ELF file found in {target}: nothing to analyse{NOTHING_FOUND_HINT}")
        sys.exit(EXIT_PROBLEMS)
    errors = [(r, p) for r in results for p in r.problems if p.severity is Severity.ERROR]
    if errors:
        result, first = errors[0]
        listing = problems_command(where, result.firmware_sha256[:12])
        say_problem(
            f"done, with {len(errors)} file error(s); the first: {first.path}: {first.code.value}: {first.message}",
            f"`{listing}` lists them all",
        )
    sys.exit(EXIT_PROBLEMS if errors else EXIT_OK)


def _add_commands() -> None:
    from .diff_command import diff
    from .graph_commands import query, report
    from .push_command import push
    from .source_command import source_check
    from .viewer_commands import diagram, serve
    from .vuln_command import vulnerable_use

    for command in (report, query, push, serve, diagram, diff, vulnerable_use, source_check):
        main.add_command(command)


_add_commands()


def run() -> None:
    """The ``linkgraph`` command: ``main``, with an internal error turned into one line and exit 3,
    and Ctrl-C into one line and exit 130.

    The traceback goes to a new file next to the database (see internal_error), whose path the
    line names; nothing of it reaches the screen (exit 1 stays "done, with problems"). Ctrl-C
    unwinds the command as any error does (the work folder removed, a graph being written
    discarded, the database as the last completed write left it) and exits with 130, as shells
    report a program stopped by SIGINT. What a dependency would print by itself at exit is silenced first (see
    exit_noise)."""
    silence_exit_noise()
    try:
        code = main(standalone_mode=False)
    except (click.Abort, KeyboardInterrupt):
        click.echo("linkgraph: interrupted (Ctrl-C)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except Exception as exc:  # every unexpected failure, MemoryError and RecursionError included
        path = write_trace(exc)
        click.echo(
            f"linkgraph: internal error ({type(exc).__name__}: {str(exc)[:200]}); the full trace is in "
            f"{path}: please report it",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
