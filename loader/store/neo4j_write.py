"""A firmware's graph written into Neo4j as a new generation: node and edge batches on several
sessions at once (each batch its own small transaction), the classification, then one short
transaction that switches it in (see ``neo4j_store`` for why).
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, LiteralString, cast

from ...cypher.neo4j_schema import ABSENT, CODED, stage_edges, stage_nodes
from ...cypher.schema import TABLES
from ..errors import StoreError
from . import neo4j_generations as generations
from .columns import column_values
from .finding_paths import batches, finding_rows, read_graph
from .graph_rows import NODE_TABLES, GraphRows
from .queries import load_query

# sessions writing batches at once: the client packs one while the server writes another (with 3,
# on two cores, the server spent about a tenth more CPU per write and the write took no less time)
WRITERS = 2
BATCH = 5000  # nodes or edges per transaction
FIRST = ("Firmware", "Module", "Missing")  # the node tables written before any edge
SWITCH_TRIES = 3  # a concurrent writer of the same firmware may switch first (its Firmware id is unique)


def replace(driver: Any, database: str | None, rows: GraphRows) -> None:
    """Write ``rows`` as a new generation and switch it in; then delete the generation it replaced.
    First the generations of writers that died are deleted."""
    generations.clean_stale(driver, database)
    generation = rows.firmware[:24] + secrets.token_hex(4)  # lower-case hex: Neo4j stores it inline
    with generations.staged(driver, database, rows.firmware, generation):
        _stage(driver, database, rows, generation)
        with driver.session(database=database) as session:
            for statement in load_query("classify", "neo4j").statements:
                session.execute_write(_consume, statement, {"firmware": generation})
        _write_findings(driver, database, generation)
        retired = _switch(driver, database, rows.firmware, generation)
    if retired:
        with generations.Heartbeat(driver, database, retired):
            generations.wait_for_readers(driver, database)
            for old in retired:
                generations.delete_generation(driver, database, old)


def _write_findings(driver: Any, database: str | None, generation: str) -> None:
    """Licence finding (a) of the staged generation, computed from its classified edges
    (``finding_paths``), written in batches."""

    def stream(name: str) -> list[tuple[Any, ...]]:
        statement = load_query(name, "neo4j").statements[0]
        with driver.session(database=database) as session:
            return session.execute_read(_rows_back, statement, {"firmware": generation})

    values = _values(TABLES["Finding"].column_names)
    statement = stage_nodes("Finding")
    jobs = (
        Job(
            statement,
            {"rows": [values(r) for r in batch], "generation": generation},
            [("Finding", r["id"]) for r in batch],
        )
        for batch in batches(finding_rows(generation, read_graph(stream)), BATCH)
    )
    for job, result in run_batches(driver, database, jobs):
        if len(result) != len(job.nodes or ()):
            raise StoreError(f"writing the findings failed: {len(result)} of {len(job.nodes or ())} were written")


def _rows_back(tx: Any, statement: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [tuple(record.values()) for record in tx.run(cast(LiteralString, statement), params)]


def _consume(tx: Any, statement: str, params: dict[str, Any]) -> int:
    # linkgraph's own Cypher (cypher/), values passed as parameters
    summary = tx.run(cast(LiteralString, statement), params).consume()
    return summary.counters.relationships_created


def _nodes_back(tx: Any, statement: str, params: dict[str, Any]) -> list[str]:
    return [record[0] for record in tx.run(cast(LiteralString, statement), params)]


@dataclass
class Job:
    """One batch: its statement and parameters; a node batch also names its nodes ((table, id)
    of each row), whose element ids it returns, and an edge batch counts the edges it makes."""

    statement: str
    params: dict[str, Any]
    nodes: list[tuple[str, str]] | None = None


def _batch(driver: Any, database: str | None, job: Job) -> Any:
    with driver.session(database=database) as session:
        return session.execute_write(_consume if job.nodes is None else _nodes_back, job.statement, job.params)


def run_batches(driver: Any, database: str | None, jobs: Iterable[Job]) -> Iterator[tuple[Job, Any]]:
    """Run the jobs on ``WRITERS`` sessions at once, each in its own transaction (retried on
    transient errors, deadlocks among them); each job with its result, in job order. At most
    twice as many jobs as writers wait at any time, so the batches are built as they are sent."""
    pending: deque[tuple[Job, Future[Any]]] = deque()
    with ThreadPoolExecutor(WRITERS, thread_name_prefix="neo4j-writer") as pool:
        try:
            for job in jobs:
                if len(pending) >= 2 * WRITERS:
                    done, future = pending.popleft()
                    yield done, future.result()
                pending.append((job, pool.submit(_batch, driver, database, job)))
            while pending:
                done, future = pending.popleft()
                yield done, future.result()
        finally:
            for _job, future in pending:
                future.cancel()


def _stage(driver: Any, database: str | None, rows: GraphRows, generation: str) -> None:
    """Every node and edge, in three stages so that nodes and edges are written at the same time:
    the Firmware, Module and Missing nodes; the other nodes beside the edges between those; the
    edges to the other nodes (symbols). An edge finds its end nodes by the element ids their
    batches returned. (The classification, run beside the last stage, met its edge batches in
    deadlocks on the modules' relationship groups: it runs after them.)"""
    node_of: dict[tuple[str, str], str] = {}
    written: set[str] = set()
    started: set[tuple[str, str, str]] = set()
    edges = 0
    for tables in (FIRST, tuple(t for t in NODE_TABLES if t not in FIRST), ()):
        ready = [key for key in rows.rels if key[1] in written and key[2] in written and key not in started]
        started.update(ready)
        streams = [_node_jobs(rows, table, generation) for table in tables] + [_edge_jobs(rows, ready, node_of)]
        for job, result in run_batches(driver, database, _interleave(streams)):
            if job.nodes is None:
                edges += result
            elif len(result) == len(job.nodes):
                node_of.update(zip(job.nodes, result, strict=True))
            else:
                raise StoreError(f"writing the graph failed: {len(result)} of {len(job.nodes)} nodes were written")
        written.update(tables)
    wanted = sum(len(data) for data in rows.rels.values())
    if edges != wanted:
        raise StoreError(f"writing the graph failed: {edges} of {wanted} edges were written")


def _interleave(streams: list[Iterator[Job]]) -> Iterator[Job]:
    """One job of each stream in turn, until all are spent."""
    live = list(streams)
    while live:
        for stream in list(live):
            job = next(stream, None)
            if job is None:
                live.remove(stream)
            else:
                yield job


def _node_jobs(rows: GraphRows, table: str, generation: str) -> Iterator[Job]:
    values = _values(TABLES[table].column_names)
    data = rows.nodes.get(table, [])
    for start in range(0, len(data), BATCH):
        chunk = data[start : start + BATCH]
        batch = [values(row) for row in chunk]
        names = [(table, row["id"]) for row in chunk]
        yield Job(stage_nodes(table), {"rows": batch, "generation": generation}, names)


def _edge_jobs(
    rows: GraphRows, tables: list[tuple[str, str, str]], node_of: dict[tuple[str, str], str]
) -> Iterator[Job]:
    """Per edge table, batches of the edges between one pair of nodes after another, as
    ``stage_edges`` takes them. The batches are cut from the table's columns by row position:
    RESOLVES_TO comes as ``Columns``, and a dict per edge cost the client half its CPU."""
    for table, src, dst in tables:
        names = TABLES[table].column_names
        data = rows.rels[(table, src, dst)]
        columns = {name: column_values(data, name) for name in ("from", "to", *names)}
        pairs: dict[tuple[str, str], list[int]] = {}
        for i, ends in enumerate(zip(columns["from"], columns["to"], strict=True)):
            pairs.setdefault(ends, []).append(i)
        batch: list[tuple[str, str, list[int]]] = []
        size = 0
        for (a, b), at in pairs.items():
            batch.append((node_of[(src, a)], node_of[(dst, b)], at))
            size += len(at)
            if size >= BATCH:
                yield _edge_job(table, [columns[c] for c in names], batch)
                batch, size = [], 0
        if batch:
            yield _edge_job(table, [columns[c] for c in names], batch)


def _values(columns: Sequence[str]) -> Callable[[Mapping[str, Any]], list[Any]]:
    """A row's values in column order, as a list (``itemgetter`` does it in C)."""
    if len(columns) > 1:
        get = itemgetter(*columns)
        return lambda row: list(get(row))
    return lambda row: [row[c] for c in columns]


def _edge_job(table: str, columns: list[Sequence[Any]], batch: list[tuple[str, str, list[int]]]) -> Job:
    """[from, to, count, column lists...] per pair (``columns``: the table's, in its column order;
    each pair with the positions of its edges); a CODED column as positions in ``coded``, an ABSENT
    column's default value as null (Neo4j then sets no property)."""
    coded: dict[Any, int] = {}
    absent = ABSENT.get(table, {})
    kinds = [
        ("coded", None) if name in CODED else ("absent", absent[name]) if name in absent else ("plain", None)
        for name in TABLES[table].column_names
    ]  # fmt: skip
    out = []
    for a, b, at in batch:
        row: list[Any] = [a, b, len(at)]
        for column, (kind, default) in zip(columns, kinds, strict=True):
            values = [column[i] for i in at]
            if kind == "coded":
                values = [coded.setdefault(v, len(coded)) for v in values]
            elif kind == "absent":
                values = [None if v == default else v for v in values]
            row.append(values)
        out.append(row)
    return Job(stage_edges(table), {"rows": out, "coded": list(coded)})


def _switch(driver: Any, database: str | None, firmware: str, generation: str) -> list[str]:
    """One transaction: the live generation retired, the staged one made live; the retired
    generations' keys. A staged graph a cleaner took for a dead writer's is not switched in."""
    statements = load_query("stage-switch", "neo4j").statements
    params = {"firmware": firmware, "generation": generation}

    def work(tx: Any) -> list[str]:
        retired: list[str] = []
        switched = 0
        for statement in statements:
            wanted = {k: v for k, v in params.items() if f"${k}" in statement}
            for record in tx.run(cast(LiteralString, statement), wanted):
                row = record.data()
                retired += [row["retired"]] if "retired" in row else []
                switched = row.get("switched", switched)
        if switched != 1:
            raise StoreError("writing the graph failed: its staged copy was taken for a dead writer's and removed")
        return retired

    from neo4j.exceptions import ConstraintError

    with driver.session(database=database) as session:
        for attempt in range(SWITCH_TRIES):
            try:
                return session.execute_write(work)
            except ConstraintError:  # another writer of the same firmware switched in at the same time
                if attempt == SWITCH_TRIES - 1:
                    raise
    return []
