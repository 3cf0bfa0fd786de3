"""The source-release check on the command line (docs/sources.md): ``scan --source RELEASE`` indexes
the vendor's GPL release (or reads its cached index) and checks every module of the scanned firmware
against it, with progress on stderr; ``source-check`` prints the stored check's findings."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..loader.errors import LinkgraphError
from .console import print_rows
from .options import DEFAULT_DB, FIRMWARE_HELP, fail, pick_firmware, store_options

# the named queries of the check, in the order the findings are shown
FINDINGS = ("source-missing", "source-uses-missing", "source-version-mismatch", "source-release-gaps")

source_option = click.option(
    "--source",
    "release",
    type=click.Path(exists=True, file_okay=True, dir_okay=True, path_type=Path),
    metavar="RELEASE",
    help="Check every module against the vendor's GPL source release RELEASE (a folder, or a tar of any "
    "compression, or a zip): the same bytes, its strings and exported functions in one source folder, "
    "a source status per module (source, prebuilt, absent, not-required), the build lines that link "
    "each library and what the release lacks to be built (docs/sources.md). Its index is cached by "
    "the release's content, so a second check of the same release reads it back.",
)


def load_release(release: Path, quiet: bool) -> Any:
    """The release's index (from the cache when it holds it), with a line on stderr."""
    from ..loader.sources.cache import load_index

    start = time.perf_counter()
    if not quiet:
        click.echo(f"source release: reading {release.name} ...", err=True)
    index, cached = load_index(release)
    if not quiet:
        how = "from the cache" if cached else "indexed"
        click.echo(
            f"source release: {len(index.files):,} files, {len(index.packages)} package folders, "
            f"{len(index.sources):,} C sources {how} in {time.perf_counter() - start:.1f} s",
            err=True,
        )
    return index


def check_result(rows: Any, result: Any, index: Any, quiet: bool) -> None:
    """Check the scanned root's modules against the release; its tables go into ``rows``."""
    from ..loader.sources.stage import add_source_rows

    result.problems.extend(index.problems)
    matches = add_source_rows(rows, result, index)
    if not quiet:
        counts = Counter(m.status.value for m in matches)
        shown = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        click.echo(f"source release: {len(matches)} modules checked: {shown}", err=True)


@click.command("source-check")
@store_options(DEFAULT_DB)
@click.option("--firmware", help=FIRMWARE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as one JSON object instead of tables.")
def source_check(open_: Callable, where: str, firmware: str | None, as_json: bool) -> None:
    """The findings of a stored source-release check (run it with `linkgraph scan TARGET --source
    RELEASE`): GPL and LGPL modules without source in the release, copyleft programs that use a
    module without source (with the symbols and the build-file lines that link it), version
    mismatches, and what the release lacks to be built."""
    from ..loader.report.source_findings import finding_rows

    del where
    try:
        with open_(True) as store:
            fw = pick_firmware(store, firmware)
            found = {name: finding_rows(store, name, fw) for name in FINDINGS}
    except LinkgraphError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(found, indent=1, ensure_ascii=False))
        return
    for name, rows in found.items():
        click.echo(f"\n{name} ({len(rows)})")
        if rows:
            print_rows(rows)
