"""Queries over many list elements answer exactly, on both stores: licence finding (a) on a graph of
thousands of paths whose edges hold in hundreds of programs each, and the module search over
thousands of aliases, each against a plain Python judge of the same graph.

LadybugDB 0.22's list predicates (``all``, ``any``, ``none``, ``single`` and ``list_filter``) give
wrong answers, or crash the process, once a batch of rows holds more than about 2,048 list
elements (``UNWIND range(1, 1000) AS i WITH [true, i % 5 <> 0, true] AS l WHERE all(x IN l WHERE x)
RETURN count(*)`` counts 801 rows, not 800); so the queries LadybugDB runs use none of them, and
this graph is large enough to show it if one came back."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from linkgraph.cypher.schema import TABLES
from linkgraph.loader.store.base import GraphStore
from linkgraph.loader.store.graph_rows import GraphRows
from linkgraph.loader.store.queries import load_query

FIRMWARE = "b1" * 32
CYPHER = Path(__file__).resolve().parent.parent / "cypher"
MAX_HOPS = 4


def full(table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with every column of the table, those not given empty."""
    columns = (*(("from", "to") if TABLES[table].ends else ()), *TABLES[table].column_names)
    return [{c: row.get(c) for c in columns} for row in rows]


class Graph:
    """Modules in layers (starts, two middle layers, GPL libraries), NEEDED edges between the layers
    and back (cycles), most of them bound (used), some not (declared-unused), and bindings without a
    NEEDED edge (hidden); every module with many aliases."""

    def __init__(self, seed: int = 11) -> None:
        pick = random.Random(seed)
        classes = ["unknown", "incompatible", "permissive"]
        self.klass = {f"/bin/s{i}": classes[i % 3] for i in range(15)}
        self.klass |= {f"/lib/a{i}": "gpl" if i < 3 else "permissive" for i in range(20)}
        self.klass |= {f"/lib/b{i}": "gpl" if i < 2 else "permissive" for i in range(20)}
        self.klass |= {f"/lib/g{i}": "gpl" for i in range(3)}
        layer = {p: p.split("/")[-1][0] for p in self.klass}
        by_layer = {name: [p for p in self.klass if layer[p] == name] for name in "sabg"}
        self.needed: set[tuple[str, str]] = set()
        for src, dst, count in (
            ("s", "a", 12),
            ("a", "b", 12),
            ("b", "g", 2),
            ("s", "g", 1),
            ("a", "g", 1),
            ("b", "a", 2),
        ):
            for m in by_layer[src]:
                self.needed.update((m, t) for t in pick.sample(by_layer[dst], count))
        self.used = {pair for pair in sorted(self.needed) if pick.random() < 0.8}
        self.hidden = {
            (m, t) for m in by_layer["s"] for t in pick.sample(by_layer["b"], 2) if (m, t) not in self.needed
        }
        self.aliases: dict[str, list[str] | None] = {
            p: [f"/usr/bin/tool{p[-2:]}-{k}" for k in range(60)] for p in self.klass
        }
        self.aliases["/lib/a14"] = None  # a store written before aliases were kept
        # the processes (link maps) each binding holds in: overlapping sets of hundreds of programs
        programs = [f"/usr/bin/p{k:03}" for k in range(500)]
        self.scopes = {f"s{k}": sorted(pick.sample(programs, 300)) for k in range(6)}
        self.scope_of = {pair: pick.choice(sorted(self.scopes)) for pair in sorted(self.used | self.hidden)}

    def rows(self) -> GraphRows:
        ids = {p: f"{FIRMWARE[:16]}:{p}" for p in self.klass}
        modules = [
            {"id": ids[p], "firmware": FIRMWARE, "path": p, "name": p.split("/")[-1], "kind": "library",
             "needed": [], "aliases": self.aliases[p], "licence": None, "licence_class": c}
            for p, c in self.klass.items()
        ]  # fmt: skip
        bound = sorted(self.used | self.hidden)
        resolves = [
            {"from": ids[m], "to": ids[t], "symbol": f"f{i}", "version": None, "copy": False,
             "scope": self.scope_of[m, t], "interposed": False}
            for i, (m, t) in enumerate(bound)
        ]  # fmt: skip
        scopes = [{"id": k, "firmware": FIRMWARE, "executables": v} for k, v in self.scopes.items()]
        needed = [
            {"from": ids[m], "to": ids[t], "soname": t.split("/")[-1], "position": 0} for m, t in sorted(self.needed)
        ]
        firmware = [{"id": FIRMWARE, "name": "big-lists", "sha256": FIRMWARE, "scanned_at": ""}]
        return GraphRows(
            FIRMWARE,
            nodes={
                "Firmware": full("Firmware", firmware),
                "Module": full("Module", modules),
                "Scope": full("Scope", scopes),
            },
            rels={
                ("NEEDED", "Module", "Module"): full("NEEDED", needed),
                ("RESOLVES_TO", "Module", "Module"): full("RESOLVES_TO", resolves),
            },
        )

    def gpl_paths(self) -> Counter[tuple[Any, ...]]:
        """Finding (a) by hand: every path of used or hidden edges, at most four, from a module of
        unknown or incompatible licence to the first GPL module, through distinct modules, with the
        programs whose process holds every hop (kept when there is one)."""
        status = {pair: "used" if pair in self.used else "declared-unused" for pair in self.needed}
        status |= dict.fromkeys(self.hidden, "hidden")
        out: dict[str, list[tuple[str, str]]] = {}
        for (m, t), s in status.items():
            if s in ("used", "hidden"):
                out.setdefault(m, []).append((t, s))
        found: Counter[tuple[Any, ...]] = Counter()

        def walk(path: list[str], statuses: list[str], held: set[str]) -> Iterator[tuple[Any, ...]]:
            for t, s in out.get(path[-1], []):
                here = held & set(self.scopes[self.scope_of[path[-1], t]])
                if t in path or not here:
                    continue
                if self.klass[t] == "gpl":
                    yield (path[0], t, (*path, t), (*statuses, s), tuple(sorted(here)))
                elif len(path) < MAX_HOPS:
                    yield from walk([*path, t], [*statuses, s], here)

        everyone = set().union(*map(set, self.scopes.values()))
        for m, c in self.klass.items():
            if c in ("unknown", "incompatible"):
                found.update(walk([m], [], everyone))
        return found


@pytest.fixture(scope="module")
def graph() -> Graph:
    return Graph()


@pytest.fixture(params=["ladybug", "neo4j"])
def store(request: pytest.FixtureRequest, graph: Graph, tmp_path: Path) -> Iterator[GraphStore]:
    if request.param == "ladybug":
        from linkgraph.loader.store.ladybug_store import LadybugStore

        opened: GraphStore = LadybugStore(str(tmp_path / "big.lbdb"))
    else:
        from linkgraph.loader.store.neo4j_store import Neo4jStore

        server = request.getfixturevalue("neo4j_server")
        opened = Neo4jStore(server.uri, server.user, server.password)
    try:
        opened.replace_firmware(graph.rows())
        yield opened
    finally:
        if request.param == "neo4j":
            opened.delete_firmware(FIRMWARE)
        opened.close()


def test_finding_a_is_every_path_the_judge_finds(store: GraphStore, graph: Graph) -> None:
    want = graph.gpl_paths()
    assert sum(want.values()) > 2000 and len({n for p in want for n in p[2]}) > 40  # big enough to show the bug
    assert any(len(p[4]) < 300 for p in want)  # the programs of a path are the hops' common ones
    streamed = Counter(
        (r[0], r[3], tuple(r[5]), tuple(r[6]), tuple(r[7]))
        for r in store.stream("licence-gpl-used-by", {"firmware": FIRMWARE})
    )
    assert streamed == want


@pytest.mark.parametrize("text", ["TOOL07-1", "tool4", "/lib/a1", "-59", "nothing-like-it"])
def test_module_search_over_thousands_of_aliases(store: GraphStore, graph: Graph, text: str) -> None:
    low = text.lower()
    want = sorted(p for p in graph.klass if low in p or any(low in a.lower() for a in graph.aliases[p] or []))
    got = [
        r["path"]
        for r in store.run_query(
            load_query("search-modules", store.engine), {"firmware": FIRMWARE, "text": text, "offset": 0, "limit": 1000}
        )
    ]
    assert got == want
    assert sum(len(a or []) for a in graph.aliases.values()) > 2048


def test_ladybug_queries_use_no_list_predicate() -> None:
    """The queries LadybugDB runs (its own variant where there is one) filter lists some other way."""
    predicate = re.compile(r"\b(all|any|none|single|list_filter)\s*\(", re.I)
    for path in sorted(CYPHER.glob("*.cypher")):
        name, *engine = path.name.removesuffix(".cypher").split(".")
        if engine == ["neo4j"] or (not engine and (CYPHER / f"{name}.ladybug.cypher").exists()):
            continue
        body = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("//"))
        assert not predicate.search(body), f"{path.name} uses a list predicate LadybugDB answers wrongly on big inputs"
