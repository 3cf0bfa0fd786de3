"""What every ``linkgraph`` command shares: the exit codes, the one-line failure, and the store
options (--db / --neo4j / --neo4j-database) turned into one ``open_`` argument."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from .internal_error import keep_traces_in

EXIT_OK, EXIT_PROBLEMS, EXIT_FAILED, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report it: 128 + the signal's number
DEFAULT_DB = "linkgraph.lbdb"


def fail(message: str) -> NoReturn:
    """One line on stderr, exit code 2 (could not run)."""
    click.echo(f"linkgraph: {message}", err=True)
    sys.exit(EXIT_FAILED)


def store_options(default_db: str | None) -> Callable:
    """--db / --neo4j / --neo4j-database, turned into one ``open`` argument for the command."""

    def decorate(command: Callable) -> Callable:
        @click.option(
            "--neo4j-database",
            metavar="NAME",
            envvar="NEO4J_DATABASE",
            help="Database on the Neo4j server (default: the server's default; also NEO4J_DATABASE).",
        )
        @click.option(
            "--neo4j",
            "neo4j",
            metavar="URI",
            help="A Neo4j server instead of the embedded store, e.g. bolt://127.0.0.1:7687 "
            "(also NEO4J_URI; user and password from NEO4J_USER / NEO4J_PASSWORD).",
        )
        @click.option(
            "--db",
            "db",
            metavar="PATH",
            help="LadybugDB database file of the embedded store"
            + (f" [default: {default_db}]" if default_db else "")
            + ".",
        )
        @functools.wraps(command)
        def wrapper(db: str | None, neo4j: str | None, neo4j_database: str | None, **kwargs: Any) -> Any:
            from ..loader.store import open_store

            if not db and not neo4j:
                neo4j = os.environ.get("NEO4J_URI") or None
                db = None if neo4j else default_db
            where = neo4j or db or ""
            if db and not neo4j:
                keep_traces_in(Path(db).absolute().parent)

            def open_(read_only: bool) -> Any:
                if not db and not neo4j:
                    fail("say where the graph is: --db PATH (embedded) or --neo4j URI (server)")
                return open_store(db=db, neo4j=neo4j, read_only=read_only, neo4j_database=neo4j_database)

            return command(open_=open_, where=where, **kwargs)

        return wrapper

    return decorate


_QUIET = "linkgraph.quiet"
FIRMWARE_HELP = (
    "Which firmware, when the store holds several: its name, a unique prefix of its name, or a prefix of its id "
    "(the choice is said on stderr)."
)


def quiet_option(command: Callable) -> Callable:
    """--quiet / -q: the command does not say which firmware --firmware chose, nor how far it has got."""

    @click.option(
        "--quiet",
        "-q",
        is_flag=True,
        help="Say nothing on stderr but errors: not which firmware --firmware chose, nor progress.",
    )
    @functools.wraps(command)
    def wrapper(quiet: bool, **kwargs: Any) -> Any:
        click.get_current_context().meta[_QUIET] = quiet
        return command(**kwargs)

    return wrapper


def quiet_asked() -> bool:
    """Whether the command was given --quiet (``quiet_option``): it then says nothing on stderr but errors."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx and ctx.meta.get(_QUIET))


def pick_firmware(store: Any, wanted: str | None) -> str:
    """The id of the firmware ``wanted`` names (``GraphStore.choose_firmware``); which one it is
    goes to stderr when --firmware was given, unless --quiet."""
    row = store.choose_firmware(wanted)
    ctx = click.get_current_context(silent=True)
    if wanted is not None and not (ctx and ctx.meta.get(_QUIET)):
        from ..loader.store.printable import visible

        click.echo(
            f"linkgraph: --firmware {visible(wanted)}: {visible(row['name'] or '')} ({row['id'][:12]})", err=True
        )
    return row["id"]
