"""How fast is the viewer on the whole-/usr/bin root of this machine?

Builds (or reuses, see tests/support/hostroot.py) the whole-/usr/bin root, scans it into a temporary
LadybugDB (or uses --db), starts ``linkgraph serve`` on a free loopback port as a user would, then:

  * asks ``/api/firmware/<id>/file?path=P`` and ``/api/firmware/<id>/graph?path=P`` for every
    module (or --limit N of them, spread over the tree) over one keep-alive HTTP connection, after
    one warm-up pass, and prints p50 / p95 / max per call;
  * opens the whole-firmware view in headless Chromium (Debian's, driven by Playwright) --runs
    times, each in a fresh page, and prints the time to the first interactive frame (from the
    navigation start to the first full drawing after the data arrived, as the page measures it)
    and how long a redraw takes after a filter change.

Goals: p95 of both API calls under 100 ms on the embedded store; first interactive frame of the
whole-firmware view under 3 s.

Usage: python bench/viewer_speed.py [--db PATH] [--limit N] [--runs N]
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import hostroot
from support.browser import ViewerServer, launch_chromium

API_GOAL_MS, FRAME_GOAL_MS = 100.0, 3000.0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def time_calls(port: int, firmware: str, call: str, paths: list[str]) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    took = []
    for path in paths:
        url = f"/api/firmware/{firmware}/{call}?" + urllib.parse.urlencode({"path": path})
        start = time.perf_counter()
        conn.request("GET", url)
        answer = conn.getresponse()
        answer.read()
        took.append((time.perf_counter() - start) * 1000)
        if answer.status != 200:
            raise SystemExit(f"{url}: HTTP {answer.status}")
    conn.close()
    return took


def get_json(port: int, url: str) -> object:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", url)
    return json.loads(conn.getresponse().read())


def whole_view(base_url: str, firmware: str, runs: int, shots: Path) -> list[dict]:
    results = []
    browser = launch_chromium()
    try:
        for run in range(runs):
            page = browser.context.new_page()
            page.set_viewport_size({"width": 1600, "height": 1000})
            page.goto(f"{base_url}/fw/{firmware}/whole")
            deadline = time.monotonic() + 120
            while page.evaluate("document.body.dataset.ready || ''") != "1":
                if time.monotonic() > deadline:
                    raise SystemExit(f"the whole-firmware view did not become ready: {page.inner_text('body')[:500]}")
                time.sleep(0.02)
            first = page.evaluate("window.linkgraphWhole.firstFrameMs")
            counts = page.evaluate("[window.linkgraphWhole.nodes, window.linkgraphWhole.edges]")
            before = page.evaluate("window.linkgraphWhole.frames")
            start = time.perf_counter()
            page.evaluate("window.linkgraphWhole.setStatus('used', false)")
            while page.evaluate("window.linkgraphWhole.frames") <= before:
                time.sleep(0.005)
            redraw = (time.perf_counter() - start) * 1000
            if run == 0:
                page.screenshot(path=str(shots / "whole-firmware.png"))
            page.close()
            results.append({"first_frame_ms": first, "redraw_ms": redraw, "nodes": counts[0], "edges": counts[1]})
    finally:
        browser.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="an existing LadybugDB with one firmware (default: scan the host root)")
    parser.add_argument("--limit", type=int, default=0, help="time only N modules (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="page loads of the whole-firmware view")
    parser.add_argument("--screenshots", default="bench-artifacts", help="folder for the screenshot of the view")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="linkgraph-viewer-bench-") as tmp:
        db = args.db
        if not db:
            root = hostroot.cached_host_root()
            db = str(Path(tmp) / "host.lbdb")
            print(f"scanning {root} ...", file=sys.stderr)
            hostroot.scan_and_report(root, Path(db))
        with ViewerServer(["--db", db], Path(tmp)) as server:
            port, base_url = server.port, server.url
            firmware = get_json(port, "/api/firmware")[0]["id"]
            tree = get_json(port, f"/api/firmware/{firmware}/tree")
            paths = [e["path"] for e in tree["entries"] if e["kind"] != "symlink"]
            if args.limit and args.limit < len(paths):
                paths = paths[:: max(1, len(paths) // args.limit)][: args.limit]
            print(f"{len(paths)} modules", file=sys.stderr)
            ok = True
            for call in ("file", "graph"):
                time_calls(port, firmware, call, paths)  # warm-up
                took = time_calls(port, firmware, call, paths)
                p50, p95 = statistics.median(took), percentile(took, 0.95)
                ok &= p95 < API_GOAL_MS
                print(
                    f"{call:6} calls={len(took)}  p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {max(took):6.1f} ms"
                    f"  (goal p95 < {API_GOAL_MS:.0f} ms)"
                )
            shots = Path(args.screenshots)
            shots.mkdir(parents=True, exist_ok=True)
            runs = whole_view(base_url, firmware, args.runs, shots)
            first = statistics.median(r["first_frame_ms"] for r in runs)
            redraw = statistics.median(r["redraw_ms"] for r in runs)
            ok &= first < FRAME_GOAL_MS
            each = ", ".join(f"{r['first_frame_ms']:.0f}" for r in runs)
            print(
                f"whole  nodes={runs[0]['nodes']} edges={runs[0]['edges']}  first interactive frame "
                f"{first:.0f} ms (runs: {each})  "
                f"redraw after a filter change {redraw:.0f} ms  (goal first frame < {FRAME_GOAL_MS:.0f} ms)"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
