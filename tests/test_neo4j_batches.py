"""The Neo4j writer's edge batches (``loader/store/neo4j_write.py``) carry every edge once, with its
values: read back as the server's statement reads them (coded columns through ``$coded``, an
absent column's null as its value), they give the table's rows; and a table held as ``Columns`` (the
scan's RESOLVES_TO) gives the same batches as the same rows as dicts (what ``push`` reads)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from linkgraph.cypher.neo4j_schema import ABSENT, CODED
from linkgraph.cypher.schema import TABLES
from linkgraph.loader.store import neo4j_write
from linkgraph.loader.store.columns import Columns
from linkgraph.loader.store.graph_rows import GraphRows

KEY = ("RESOLVES_TO", "Module", "Module")
NAMES = TABLES["RESOLVES_TO"].column_names


def resolves_to(count: int) -> list[dict[str, Any]]:
    """Edges among a few modules, pairs repeating, scopes and versions recurring, copy, interposed and
    upcall rare."""
    pick = random.Random(7)
    return [
        {
            "from": f"m{pick.randrange(6)}",
            "to": f"m{pick.randrange(6)}",
            "symbol": f"sym{pick.randrange(50)}",
            "version": pick.choice([None, "GLIBC_2.2.5", "GLIBC_2.34"]),
            "copy": pick.random() < 0.1,
            "scope": f"fw:scope:{pick.randrange(4)}",
            "interposed": pick.random() < 0.05,
            "upcall": pick.random() < 0.03,
        }
        for _ in range(count)
    ]


def as_columns(rows: list[dict[str, Any]]) -> Columns:
    table = Columns(("from", "to", *NAMES))
    for row in rows:
        table.append(row["from"], row["to"], *(row[name] for name in NAMES))
    return table


def batches(data: Any) -> list[neo4j_write.Job]:
    graph = GraphRows("fw", rels={KEY: data})
    node_of = {("Module", f"m{i}"): f"element-{i}" for i in range(6)}
    return list(neo4j_write._edge_jobs(graph, [KEY], node_of))


def read_back(jobs: list[neo4j_write.Job]) -> Counter[tuple[Any, ...]]:
    """Each edge the statements would create: its end nodes and values, as the statement reads them."""
    absent = ABSENT["RESOLVES_TO"]
    edges: Counter[tuple[Any, ...]] = Counter()
    for job in jobs:
        coded = job.params["coded"]
        for a, b, count, *columns in job.params["rows"]:
            assert all(len(values) == count for values in columns)
            for i in range(count):
                values = []
                for name, column in zip(NAMES, columns, strict=True):
                    value = coded[column[i]] if name in CODED else column[i]
                    values.append(absent[name] if value is None and name in absent else value)
                edges[(a, b, *values)] += 1
    return edges


@pytest.mark.parametrize("batch", [3, 40, 5000])
def test_edge_batches_carry_every_edge_once(batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_write, "BATCH", batch)
    rows = resolves_to(500)
    jobs = batches(rows)
    want = Counter((f"element-{r['from'][1:]}", f"element-{r['to'][1:]}", *(r[n] for n in NAMES)) for r in rows)
    assert read_back(jobs) == want
    assert len(jobs) > 1 if batch < 500 else len(jobs) == 1
    for job in jobs:  # the absent value itself is never sent
        for name in ("copy", "interposed", "upcall"):
            assert False not in job.params["rows"][0][3 + NAMES.index(name)]


def test_columns_and_dict_rows_give_the_same_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_write, "BATCH", 40)
    rows = resolves_to(300)
    from_dicts = batches(rows)
    from_columns = batches(as_columns(rows))
    assert [(j.statement, j.params) for j in from_columns] == [(j.statement, j.params) for j in from_dicts]
