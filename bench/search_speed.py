"""How fast are the search box's and the "why is it loaded" panel's calls on the whole-/usr/bin root?

Builds (or reuses, see tests/support/hostroot.py) the whole-/usr/bin root and scans it into a
temporary LadybugDB (or uses --db); with --neo4j it also starts a Neo4j 5.26 for the run
(tests/support/neo4j_server.py), copies the graph there (``linkgraph push``) and checks that both
stores answer every call identically. Each call goes through the viewer's app (Flask's test
client), --runs times after a warm-up; the median is printed. The calls: a common symbol (``malloc``,
its first page and the page from row 500), ``SSL_read``, the names starting with ``SSL_``, the
suggestions for ``SSL_READ`` (any case) and ``SSL_raed`` (a typo), the
modules matching ``lib``, and why libssl and libc are loaded in curl.

Usage: python bench/search_speed.py [--db PATH] [--neo4j] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import hostroot

CALLS = [
    "symbol?name=malloc",
    "symbol?name=malloc&offset=500",
    "symbol?name=SSL_read",
    "symbol?name=SSL_",
    "symbol?name=SSL_READ",  # nothing of that case: the names containing it in any case are suggested
    "symbol?name=SSL_raed",  # a typo: the close names are suggested
    "search?q=lib",
    "why?program=/usr/bin/curl&library=libssl.so.3",
    "why?program=/usr/bin/curl&library=libc.so.6",
]


def timings(config: dict, runs: int) -> dict[str, tuple[float, int, object]]:
    """Per call: the median milliseconds, the answer's size in bytes, the answer."""
    from linkgraph.viewer import create_app

    client = create_app({**config, "TESTING": True}).test_client()
    fw = client.get("/api/firmware").get_json()[0]["id"]
    out = {}
    for call in CALLS:
        url = f"/api/firmware/{fw}/{call}"
        client.get(url)  # warm-up
        took = []
        for _ in range(runs):
            start = time.perf_counter()
            answer = client.get(url)
            took.append((time.perf_counter() - start) * 1000)
        out[call] = (statistics.median(took), len(answer.data), answer.get_json())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="an existing LadybugDB with one firmware (default: scan the host root)")
    parser.add_argument("--neo4j", action="store_true", help="also on a Neo4j started for the run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="linkgraph-search-speed-") as tmp:
        db = args.db or str(Path(tmp) / "graph.lbdb")
        if not args.db:
            hostroot.scan_and_report(hostroot.cached_host_root(), Path(db))
        results = {"LadybugDB": timings({"LINKGRAPH_DB": db}, args.runs)}
        if args.neo4j:
            from support.neo4j_server import Neo4jServer

            server = Neo4jServer()
            server.start()
            try:
                os.environ.update(NEO4J_USER=server.user, NEO4J_PASSWORD=server.password)
                push = [*hostroot.linkgraph_command(), "push", "--db", db, "--neo4j", server.uri, "--quiet"]
                subprocess.run(push, check=True)
                results["Neo4j"] = timings({"LINKGRAPH_NEO4J": server.uri}, args.runs)
            finally:
                server.stop()
    for store, calls in results.items():
        print(f"{store}:")
        for call, (ms, size, answer) in calls.items():
            offered = answer.get("suggestions") if isinstance(answer, dict) else None
            note = f"  suggests {', '.join(offered[:3])}{' …' if len(offered) > 3 else ''}" if offered else ""
            print(f"  {call:50} {ms:8.1f} ms  {size / 1024:7.1f} KiB{note}")
    if len(results) == 2:
        ours, theirs = results.values()
        differ = [c for c in CALLS if ours[c][2] != theirs[c][2]]
        print("answers identical on both stores" if not differ else f"answers differ: {differ}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
