"""The store time of the 1,000-program host root (``python bench/host_root.py``) in Neo4j beside
LadybugDB's, in the same run: the root is scanned once (its rows cached like the corpus'), then
each store writes the same rows ``runs`` times, taking turns. Neo4j is timed writing a firmware it
does not hold yet (the first scan of an image) and writing it again (a re-scan: the old generation
deleted after the switch); LadybugDB writes a new database file each time. Medians are reported;
goal: Neo4j's first write at most 2x LadybugDB's (moonshot 1x). One untimed round first: a fresh
server's JIT needs a few writes to settle (the first one takes three times as long).

With the classification recording each edge's programs and storing finding (a) (``--runs 5``,
nothing else running, load average 1.2-1.5): LadybugDB 2.06 s, Neo4j first write 3.98 s, re-scan
7.71 s: 1.93x (3.74x); both stores spend the added time in the classification.
Measured with nothing else running (``--runs 9``, twice), the edge batches cut from the table's
columns (the client's CPU per write 1.0 -> 0.8 s): LadybugDB 1.55 s, Neo4j first write 2.81 s,
re-scan 5.55 s: 1.81x (3.58x); then 1.77 / 3.02 / 5.85 s: 1.71x (3.31x); load average 1.7-2.0.
LadybugDB's times went 1.15-1.95 s within one run. The same session before that change (``--runs
7``): 1.53 / 3.04 / 6.06 s, 1.99x.
Earlier, with nothing else running (``--runs 7``, rows as the scan now makes them: RESOLVES_TO as
columns, DLOPEN bindings compact): LadybugDB 1.83 s, Neo4j first write 3.68 s, re-scan 7.57 s:
2.01x (4.14x); Neo4j's first writes went 5.75, 4.18, 3.87, 3.62, 3.68, 3.59, 3.36 s as the server's
JIT settled (the last rounds near 1.9x). With ``--runs 5`` just before: 1.65 / 3.41 / 7.12 s, 2.07x;
with ``--runs 9`` after: 1.58 / 3.54 / 7.30 s, 2.24x (LadybugDB's own times wander by a third).
Measured (``python bench/corpus.py --store-time --runs 5``, 33,306 nodes and 237,402 edges, with
``neo4j-rust-ext``), with ``copy`` left out where false, the one-pass ``classify.neo4j.cypher`` and
two writer sessions: LadybugDB 1.71 s, Neo4j first write 3.45 s, re-scan 7.14 s: 2.02x (4.18x),
load average 1.9 (the same rows just before, without those three: 2.33 / 4.00 / 7.56 s, 1.72x, as
LadybugDB's own times wander by a third; against the two runs' ten LadybugDB times, 1.84 s, 1.88x
after and 2.18x before). The server's CPU per write went from 5.3-5.5 s to 4.5-4.9 s (read from
/proc around each write). Earlier: LadybugDB 1.51 s, Neo4j first write 3.75 s, re-scan 7.46 s:
2.48x (4.94x) with the machine otherwise quiet; 1.64 / 4.24 / 8.30 s (2.59x) and 1.79 / 5.31 / 11.19 s (2.97x)
while other work ran; 1.77 / 3.51 / 7.35 s (1.98x, three runs, before ``classify.neo4j.cypher``)
in the quietest run. Neo4j's server needs both cores, so the ratio follows how busy the machine is.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus_sources
from linkgraph.loader.scan.root import paused_gc
from linkgraph.loader.store.graph_rows import GraphRows
from linkgraph.loader.store.ladybug_store import LadybugStore
from linkgraph.loader.store.neo4j_store import Neo4jStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import hostroot


def host_rows() -> GraphRows:
    """The rows of the whole-/usr/bin host root, scanned once."""
    root = hostroot.cached_host_root()
    member = corpus_sources.Member(f"host-all-{root.parent.name}", "host", lambda _work: root)
    (rows,) = corpus_sources.graphs(member)
    return rows


def timed(write: Any, rows: GraphRows) -> float:
    started = time.perf_counter()
    with paused_gc():  # as the scan command writes
        write(rows)
    return time.perf_counter() - started


def ladybug_once(rows: GraphRows) -> float:
    with tempfile.TemporaryDirectory(prefix="lg-store-time-") as folder:
        store = LadybugStore(os.path.join(folder, "fw.lbdb"))
        try:
            return timed(store.replace_firmware, rows)
        finally:
            store.close()


def compare(store: Neo4jStore, runs: int) -> dict[str, Any]:
    rows = host_rows()
    figures: dict[str, list[float]] = {"ladybug": [], "neo4j_first": [], "neo4j_again": []}
    ladybug_once(rows)  # warm-up, untimed: a fresh server's JIT takes several writes to settle
    for _ in range(2):
        store.replace_firmware(rows)
    for _ in range(runs):
        store.delete_firmware(rows.firmware)
        figures["ladybug"].append(ladybug_once(rows))
        figures["neo4j_first"].append(timed(store.replace_firmware, rows))
        figures["neo4j_again"].append(timed(store.replace_firmware, rows))
    medians = {k: round(statistics.median(v), 2) for k, v in figures.items()}
    return {
        "nodes": sum(len(v) for v in rows.nodes.values()),
        "edges": sum(len(v) for v in rows.rels.values()),
        "seconds": {k: [round(x, 2) for x in v] for k, v in figures.items()},
        "median_seconds": medians,
        "ratio": round(medians["neo4j_first"] / medians["ladybug"], 2),
        "ratio_again": round(medians["neo4j_again"] / medians["ladybug"], 2),
        "load_average": os.getloadavg(),
    }
