"""The graph schema is declared once (``linkgraph.cypher.schema``): each store's tables, columns,
types, edge ends, constraints and indexes, as the store itself reports them after a real scan,
are exactly what the declaration says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import ladybug
import pytest
from conftest import linkgraph
from linkgraph.cypher.neo4j_schema import ABSENT, BOOKKEEPING, EDGE_INDEXED, RETIRED, STAGED, UNIQUE_IDS
from linkgraph.cypher.schema import EDGES, NODES, TABLES
from support.article import build_article_root

CYPHER = Path(__file__).resolve().parent.parent / "cypher"


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_article_root(tmp_path_factory.mktemp("article") / "root").path


def rows(conn: Any, statement: str) -> list[list[Any]]:
    result = conn.execute(statement)
    out = []
    while result.has_next():
        out.append(result.get_next())
    return out


def test_ladybug_tables_are_the_schema(article: Path, tmp_path: Path) -> None:
    db = tmp_path / "fw.lbdb"
    linkgraph("scan", str(article), "--db", str(db), "-q")
    conn = ladybug.Connection(ladybug.Database(str(db), read_only=True))
    tables = {name: kind for _id, name, kind, *_ in rows(conn, "CALL show_tables() RETURN *")}
    assert tables == {t.name: "REL" if t.ends else "NODE" for t in (*NODES, *EDGES)}
    for table in TABLES.values():
        columns = [(name, kind) for _id, name, kind, *_ in rows(conn, f"CALL table_info('{table.name}') RETURN *")]
        assert columns == [(name, str(kind)) for name, kind in table.columns], table.name
        if table.ends:
            ends = [(src, dst) for src, dst, *_ in rows(conn, f"CALL show_connection('{table.name}') RETURN *")]
            assert sorted(ends) == sorted(table.ends), table.name


@pytest.mark.slow
def test_neo4j_constraints_indexes_and_properties_are_the_schema(
    article: Path, neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    from neo4j import GraphDatabase

    linkgraph("scan", str(article), "--neo4j", neo4j_server.uri, "-q", env=neo4j_env)
    with GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        constraints, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type")
        indexes, _, _ = driver.execute_query("SHOW INDEXES YIELD labelsOrTypes, properties, type, owningConstraint")
        nodes, _, _ = driver.execute_query("CALL db.schema.nodeTypeProperties()")
        edges, _, _ = driver.execute_query("CALL db.schema.relTypeProperties()")
    unique = {(r["labelsOrTypes"][0], tuple(r["properties"])) for r in constraints if r["type"] == "UNIQUENESS"}
    assert unique == {(name, ("id",)) for name in UNIQUE_IDS}  # generations repeat the other ids
    looked_up = {
        (r["labelsOrTypes"][0], tuple(r["properties"]))
        for r in indexes
        if r["type"] == "RANGE" and r["owningConstraint"] is None and r["labelsOrTypes"]
    }
    node_indexes = {(t.name, (column,)) for t in NODES for column in t.indexed}
    edge_indexes = {(name, (column,)) for name, columns in EDGE_INDEXED.items() for column in columns}
    assert looked_up == node_indexes | edge_indexes
    generation_labels = {label: table for table, label in (*STAGED.items(), *RETIRED.items())}
    for row in nodes:  # every property a node carries is a declared column of its table (or the store's bookkeeping)
        (label,) = row["nodeLabels"]
        label = generation_labels.get(label, label)  # a Firmware node of a generation being written or deleted
        known = (*TABLES[label].column_names, *BOOKKEEPING.get(label, ()))
        assert row["propertyName"] is None or row["propertyName"] in known, row
    for row in edges:
        name = row["relType"].strip(":`")
        assert row["propertyName"] is None or row["propertyName"] in TABLES[name].column_names, row


def test_columns_neo4j_leaves_out_are_read_with_their_value() -> None:
    """Neo4j stores an ``ABSENT`` column only where it differs from its value: every query reads
    it as ``coalesce(x.column, value)``, so both stores give the same rows."""
    read = 0
    for path in sorted(CYPHER.glob("*.cypher")):
        text = path.read_text()
        for columns in ABSENT.values():
            for column, value in columns.items():
                for found in re.finditer(rf"(\w+)\.{column}\b", text):
                    wrapped = f"coalesce({found[1]}.{column}, {json.dumps(value)})"
                    assert text.startswith(wrapped, found.start() - len("coalesce(")), f"{path.name}: {found[0]}"
                    read += 1
    assert read > 0
