"""The graph-store interface every engine implements, and the factory that picks one."""

from __future__ import annotations

import abc
from collections.abc import Iterator
from typing import Any

from ..errors import QueryError, StoreError
from .graph_rows import GraphRows
from .queries import NamedQuery, load_query


class GraphStore(abc.ABC):
    """Where a scan's graph lives. Queries are named files of ``linkgraph.cypher``."""

    engine: str = ""

    @abc.abstractmethod
    def replace_firmware(self, rows: GraphRows) -> None:
        """Write one firmware's graph, replacing any earlier graph with the same id."""

    @abc.abstractmethod
    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one Cypher statement with parameters; rows as dicts keyed by column name."""

    @abc.abstractmethod
    def iterate(self, statement: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """Run one Cypher statement; its rows one at a time as tuples, in the statement's column
        order, without holding them all (read the whole iterator before the next statement)."""

    def close(self) -> None:  # noqa: B027 - optional
        """Release the connection."""

    def query(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a named query (all its statements); the rows of the last one."""
        return self.run_query(load_query(name, self.engine), params)

    def run_query(self, query: NamedQuery, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        params = dict(params or {})
        missing = [p for p in query.parameters if p not in params]
        if missing:
            raise QueryError(f"query {query.name} needs --param {'/'.join(missing)}=VALUE")
        rows: list[dict[str, Any]] = []
        for stmt in query.statements:
            wanted = {k: v for k, v in params.items() if f"${k}" in stmt}
            rows = self.execute(stmt, wanted)
        return rows

    def stream(self, name: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """A one-statement named query's rows as tuples, one at a time (``iterate``)."""
        query = load_query(name, self.engine)
        if len(query.statements) != 1:
            raise QueryError(f"query {name} has {len(query.statements)} statements: it cannot be streamed")
        params = dict(params or {})
        missing = [p for p in query.parameters if p not in params]
        if missing:
            raise QueryError(f"query {query.name} needs --param {'/'.join(missing)}=VALUE")
        stmt = query.statements[0]
        return self.iterate(stmt, {k: v for k, v in params.items() if f"${k}" in stmt})

    def firmware_ids(self) -> list[dict[str, Any]]:
        """The firmware in the store. A Neo4j reader may meet the node of a firmware whose
        replacement is being committed right then, its properties already gone: it is left out."""
        return [f for f in self.query("firmware") if f["id"] is not None]

    def resolve_firmware(self, wanted: str | None) -> str:
        """The id of the firmware meant by ``wanted``; the only one if None.

        ``wanted`` is, first match wins: an id, a name, or a prefix of exactly one firmware's
        name or id. Several firmware sharing that name, or a prefix of several, is an error
        that lists them (name and id)."""
        return self.choose_firmware(wanted)["id"]

    def choose_firmware(self, wanted: str | None) -> dict[str, Any]:
        """The firmware row (``id``, ``name``, ...) that ``resolve_firmware`` picks."""
        known = self.firmware_ids()
        if not known:
            raise StoreError("the database holds no firmware yet: run `linkgraph scan` first")
        if wanted is None:
            if len(known) > 1:
                raise StoreError(
                    f"the database holds several firmware images ({_listed(known)}): choose one with --firmware"
                )
            return known[0]
        for matches in (
            lambda f: f["id"] == wanted,
            lambda f: f["name"] == wanted,
            lambda f: f["id"].startswith(wanted) or (f["name"] or "").startswith(wanted),
        ):
            hits = [f for f in known if matches(f)]
            if len(hits) == 1:
                return hits[0]
            if hits:
                raise StoreError(f"--firmware {wanted!r} is ambiguous: it matches {_listed(hits)}")
        raise StoreError(f"--firmware {wanted!r} matches no firmware in the database (it holds {_listed(known)})")

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _listed(rows: list[dict[str, Any]], most: int = 20) -> str:
    """Firmware rows as ``name (id prefix)``, comma-separated, at most ``most`` of them."""
    shown = ", ".join(f"{f['name']} ({f['id'][:12]})" for f in rows[:most])
    return shown + (f" and {len(rows) - most} more" if len(rows) > most else "")


def open_store(
    db: str | None = None, neo4j: str | None = None, read_only: bool = False, neo4j_database: str | None = None
) -> GraphStore:
    """The store for ``--db PATH`` (LadybugDB, embedded) or ``--neo4j URI`` (a Neo4j server)."""
    if db and neo4j:
        raise StoreError("give either --db PATH or --neo4j URI, not both")
    if neo4j:
        from .neo4j_store import Neo4jStore

        return Neo4jStore(neo4j, database=neo4j_database, read_only=read_only)
    if not db:
        raise StoreError("say where the graph is: --db PATH (embedded) or --neo4j URI (server)")
    from .ladybug_store import LadybugStore

    return LadybugStore(db, read_only=read_only)
