"""The commands that read a stored graph: ``report`` and ``query`` (``push``: push_command)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import click

from ..loader.errors import LinkgraphError
from .console import print_rows
from .near_choices import NearChoice, list_paths_command, require_module
from .options import DEFAULT_DB, FIRMWARE_HELP, fail, pick_firmware, quiet_asked, quiet_option, store_options
from .progress_lines import ProgressLines
from .report_output import SBOM_WRITERS, text_output
from .report_pdf import write_pdf


def _sections(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[str, ...]:
    from ..loader.near_names import close_names, did_you_mean
    from ..loader.report.section_names import SECTIONS

    if value is None:
        return SECTIONS
    wanted = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [part for part in wanted if part not in SECTIONS]
    if unknown or not wanted:
        near = did_you_mean(close_names(unknown[0], SECTIONS)) if unknown else ""
        raise click.BadParameter(f"{', '.join(unknown) or 'none given'}: choose from {','.join(SECTIONS)}{near}")
    return wanted


@click.command()
@store_options(DEFAULT_DB)
@click.option(
    "--format",
    "fmt",
    type=NearChoice(["json", "jsonl", "html", "pdf", "cyclonedx-json", "spdx-json", "spdx3-json"]),
    default="json",
    show_default=True,
    help="json: the whole analysis (schema linkgraph-report/1, docs/report.md); jsonl: the same as one "
    "record per line; html or pdf: the licence compliance report for people (docs/licences.md); "
    "cyclonedx-json: a CycloneDX 1.6 SBOM with the link graph as dependencies; spdx-json, spdx3-json: an "
    "SBOM in SPDX 2.3 JSON or SPDX 3.0.1 JSON-LD (docs/sbom.md).",
)
@click.option(
    "--sections",
    callback=_sections,
    metavar="LIST",
    help="json and jsonl: only these parts, comma-separated, of modules, dependencies, link_maps, "
    "bindings, unresolved, duplicates, problems (default: all).",
)
@click.option("--firmware", help=FIRMWARE_HELP)
@quiet_option
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="Write here instead of stdout (required for pdf).",
)
def report(
    open_: Callable, where: str, fmt: str, sections: tuple[str, ...], firmware: str | None, output: str | None
) -> None:
    """Print the analysis of one firmware: the whole of it as JSON, or the licence compliance report.

    \b
    Formats:
      json  (default) modules, dependency edges with status and symbols, link maps, every
            binding, unresolved references, duplicate providers and problems (docs/report.md,
            docs/report.schema.json). The same scan gives the same report from either store.
            Written as it is read from the store: memory does not grow with the firmware.
      jsonl the same entries, one JSON record per line, each with its "type" (module,
            dependency, link_map, binding, unresolved, duplicate, problem) after a first
            {"type": "report"} line: for tools that stream.
      html  the licence compliance report as one self-contained page (no script, diagrams
            embedded): a title block, how to read it, the summary, then every licence finding
            with its diagram, the symbols as evidence and the source of each licence fact.
      pdf   the same report laid out for print (A4) by WeasyPrint; needs -o FILE.
      cyclonedx-json
            a CycloneDX 1.6 SBOM: a component per module (hash, licence, purl), used and
            hidden edges as dependsOn, the symbols as evidence occurrences, the other
            statuses as properties (docs/sbom.md). Streamed like json.
      spdx-json   an SBOM, SPDX 2.3 JSON: a package per module (SHA256, licence, the
            firmware's own package containing it), each dependency edge a relationship
            (DYNAMIC_LINK used and hidden, DEPENDS_ON declared-unused and missing) whose
            comment gives its status and symbols; dlopen edges and kernel links too.
      spdx3-json  the same facts as SPDX 3.0.1 JSON-LD: a file per module, hasDynamicLink /
            dependsOn relationships scoped to runtime, with their completeness (docs/sbom.md).

    \b
    Examples:
      linkgraph report --db fw.lbdb > report.json
      linkgraph report --db fw.lbdb --format jsonl --sections modules,dependencies
      linkgraph report --db fw.lbdb --format html -o compliance.html
      linkgraph report --db fw.lbdb --format pdf -o compliance.pdf
      linkgraph report --db fw.lbdb --format cyclonedx-json -o sbom.cdx.json
      linkgraph report --db fw.lbdb --format spdx-json -o fw.spdx.json
    """
    if fmt == "pdf" and not output:
        fail("--format pdf needs -o FILE (a PDF is not written to stdout)")
    with ProgressLines("report", not quiet_asked()) as progress:
        html = _report(open_, fmt, sections, firmware, output, progress)
        if html is None:
            return
        assert output  # --format pdf without -o was refused above
        write_pdf(html, output, progress)
    if not quiet_asked():
        click.echo(f"report: wrote {output}", err=True)


def _report(
    open_: Callable,
    fmt: str,
    sections: tuple[str, ...],
    firmware: str | None,
    output: str | None,
    progress: ProgressLines,
) -> str | None:
    """Every format but the PDF written; for the PDF, the HTML it lays out (read while the store is open)."""
    try:
        with open_(True) as store:
            firmware_id = pick_firmware(store, firmware)
            if fmt in ("json", "jsonl"):
                from ..loader.report.json_report import write_json, write_jsonl

                writer = write_json if fmt == "json" else write_jsonl
                with text_output(output) as out:
                    writer(store, firmware_id, out, sections)
                return
            if fmt in SBOM_WRITERS:
                with text_output(output) as out:
                    SBOM_WRITERS[fmt]()(store, firmware_id, out)
                return
            if fmt == "html":
                from ..viewer.compliance_render import html_report

                with text_output(output) as out:
                    out.write(html_report(store, firmware_id, progress=progress))
                progress.say(f"wrote {output or 'the HTML report to stdout'}")
                return None
            from ..viewer.compliance_render import print_html

            return print_html(store, firmware_id, progress=progress)
    except LinkgraphError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write {output or 'to stdout'}: {exc.strerror or exc}")


FINDING_QUERIES = frozenset(
    {
        "licence-gpl-used-by",
        "licence-gpl-uses",
        "licence-declared-only",
        "licence-lgpl-used",
        "kernel-gpl-only-used",
        "licence-gpl-contained",
        "licence-lgpl-static",
    }
)
# the licence findings and summary: their output says how many modules have no licence fact, and which
COVERED_QUERIES = FINDING_QUERIES | {"licence-summary", "licences"}

# the parameters of a page of rows (SKIP $offset LIMIT $limit): whole numbers, never text
PAGING_PARAMS = ("offset", "limit")


# the parameters that name a module by its path; "to" and "library" do only when they start with a
# "/" (else a soname, a file name or a hash)
PATH_PARAMS = ("path", "program", "from", "paths")
MAYBE_PATH_PARAMS = ("to", "library")


def _module_paths(values: dict) -> Iterator[tuple[str, str]]:
    for key, value in values.items():
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                continue
            if key in PATH_PARAMS or (key in MAYBE_PATH_PARAMS and item.startswith("/")):
                yield key, item


@click.command()
@click.argument("name", required=False)
@store_options(DEFAULT_DB)
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A query parameter (repeatable), e.g. --param path=/bin/busybox; "
    "a list as JSON, e.g. --param 'paths=[\"/bin/sh\"]'; the paging parameters offset and limit "
    "are whole numbers.",
)
@click.option("--firmware", help=FIRMWARE_HELP)
@quiet_option
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
    from ..loader.report.licence_coverage import licence_coverage
    from ..loader.report.vulnerable_use import query_values
    from ..loader.store.queries import list_queries, load_query
    from .coverage_lines import coverage_lines

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
        if value.startswith("["):
            values[key] = json.loads(value)
        elif key in PAGING_PARAMS:
            if not value.isdigit():
                fail(f"--param {key}={value!r}: a whole number")
            values[key] = int(value)
        else:
            values[key] = value
    try:
        values = query_values(values)  # version-below: compared by its key
        named = load_query(name)
        if named.internal:
            fail(f"{name} is an internal query of the pipeline; `linkgraph query --list` shows the others")
        with open_(True) as store:
            if "firmware" in named.parameters and "firmware" not in values:
                values["firmware"] = pick_firmware(store, firmware)
            rows = store.run_query(load_query(name, store.engine), values)
            if not rows and "firmware" in values:  # no rows: was it because a path names nothing?
                listing = list_paths_command(where, firmware)
                for key, path in _module_paths(values):
                    require_module(store, values["firmware"], path, listing, f"--param {key}={path}: ")
            coverage = licence_coverage(store, values["firmware"]) if name in COVERED_QUERIES else None
    except LinkgraphError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
    elif rows or coverage is None:
        print_rows(rows)
    if coverage is not None:  # with --json on stderr: stdout stays the rows
        lines = coverage_lines(coverage)
        if not rows and name in FINDING_QUERIES:  # "No finding" only with the coverage
            kernel = name == "kernel-gpl-only-used"
            lines[0] = coverage["no_finding_kernel" if kernel else "no_finding"] + "."
            lines[1:1] = [coverage["statement"] + "."] if kernel else []
        click.echo("\n".join(lines), err=as_json)
