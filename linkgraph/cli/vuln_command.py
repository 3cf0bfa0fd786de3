"""``linkgraph vulnerable-use --rules FILE``: the query ``vulnerable-use`` for every rule of a file
(one per advisory), across the images of one store (docs/identify.md, "Vulnerable use")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ..loader.errors import LinkgraphError
from .console import print_rows
from .options import DEFAULT_DB, fail, store_options


@click.command("vulnerable-use")
@store_options(DEFAULT_DB)
@click.option(
    "--rules",
    "rules_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='A JSON file of rules: {"rules": [{"id", "component", "version-below", "symbols": [...]}]}.',
)
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON instead of a table.")
def vulnerable_use(open_: Callable, where: str, rules_file: Path, as_json: bool) -> None:
    """Which programs, in every image of the store, bind a rule's symbols to a module of the
    rule's component below the rule's version: one row per program, module and symbol, with the
    rule's id, the edge's status and the evidence for the version."""
    from ..loader.report.vulnerable_use import read_rules, rule_rows

    del where  # the store is named by the common options; every image in it is searched
    try:
        rules = read_rules(rules_file)
        with open_(True) as store:
            rows = rule_rows(store, rules)
    except LinkgraphError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
    else:
        print_rows(rows)
