"""How fast is the viewer on the whole-/usr/bin root of this machine (or on /usr+/opt)?

Builds (or reuses, see tests/support/hostroot.py) the whole-/usr/bin root, or with ``--root usr-opt``
this machine's /usr and /opt as one root of hard links (bench/usr_opt_root.py, about 3,000 modules),
scans it into a temporary LadybugDB (or uses --db), starts ``linkgraph serve`` on a free loopback
port as a user would, then:

  * asks ``/api/firmware/<id>/file?path=P`` and ``/api/firmware/<id>/graph?path=P`` for every
    module (or --limit N of them, spread over the tree) over one keep-alive HTTP connection, after
    one warm-up pass, and prints p50 / p95 / max per call;
  * opens the whole-firmware view (Cytoscape.js, ELK in a Web Worker) in headless Chromium
    (Debian's, driven by Playwright) --runs times, each in a fresh page, and prints the time to the
    first interactive frame (from the navigation start to the second animation frame after the
    overview was laid out and drawn, as the page measures it; the overview's ELK layout apart), how
    long a redraw takes after a filter change (to the next frame Cytoscape draws), and how long
    the layout of a focus takes (ELK, a module's neighbourhood one hop both ways: /usr/bin/curl
    when the root has it).

Goals: p95 of both API calls under 100 ms on the embedded store; first interactive frame of the
whole-firmware view under 1.5 s on /usr/bin and under 3 s on /usr+/opt; a focus laid out in under
500 ms. The figures depend heavily on the machine's load (another test run on the same cores
doubles or triples them): give the load average with them.

Measured with this script on a quiet 2-core machine (load average under 2), group boxes drawn as
plain nodes beneath the modules:

  /usr/bin, 1,096 modules, 4,026 edges: first interactive frame 1,171 ms (runs 1,382, 1,166, 1,181,
  1,171, 1,160; the data arrive at about 0.2 s, the overview's layout 185 ms); a redraw after a
  filter change 241 ms; focus on curl laid out in 57 ms. API p95: file 12.5 ms, graph 19.3 ms.
  /usr+/opt, 3,186 modules, 9,958 edges: first interactive frame 2,145 ms (runs 2,247, 2,145,
  2,068; overview layout 341 ms); redraw 290 ms; focus on curl 68 ms. API p95 (300 modules): file
  29.1 ms, graph 81.9 ms.
  Every goal holds. With the boxes as Cytoscape compound parents the first frame was 1.6 s on
  /usr/bin on the same quiet machine (without boxes 1.16 s): compound bounds cost about as much as
  drawing everything else. On a machine loaded by other test runs the figures double or triple.

Measured before choosing the libraries, the same data in the same Chromium at given positions
(a standalone page, load average about 3):
  Cytoscape.js: first drawing 0.76-0.88 s (/usr/bin), 2.1-4.3 s (/usr+/opt); redraw on zoom
  32 ms and 37-83 ms.
  sigma.js 3 + graphology (WebGL, rendered in software without a GPU): first drawing 0.37-0.51 s
  and 0.6-0.67 s, but a redraw on zoom 216-260 ms and 484-517 ms, and no compound nodes.
  Layouts (in the ELK worker; dagre on the main thread): ELK layered over the whole /usr/bin graph
  9.3 s, dagre 29 s, ELK layered with compound groups failed (stack overflow); ELK box packing in
  group boxes 0.3-0.4 s (/usr/bin) and 0.86-1.4 s (/usr+/opt); a neighbourhood of 60 modules
  0.2-0.3 s with ELK (dagre 84 ms), 208 modules (the "hidden only" set) 1.2-1.9 s, 426 modules
  4.6-5.5 s. Hence Cytoscape.js for drawing (fast redraws, compound nodes, dashed and dotted edges),
  ELK in a Web Worker for layouts: packing for the overview, layers for focus and isolated sets of
  up to 300 modules.

Usage: python bench/viewer_speed.py [--root host|usr-opt] [--db PATH] [--limit N] [--runs N]
Exit status 0 when the goals hold.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import usr_opt_root
from support import hostroot
from support.browser import ViewerServer, launch_chromium

API_GOAL_MS, FOCUS_GOAL_MS = 100.0, 500.0
FRAME_GOAL_MS = {"host": 1500.0, "usr-opt": 3000.0}
FOCUS_ON = "/usr/bin/curl"


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


def wait_for(page: object, script: str, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(script):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: {page.inner_text('body')[:500]}")  # type: ignore[attr-defined]
        time.sleep(0.01)


def whole_view(base_url: str, firmware: str, runs: int, shots: Path) -> list[dict]:
    results = []
    browser = launch_chromium()
    try:
        for run in range(runs):
            page = browser.context.new_page()
            page.set_viewport_size({"width": 1600, "height": 1000})
            page.goto(f"{base_url}/fw/{firmware}/whole")
            wait_for(page, "document.body.dataset.ready === '1'", "the whole-firmware view did not become ready")
            first, layout, counts = page.evaluate(
                "[linkgraphWhole.firstFrameMs, linkgraphWhole.lastLayoutMs,"
                " [linkgraphWhole.nodes, linkgraphWhole.edges]]"
            )
            before = page.evaluate("linkgraphWhole.frames")
            start = time.perf_counter()
            page.evaluate("linkgraphWhole.setStatus('used', false)")
            wait_for(page, f"linkgraphWhole.frames > {before}", "no frame after a filter change")
            redraw = (time.perf_counter() - start) * 1000
            page.evaluate("linkgraphWhole.setStatus('used', true)")
            if run == 0:
                page.screenshot(path=str(shots / "whole-firmware.png"))
            target = FOCUS_ON if page.evaluate(f"linkgraphWhole.select({json.dumps(FOCUS_ON)})") else None
            if target is None:  # the first program that has dependencies
                target = page.evaluate("linkgraphWhole.visibleEdgeList()[0][0]")
            page.evaluate(f"linkgraphWhole.focus({json.dumps(target)}, 1, 'both')")
            wait_for(
                page, "linkgraphWhole.busy === 0 && linkgraphWhole.mode() === 'focus'", "the focus was not laid out"
            )
            focus = page.evaluate("[linkgraphWhole.lastLayoutMs, linkgraphWhole.visibleNodes()]")
            if run == 0:
                page.screenshot(path=str(shots / "whole-firmware-focus.png"))
            page.close()
            results.append(
                {
                    "first_frame_ms": first,
                    "layout_ms": layout,
                    "redraw_ms": redraw,
                    "nodes": counts[0],
                    "edges": counts[1],
                    "focus_ms": focus[0],
                    "focus_nodes": focus[1],
                    "focus_on": target,
                }
            )
    finally:
        browser.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", choices=["host", "usr-opt"], default="host", help="which root (see above)")
    parser.add_argument("--db", help="an existing LadybugDB with one firmware (default: scan the root)")
    parser.add_argument("--limit", type=int, default=0, help="time only N modules (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="page loads of the whole-firmware view")
    parser.add_argument("--screenshots", default="bench-artifacts", help="folder for the screenshot of the view")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="linkgraph-viewer-bench-") as tmp:
        db = args.db
        if not db:
            root = usr_opt_root.cached_root() if args.root == "usr-opt" else hostroot.cached_host_root()
            db = str(Path(tmp) / "root.lbdb")
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
            focus = statistics.median(r["focus_ms"] for r in runs)
            goal = FRAME_GOAL_MS[args.root]
            ok &= first < goal and focus < FOCUS_GOAL_MS
            each = ", ".join(f"{r['first_frame_ms']:.0f}" for r in runs)
            layout = statistics.median(r["layout_ms"] for r in runs)
            print(
                f"whole  nodes={runs[0]['nodes']} edges={runs[0]['edges']}  first interactive frame "
                f"{first:.0f} ms (runs: {each}; overview layout {layout:.0f} ms)  "
                f"redraw after a filter change {redraw:.0f} ms  focus on {runs[0]['focus_on']} "
                f"({runs[0]['focus_nodes']} modules) laid out in {focus:.0f} ms  "
                f"(goals: first frame < {goal:.0f} ms, focus < {FOCUS_GOAL_MS:.0f} ms)"
            )
            print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
