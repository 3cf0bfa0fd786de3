"""``linkgraph diff OLD NEW``: what changed between two firmware of one store."""

from __future__ import annotations

import json
from collections.abc import Callable

import click

from ..loader.errors import LinkgraphError
from .near_choices import NearChoice
from .options import DEFAULT_DB, fail, pick_firmware, quiet_option, store_options
from .report_output import text_output


@click.command()
@click.argument("old")
@click.argument("new")
@store_options(DEFAULT_DB)
@click.option(
    "--format",
    "fmt",
    type=NearChoice(["text", "json", "html"]),
    default="text",
    show_default=True,
    help="text: tables; json: schema linkgraph-diff/1 (docs/diff.md, docs/diff.schema.json); html: one "
    "self-contained page with the same tables.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write here instead of stdout.")
@quiet_option
def diff(open_: Callable, where: str, old: str, new: str, fmt: str, output: str | None) -> None:
    """Compare firmware OLD with firmware NEW, both in one store.

    OLD and NEW are each a firmware's name, a unique prefix of its name, or a prefix of its id
    (which firmware each one chose is said on stderr, unless --quiet). Modules are matched by
    path, then by soname; every other comparison is made in NEW's paths.

    \b
    Tables:
      modules added, removed, changed (file hash, soname, licence, package, or a new path);
      dependency edges added, removed, changed (status, with the symbols that appeared or
        disappeared across the edge), e.g. declared-unused -> used, or a new hidden edge;
      unresolved references new and gone; duplicate providers new and gone;
      licence findings (a)-(d) new and gone (docs/licences.md).

    \b
    Examples:
      linkgraph diff router-1.0.4 router-1.0.5 --db fw.lbdb
      linkgraph diff 3f2a 9c1e --neo4j bolt://127.0.0.1:7687 --format json > diff.json
    """
    from ..loader.compare.diff import compare
    from ..loader.compare.render import write_html, write_text

    try:
        with open_(True) as store:
            result = compare(store, pick_firmware(store, old), pick_firmware(store, new))
        with text_output(output) as out:
            if fmt == "json":
                json.dump(result, out, indent=1, ensure_ascii=False)  # written as it is encoded
                out.write("\n")
            elif fmt == "html":
                write_html(result, out)
            else:
                write_text(result, out)
    except LinkgraphError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write {output or 'to stdout'}: {exc.strerror or exc}")
