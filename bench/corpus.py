"""Neo4j at lab scale: load a corpus of at least 100 distinct firmware graphs into one Neo4j and
time the cross-image queries as it grows.

    python bench/corpus.py                      # 100 graphs, checkpoints at 10, 50, 100
    python bench/corpus.py --images 30 --checkpoints 10,30 --runs 10
    python bench/corpus.py --store-time         # the 1k host root: Neo4j's store time beside LadybugDB's

The corpus (bench/corpus_sources.py) mixes the shared router images and vendor roots, Debian roots
of four architectures at several package sets and roots of this machine's programs at different
subsets; each member is scanned once and its rows cached, so the load is timed alone. Unless
``NEO4J_URI`` names a server, a Neo4j 5.26 is started for the run (tests/support/neo4j_server.py,
page cache and heap as ``CONF``) and stopped at the end.

Reported: load throughput (graphs per minute, nodes and edges per second, per stage of the
corpus), the store's size on disk (store files and transaction logs) and the p50/p95 latency of
images-using, images-shipping and symbol-users at each checkpoint: over the "analyst" parameters
(libraries and functions an analyst asks about: libssl's SSL_read, zlib's inflate ...), and
apart from them the "broad" ones (libc.so.6 itself, malloc), whose answers run to tens of
thousands of rows. Goal: images-using and symbol-users p95 < 500 ms at 100 images (analyst).
The machine's other work shows in the figures: say how busy it was when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_sources
from linkgraph.loader.store.neo4j_store import Neo4jStore

CONF = {"server.memory.pagecache.size": "2g", "server.memory.heap.max_size": "3g"}
ANALYST_LIBRARIES = ("libssl.so.3", "libcrypto.so.3", "libz.so.1", "libcurl.so.4", "libubox.so", "libnvram.so")
BROAD_LIBRARIES = ("libc.so.6",)
ANALYST_SYMBOLS = (
    ("SSL_read", "libssl.so.3"),
    ("EVP_DigestInit_ex", "libcrypto.so.3"),
    ("inflate", "libz.so.1"),
    ("curl_easy_perform", "libcurl.so.4"),
    ("uloop_run", "libubox.so"),
    ("nvram_get", "libnvram.so"),
    ("system", "libc.so.0"),
)
BROAD_SYMBOLS = (("malloc", "libc.so.6"),)
GOAL_MS = 500.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def time_query(store: Neo4jStore, name: str, params: dict[str, str], runs: int) -> tuple[list[float], int]:
    """``runs`` timings (ms) of a named query after one warm-up run, and its row count."""
    rows = len(store.query(name, params))
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        store.query(name, params)
        timings.append((time.perf_counter() - started) * 1000)
    return timings, rows


def query_figures(store: Neo4jStore, runs: int) -> dict[str, Any]:
    """p50/p95 per query and parameter family, with the row counts of each parameter set."""
    families = {
        "images-using": ({"library": lib} for lib in ANALYST_LIBRARIES),
        "images-shipping": ({"library": lib} for lib in ANALYST_LIBRARIES),
        "symbol-users": ({"symbol": s, "library": lib} for s, lib in ANALYST_SYMBOLS),
        "images-using (broad)": ({"library": lib} for lib in BROAD_LIBRARIES),
        "symbol-users (broad)": ({"symbol": s, "library": lib} for s, lib in BROAD_SYMBOLS),
    }
    out: dict[str, Any] = {}
    for family, param_sets in families.items():
        name = family.split(" ")[0]
        timings: list[float] = []
        rows: dict[str, int] = {}
        for params in param_sets:
            got, count = time_query(store, name, params, runs)
            timings += got
            rows["/".join(params.values())] = count
        out[family] = {
            "p50_ms": round(statistics.median(timings), 1),
            "p95_ms": round(percentile(timings, 0.95), 1),
            "rows": rows,
        }
    return out


def size_on_disk(run_dir: Path | None) -> dict[str, float]:
    """MB of the database's store files and of its transaction logs (a server of our own only)."""
    if run_dir is None:
        return {}

    def megabytes(path: Path) -> float:
        return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)

    data = run_dir / "data"
    return {
        "store_mb": megabytes(data / "databases" / "neo4j"),
        "tx_logs_mb": megabytes(data / "transactions" / "neo4j"),
    }


def load(store: Neo4jStore, args: argparse.Namespace, run_dir: Path | None) -> dict[str, Any]:
    checkpoints = sorted(int(c) for c in args.checkpoints.split(","))
    stages: list[dict[str, Any]] = []
    loaded, since = 0, {"seconds": 0.0, "nodes": 0, "edges": 0}
    for rows in corpus_sources.corpus(max(checkpoints), args.rescan):
        started = time.perf_counter()
        store.replace_firmware(rows)
        since["seconds"] += time.perf_counter() - started
        since["nodes"] += sum(len(v) for v in rows.nodes.values())
        since["edges"] += sum(len(v) for v in rows.rels.values())
        loaded += 1
        if loaded in checkpoints:
            stage = {
                "images": loaded,
                "graphs_per_minute": round(
                    60 * (loaded - (stages[-1]["images"] if stages else 0)) / since["seconds"], 1
                ),
                "nodes_per_second": round(since["nodes"] / since["seconds"]),
                "edges_per_second": round(since["edges"] / since["seconds"]),
                "load_seconds": round(since["seconds"], 1),
                **size_on_disk(run_dir),
                "queries": query_figures(store, args.runs),
            }
            stages.append(stage)
            print(json.dumps(stage), flush=True)
            since = {"seconds": 0.0, "nodes": 0, "edges": 0}
    return {"stages": stages, "loaded": loaded, "load_average": os.getloadavg()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoints", default="10,50,100", help="corpus sizes at which to measure")
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each query and parameter set")
    parser.add_argument("--rescan", action="store_true", help="scan every member again (not from the cache)")
    parser.add_argument("--store-time", action="store_true", help="time the store of the 1k host root instead")
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()
    from support.neo4j_server import Neo4jServer, server_from_env

    server = server_from_env() or Neo4jServer(extra_conf=CONF)
    with server:
        store = Neo4jStore(server.uri, server.user, server.password)
        try:
            if args.store_time:
                import corpus_store_time

                figures = corpus_store_time.compare(store, args.runs)
            else:
                figures = load(store, args, None if server.external else server.run_dir)
        finally:
            store.close()
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    if args.store_time:
        return 0 if figures["ratio"] <= 2 else 1
    last = figures["stages"][-1]["queries"] if figures["stages"] else {}
    slow = [q for q in ("images-using", "symbol-users") if last.get(q, {}).get("p95_ms", 0) > GOAL_MS]
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
