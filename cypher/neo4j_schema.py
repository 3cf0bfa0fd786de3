"""Neo4j's side of the schema (``schema``'s one declaration is the source): its constraints and
indexes, and the statements that write a firmware's graph as a *generation*.

Why generations: a firmware's graph is written in many small transactions, by several sessions at
once, beside the graph readers use, and switched in by one short transaction
(``loader/store/neo4j_store.py`` tells the whole story). So the nodes of one write carry its
generation key in ``firmware`` (hex: 24 digits of the firmware id, 8 of its own), not the id; the
``Firmware`` node of the live graph maps the id to it (``generation``), and the ``Firmware`` node of
a generation that is not live carries a label of its own (``STAGED``: being written; ``RETIRED``:
replaced, being deleted), which keeps it, and through it every module of the generation, out of the
cross-image queries. Every other node is found by its generation key, so the switch relabels the
``Firmware`` nodes only. Two generations of one firmware hold the same node ids, so ``id`` is unique
for ``Firmware`` nodes only, and a scope is looked up within its generation (the ``.neo4j.cypher``
variants of the queries that join bindings to their scopes). The edges of a write find their end
nodes by the element ids the node batches returned, not through an index.
"""

from __future__ import annotations

from .schema import NODES, TABLES

# the label of a generation's Firmware node while it is written, not yet switched in
STAGED = {"Firmware": "StagedFirmware"}
# ... and once switched out, waiting to be deleted
RETIRED = {"Firmware": "RetiredFirmware"}
# node tables whose id is unique among live nodes (queries look them up by it)
UNIQUE_IDS = ("Firmware",)
# properties only the Neo4j store gives a node of a table (bookkeeping of the generations)
BOOKKEEPING = {"Firmware": ("generation",)}
# edge properties the cross-image queries look edges up by (symbol-users: RESOLVES_TO by symbol)
EDGE_INDEXED = {"RESOLVES_TO": ("symbol",)}
# edge columns Neo4j stores only where they differ from the value given: a RESOLVES_TO edge is a
# copy relocation one time in thirty, and a property fewer per edge is often a property record fewer
# (about a tenth of the server's CPU per write on the 1k host root). Every query reads such a
# column as ``coalesce(r.copy, false)`` (tests/test_schema.py checks the files), on both stores.
ABSENT: dict[str, dict[str, object]] = {"RESOLVES_TO": {"copy": False, "interposed": False, "upcall": False}}
# edge columns sent once per batch and referenced by position: a scope id is long, and the same
# few hundred recur in every batch
CODED = frozenset({"scope"})


def neo4j_ddl() -> list[str]:
    """The constraints and indexes, made if missing; constraints of an older linkgraph (a unique
    id on every node table) dropped, since generations repeat the ids."""
    out = [
        f"DROP CONSTRAINT {t.name.lower()}_id IF EXISTS" for t in NODES if t.name not in UNIQUE_IDS
    ]  # fmt: skip
    out += [
        f"CREATE CONSTRAINT {name.lower()}_id IF NOT EXISTS FOR (n:{name}) REQUIRE n.id IS UNIQUE"
        for name in UNIQUE_IDS
    ]
    out += [
        f"CREATE INDEX {t.name.lower()}_{column} IF NOT EXISTS FOR (n:{t.name}) ON (n.{column})"
        for t in NODES
        for column in t.indexed
    ]
    out += [
        f"CREATE INDEX {table.lower()}_{column} IF NOT EXISTS FOR ()-[e:{table}]-() ON (e.{column})"
        for table, columns in EDGE_INDEXED.items()
        for column in columns
    ]
    return out


def _label(table: str) -> str:
    return STAGED.get(table, TABLES[table].name)


def stage_nodes(table: str) -> str:
    """One batch of a node table's rows (``$rows``: lists in column order) written into generation
    ``$generation``; the element id of each new node, in row order."""
    columns = TABLES[table].column_names
    props = ", ".join(f"`{c}`: r[{i}]" for i, c in enumerate(columns) if c != "firmware")
    own = "generation: $generation, heartbeat: timestamp()" if table == "Firmware" else "firmware: $generation"
    return f"UNWIND $rows AS r CREATE (n:{_label(table)} {{{props}, {own}}}) RETURN elementId(n) AS node"


def stage_edges(table: str) -> str:
    """One batch of an edge table: ``$rows`` holds, per pair of end nodes, [element id of from,
    element id of to, number of edges, then each column's values of those edges as a list]; a
    ``CODED`` column's values are positions in ``$coded``. (Columns, not an edge per list: the
    driver packs values one by one in Python, and a list per edge costs a fifth more.)"""
    columns = TABLES[table].column_names
    props = ", ".join(
        f"`{c}`: $coded[r[{i + 3}][i]]" if c in CODED else f"`{c}`: r[{i + 3}][i]" for i, c in enumerate(columns)
    )  # fmt: skip
    body = f" {{{props}}}" if props else ""
    return (
        "UNWIND $rows AS r MATCH (a) WHERE elementId(a) = r[0] MATCH (b) WHERE elementId(b) = r[1] "
        f"UNWIND range(0, r[2] - 1) AS i CREATE (a)-[:{TABLES[table].name}{body}]->(b)"
    )
