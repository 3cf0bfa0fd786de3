"""``linkgraph push``: copy firmware graphs from an embedded database into a Neo4j server."""

from __future__ import annotations

import click

from ..loader.errors import LinkgraphError
from .options import DEFAULT_DB, fail, pick_firmware, quiet_option


@click.command()
@click.option(
    "--db", "db", default=DEFAULT_DB, show_default=True, metavar="PATH", help="The embedded database to copy from."
)
@click.option(
    "--neo4j",
    "neo4j",
    required=True,
    envvar="NEO4J_URI",
    metavar="URI",
    help="The Neo4j server to copy to (also NEO4J_URI; NEO4J_USER / NEO4J_PASSWORD).",
)
@click.option("--neo4j-database", metavar="NAME", envvar="NEO4J_DATABASE", help="Database on the server.")
@click.option(
    "--firmware", help="Copy only this firmware (name, unique name prefix or id prefix); default: all of them."
)
@quiet_option
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
            ids = [pick_firmware(source, firmware)] if firmware else [f["id"] for f in source.firmware_ids()]
            for fw in ids:
                copied = copy_firmware(source, target, fw)
                click.echo(
                    f"copied {copied['name']} ({fw[:12]}): {copied['modules']} modules, {copied['edges']} edges",
                    err=True,
                )
    except LinkgraphError as exc:
        fail(str(exc))
