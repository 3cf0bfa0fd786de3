"""The shared store: a Neo4j server over Bolt, written with ``UNWIND $rows`` batches.

A firmware's graph is replaced inside one write transaction (old subgraph deleted, new one
written, classification run), so a reader sees either the old graph or the new one, and a
failure part-way (server gone, out of memory) leaves the old one in place.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, LiteralString, cast

from ...cypher.schema import neo4j_create_edges, neo4j_create_nodes, neo4j_ddl
from ..errors import StoreError
from .base import GraphStore
from .queries import load_query
from .rows import NODE_TABLES, GraphRows

BATCH = 5000
MIN_VERSION = (5, 0)


def _explain(exc: Exception, uri: str) -> str:
    """One line that says what went wrong and what to do."""
    from neo4j import exceptions as ne

    if isinstance(exc, ne.AuthError):
        return f"{uri}: the server refused the user name or password (set NEO4J_USER / NEO4J_PASSWORD)"
    if isinstance(exc, ne.ServiceUnavailable | OSError):
        return f"{uri}: no Neo4j server answers there (is it running? `docker compose up -d --wait` starts one)"
    if isinstance(exc, ne.ConfigurationError):
        return f"{uri}: {exc} (use a bolt:// or neo4j:// URI)"
    return f"{uri}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def check_server_version(uri: str, agent: str) -> None:
    """Refuse servers older than Neo4j 5 (``agent`` is what the server calls itself, ``Neo4j/5.26.0``)."""
    try:
        version = tuple(int(x) for x in agent.split("/")[1].split(".")[:2])
    except (IndexError, ValueError):
        version = (0, 0)
    if version < MIN_VERSION:
        raise StoreError(
            f"{uri}: {agent or 'the server'} is not supported: linkgraph needs Neo4j 5 or newer "
            "(docker-compose.yml starts Neo4j 5.26)"
        )


class Neo4jStore(GraphStore):
    engine = "neo4j"

    def __init__(
        self,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        read_only: bool = False,
    ) -> None:
        from neo4j import GraphDatabase

        self.uri = uri
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        user = user or os.environ.get("NEO4J_USER", "neo4j")
        password = password if password is not None else os.environ.get("NEO4J_PASSWORD", "")
        try:
            self._driver = GraphDatabase.driver(
                uri, auth=(user, password), connection_timeout=10, notifications_min_severity="OFF"
            )
            self._driver.verify_connectivity()
            self._check_version()
        except StoreError:
            raise
        except Exception as exc:  # the driver's exceptions are many; each becomes one line
            raise StoreError(_explain(exc, uri)) from exc
        if not read_only:
            self._create_schema()

    def _check_version(self) -> None:
        check_server_version(self.uri, self._driver.get_server_info().agent or "")

    def _create_schema(self) -> None:
        for stmt in neo4j_ddl():
            self.execute(stmt)

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        try:
            # the statements are linkgraph's own Cypher files, their values passed as parameters
            query = cast(LiteralString, statement)
            records, _summary, keys = self._driver.execute_query(query, params or {}, database_=self.database)
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc
        return [dict(zip(keys, rec.values(), strict=True)) for rec in records]

    def iterate(self, statement: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        try:
            with self._driver.session(database=self.database) as session:
                # linkgraph's own Cypher files, their values passed as parameters
                for record in session.run(cast(LiteralString, statement), params or {}):
                    yield tuple(record.values())
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc

    def replace_firmware(self, rows: GraphRows) -> None:
        try:
            with self._driver.session(database=self.database) as session:
                session.execute_write(self._write, rows)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"writing the graph failed, nothing was changed: {_explain(exc, self.uri)}") from exc

    @staticmethod
    def _run_all(tx: Any, name: str, params: dict[str, Any]) -> None:
        for stmt in load_query(name, "neo4j").statements:
            tx.run(stmt, params).consume()

    def _write(self, tx: Any, rows: GraphRows) -> None:
        fw = {"firmware": rows.firmware}
        self._run_all(tx, "delete-firmware", fw)
        for label in NODE_TABLES:
            data = rows.nodes.get(label, [])
            for i in range(0, len(data), BATCH):
                tx.run(neo4j_create_nodes(label), rows=data[i : i + BATCH]).consume()
        for (rel, src, dst), data in rows.rels.items():
            statement = neo4j_create_edges(rel, src, dst)
            pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for r in data:
                pairs.setdefault((r["from"], r["to"]), []).append(
                    {k: v for k, v in r.items() if k != "from" and k != "to"}
                )
            grouped = [{"from": f, "to": t, "edges": edges} for (f, t), edges in pairs.items()]
            batch, size = [], 0
            for row in grouped:
                batch.append(row)
                size += len(row["edges"])
                if size >= BATCH:
                    tx.run(statement, rows=batch).consume()
                    batch, size = [], 0
            if batch:
                tx.run(statement, rows=batch).consume()
        self._run_all(tx, "classify", fw)

    def close(self) -> None:
        self._driver.close()
