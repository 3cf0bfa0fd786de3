"""The commands that read a stored graph: ``report``, ``query`` and ``push``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ..loader.errors import LinkgraphError
from .console import print_rows
from .options import fail, store_options


@click.command()
@store_options(None)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "html", "pdf"]),
    default="json",
    show_default=True,
    help="json: the whole analysis (schema linkgraph-report/1, docs/report.md); html or pdf: the "
    "licence compliance report for people (docs/licences.md).",
)
@click.option("--firmware", help="Which firmware (id prefix or name), when the store holds several.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="Write here instead of stdout (required for pdf).",
)
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
    body: str | bytes
    try:
        with open_(True) as store:
            firmware_id = store.resolve_firmware(firmware)
            if fmt == "json":
                from ..loader.report.json_report import build_report

                body = json.dumps(build_report(store, firmware_id), indent=1, ensure_ascii=False) + "\n"
            elif fmt == "html":
                from ..viewer.compliance_render import html_report

                body = html_report(store, firmware_id)
            else:
                from ..viewer.compliance_render import pdf_report

                body = pdf_report(store, firmware_id)
    except LinkgraphError as exc:
        fail(str(exc))
    try:
        if isinstance(body, bytes):
            assert output  # --format pdf without -o was refused above
            Path(output).write_bytes(body)
        elif output:
            with open(output, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(body)
        else:
            click.echo(body, nl=False)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")


@click.command()
@click.argument("name", required=False)
@store_options(None)
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A query parameter (repeatable), e.g. --param path=/bin/busybox; "
    "a list as JSON, e.g. --param 'paths=[\"/bin/sh\"]'.",
)
@click.option("--firmware", help="Which firmware (id prefix or name), when the store holds several.")
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON instead of a table.")
@click.option("--list", "list_them", is_flag=True, help="List the named queries with their descriptions.")
def query(
    name: str | None,
    open_: Callable,
    where: str,
    params: tuple[str, ...],
    firmware: str | None,
    as_json: bool,
    list_them: bool,
) -> None:
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


@click.command()
@click.option("--db", "db", required=True, metavar="PATH", help="The embedded database to copy from.")
@click.option(
    "--neo4j",
    "neo4j",
    required=True,
    envvar="NEO4J_URI",
    metavar="URI",
    help="The Neo4j server to copy to (also NEO4J_URI; NEO4J_USER / NEO4J_PASSWORD).",
)
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
        with (
            open_store(db=db, read_only=True) as source,
            open_store(neo4j=neo4j, neo4j_database=neo4j_database) as target,
        ):
            ids = [source.resolve_firmware(firmware)] if firmware else [f["id"] for f in source.firmware_ids()]
            for fw in ids:
                copied = copy_firmware(source, target, fw)
                click.echo(
                    f"copied {copied['name']} ({fw[:12]}): {copied['modules']} modules, {copied['edges']} edges",
                    err=True,
                )
    except LinkgraphError as exc:
        fail(str(exc))
