"""The shared store: a Neo4j server over Bolt, holding many firmware graphs that lab users query
while scanners replace them.

A firmware's graph is written as a *generation* (``loader/store/neo4j_write.py``): its nodes
carry the generation key (24 hex digits of the firmware id, 8 of its own) in ``firmware``, and
batches of ``BATCH`` nodes or edges are written on ``WRITERS`` sessions at once, each batch a
transaction of its own, so the server never holds the whole graph in one transaction's state
(one transaction took 37 s and the server's memory for the 1,000-program host root; the batches
about 3 s, see docs/graph.md). Until it is complete no reader sees it: its ``Firmware`` node carries a
staging label (``cypher/neo4j_schema.py``), every per-firmware query looks nodes up by the *live*
generation, and the cross-image queries reach modules through ``Firmware`` nodes only. The
classification runs on it there. Then one short transaction (``stage-switch``) relabels the two
``Firmware`` nodes: the live graph's retired, the new one made live. Nothing else changes, so a
reader reads the generation it looked up whole, the old graph or the new one, never half of one;
a writer that fails or is killed before the switch leaves the old graph as it was. The retired
generation is deleted afterwards, in small transactions, once the transactions that may still
read it have ended (``neo4j_generations.wait_for_readers``).

Why not relabel every staged node in the switch (the other way to hide a staged graph): the switch
would then touch every node of both graphs and every index entry of their labels (0.3 to 0.5 s per
33,000 nodes, twice), a reader could see labels change between its look-up and its reading, and
nodes of two generations would share ids under one label anyway. Translating ``$firmware`` costs
one index lookup per query instead (``execute``, ``iterate``: the ``Firmware`` node maps id to
generation); scopes are looked up within their generation (``*.neo4j.cypher`` variants).

A writer that dies leaves its staged (or retired, not yet deleted) generation behind; it says it
is alive by a heartbeat, and the next writer deletes what no writer has claimed for
``neo4j_generations.STALE`` seconds.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any, LiteralString, cast

from ...cypher.neo4j_schema import neo4j_ddl
from ..errors import StoreError
from . import neo4j_write
from .base import GraphStore
from .graph_rows import GraphRows
from .neo4j_generations import run
from .queries import load_query

MIN_VERSION = (5, 0)
# the driver warns on stderr of every transaction it retries: deadlocks among the parallel batches
# are expected and retried, and a failure that stays is reported as one line anyway
logging.getLogger("neo4j").addHandler(logging.NullHandler())
RETRY_TIME = 15.0  # seconds the driver retries a transaction on transient errors (default 30)


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
                uri,
                auth=(user, password),
                connection_timeout=10,
                notifications_min_severity="OFF",
                max_transaction_retry_time=RETRY_TIME,
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
            self._execute(stmt, {})

    @staticmethod
    def _live(tx: Any, params: dict[str, Any] | None) -> dict[str, Any]:
        """The parameters with ``$firmware`` (a firmware id) turned into the key of its live
        generation, which its nodes carry; unchanged for a firmware the store does not hold. (So a
        statement given to ``execute`` or ``iterate`` matches ``firmware`` with ``$firmware``, never
        a ``Firmware`` node's ``id``: the named queries do just that.) It is looked up inside the
        transaction ``tx`` that then runs the statement: a transaction running when a generation is
        retired holds off its deletion (``neo4j_generations.wait_for_readers``), so the generation
        a statement reads is never deleted between the look-up and the reading."""
        params = dict(params or {})
        if isinstance(params.get("firmware"), str):
            (lookup,) = load_query("generation", "neo4j").statements
            found = tx.run(cast(LiteralString, lookup), {"firmware": params["firmware"]}).single()
            if found is not None:
                params["firmware"] = found["generation"]
        return params

    def _execute_named(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            return run(self._driver, self.database, name, params)
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        try:
            with self._driver.session(database=self.database) as session, session.begin_transaction() as tx:
                # linkgraph's own Cypher files, their values passed as parameters
                result = tx.run(cast(LiteralString, statement), self._live(tx, params))
                keys = result.keys()
                rows = [dict(zip(keys, rec.values(), strict=True)) for rec in result]
                tx.commit()
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc
        return rows

    def _execute(self, statement: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            # the statements are linkgraph's own Cypher files, their values passed as parameters
            query = cast(LiteralString, statement)
            records, _summary, keys = self._driver.execute_query(query, params, database_=self.database)
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc
        return [dict(zip(keys, rec.values(), strict=True)) for rec in records]

    def iterate(self, statement: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        try:
            with self._driver.session(database=self.database) as session, session.begin_transaction() as tx:
                # linkgraph's own Cypher files, their values passed as parameters
                for record in tx.run(cast(LiteralString, statement), self._live(tx, params)):
                    yield tuple(record.values())
                tx.commit()
        except Exception as exc:
            raise StoreError(_explain(exc, self.uri)) from exc

    def replace_firmware(self, rows: GraphRows) -> None:
        rows.complete()  # every table first: the batches of one table go out together
        try:
            neo4j_write.replace(self._driver, self.database, rows)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"writing the graph failed, the old graph stays: {_explain(exc, self.uri)}") from exc

    def delete_firmware(self, firmware: str) -> None:
        """Remove the live graph of the firmware with id ``firmware`` (``delete-firmware``)."""
        self._execute_named("delete-firmware", {"firmware": firmware})

    def close(self) -> None:
        self._driver.close()
