"""The graph's schema, declared once: every node and edge table, its columns and their types.

Everything else derives from it: LadybugDB's DDL (``ladybug_ddl``), Neo4j's constraints and
indexes (``neo4j_ddl``), the Arrow column types of LadybugDB's bulk ``COPY``, the bulk-write
statements of both stores and the read-back of ``linkgraph push`` (``write_*``, ``read_*``), and
the test that compares each store's tables with it. Labels and column names come from here,
never from firmware: every value goes in as a parameter.

Column order matters to LadybugDB's ``COPY`` (by position): columns added in a later version go
at the end, where ``ALTER TABLE … ADD IF NOT EXISTS`` puts them in an older database.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ColumnType(enum.StrEnum):
    STRING = "STRING"
    INT64 = "INT64"
    BOOL = "BOOL"
    STRINGS = "STRING[]"


STR, INT, BOOL, STRS = ColumnType.STRING, ColumnType.INT64, ColumnType.BOOL, ColumnType.STRINGS


@dataclass(frozen=True)
class Table:
    """A node table (keyed by ``id``) or, with ``ends``, an edge table between those node tables."""

    name: str
    columns: tuple[tuple[str, ColumnType], ...]
    ends: tuple[tuple[str, str], ...] = ()
    indexed: tuple[str, ...] = ()  # node columns Neo4j indexes for the named queries
    written: bool = True  # False: made by the classification in Cypher, never bulk-written

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(name for name, _type in self.columns)


NODES: tuple[Table, ...] = (
    Table("Firmware", (("id", STR), ("name", STR), ("sha256", STR), ("scanned_at", STR), ("source", STR))),
    Table(
        "Module",
        (
            ("id", STR),
            ("firmware", STR),
            ("path", STR),
            ("name", STR),
            ("root", STR),
            ("kind", STR),
            ("soname", STR),
            ("machine", STR),
            ("class", INT),
            ("endian", STR),
            ("osabi", STR),
            ("interpreter", STR),
            ("needed", STRS),
            ("aliases", STRS),
            ("size", INT),
            ("sha256", STR),
            ("licence", STR),
            ("licence_source", STR),
            ("licence_certainty", STR),
            ("package", STR),
            ("licence_class", STR),
        ),
        indexed=("firmware", "path", "soname", "sha256", "licence"),
    ),
    Table("Missing", (("id", STR), ("firmware", STR), ("soname", STR)), indexed=("firmware",)),
    Table("Symbol", (("id", STR), ("firmware", STR), ("name", STR), ("version", STR)), indexed=("firmware", "name")),
    Table("Scope", (("id", STR), ("firmware", STR), ("executables", STRS)), indexed=("firmware",)),
    Table(
        "LinkMap",
        (("id", STR), ("firmware", STR), ("executable", STR), ("flavour", STR), ("objects", STRS), ("missing", STRS)),
        indexed=("firmware",),
    ),
    Table(
        "Duplicate",
        (("id", STR), ("firmware", STR), ("symbol", STR), ("providers", STRS), ("chosen", STR), ("executables", STRS)),
        indexed=("firmware",),
    ),
    Table(
        "Problem",
        (("id", STR), ("firmware", STR), ("path", STR), ("severity", STR), ("message", STR), ("code", STR)),
        indexed=("firmware",),
    ),
)
EDGES: tuple[Table, ...] = (
    Table("CONTAINS", (), ends=(("Firmware", "Module"),)),
    Table(
        "NEEDED",
        (
            ("soname", STR),
            ("position", INT),
            ("executables", STRS),
            ("status", STR),
            ("symbols", STRS),
            ("rule", STR),
            ("directory", STR),
            ("via", STR),
            ("tried", STRS),
            ("found_by", STR),
        ),
        ends=(("Module", "Module"), ("Module", "Missing")),
    ),
    Table("HIDDEN", (("soname", STR), ("status", STR), ("symbols", STRS)), ends=(("Module", "Module"),), written=False),
    Table(
        "RESOLVES_TO",
        (("symbol", STR), ("version", STR), ("copy", BOOL), ("scope", STR)),
        ends=(("Module", "Module"),),
    ),
    Table("PROVIDES", (), ends=(("Module", "Symbol"),)),
    Table("UNRESOLVED", (("weak", BOOL), ("scope", STR)), ends=(("Module", "Symbol"),)),
)
TABLES: dict[str, Table] = {t.name: t for t in (*NODES, *EDGES)}
# filled in by the classification, not by the writers (an edge read back leaves them out)
CLASSIFIED = frozenset({"status", "symbols"})


def ladybug_ddl() -> list[str]:
    """LadybugDB: typed tables (it has no schema-free nodes), then every column added if missing,
    so that a database written by an older linkgraph gains the newer ones."""
    out: list[str] = []
    for table in NODES:
        columns = ", ".join(f"{name} {kind}" for name, kind in table.columns)
        out.append(f"CREATE NODE TABLE IF NOT EXISTS {table.name}({columns}, PRIMARY KEY(id))")
        out += [f"ALTER TABLE {table.name} ADD IF NOT EXISTS {n} {k}" for n, k in table.columns[1:]]
    for table in EDGES:
        parts = [f"FROM {src} TO {dst}" for src, dst in table.ends]
        parts += [f"{name} {kind}" for name, kind in table.columns]
        out.append(f"CREATE REL TABLE IF NOT EXISTS {table.name}({', '.join(parts)})")
        out += [f"ALTER TABLE {table.name} ADD IF NOT EXISTS {n} {k}" for n, k in table.columns]
    return out


def neo4j_ddl() -> list[str]:
    """Neo4j: no table declarations; a uniqueness constraint on every node table's id and the
    indexes the named queries look nodes up by."""
    out = [
        f"CREATE CONSTRAINT {t.name.lower()}_id IF NOT EXISTS FOR (n:{t.name}) REQUIRE n.id IS UNIQUE" for t in NODES
    ]
    out += [
        f"CREATE INDEX {t.name.lower()}_{column} IF NOT EXISTS FOR (n:{t.name}) ON (n.{column})"
        for t in NODES
        for column in t.indexed
    ]
    return out


def ladybug_copy(table: str, ends: tuple[str, str] | None) -> str:
    """LadybugDB's bulk load of one table from an Arrow table passed as ``$arrow``."""
    options = f" (from='{ends[0]}', to='{ends[1]}')" if ends else ""
    return f"COPY {TABLES[table].name} FROM $arrow{options}"


def neo4j_create_nodes(label: str) -> str:
    """Neo4j's bulk write of one node table: ``$rows`` is a list of property maps."""
    return f"UNWIND $rows AS r CREATE (n:{TABLES[label].name}) SET n = r"


def neo4j_create_edges(table: str, src: str, dst: str) -> str:
    """Neo4j's bulk write of edges: one row per pair of end nodes (looked up once) with its edges."""
    name, a, b = TABLES[table].name, TABLES[src].name, TABLES[dst].name
    return (
        f"UNWIND $rows AS r MATCH (a:{a} {{id: r.from}}) MATCH (b:{b} {{id: r.to}}) "
        f"UNWIND r.edges AS props CREATE (a)-[e:{name}]->(b) SET e = props"
    )


def read_nodes(label: str) -> str:
    """One firmware's nodes of one table, every column (``$firmware``)."""
    table = TABLES[label]
    key = "id" if label == "Firmware" else "firmware"
    props = ", ".join(f"n.{p} AS {p}" for p in table.column_names)
    return f"MATCH (n:{table.name} {{{key}: $firmware}}) RETURN {props}"


def read_edges(table: str, src: str, dst: str) -> str:
    """One firmware's edges of one table between two node tables, as the writers take them."""
    edge = TABLES[table]
    key = "id" if src == "Firmware" else "firmware"
    props = "".join(f", e.{p} AS {p}" for p in edge.column_names if p not in CLASSIFIED)
    return (
        f"MATCH (a:{TABLES[src].name} {{{key}: $firmware}})-[e:{edge.name}]->(b:{TABLES[dst].name}) "
        f"RETURN a.id AS from, b.id AS to{props}"
    )
