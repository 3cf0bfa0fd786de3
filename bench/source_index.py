"""How fast, and in how much memory, is a vendor's GPL source release indexed (docs/sources.md)?

Indexes the TL-MR3020 v1 release (``../shared/sources/TL-MR3020_V1_GPL.tar.xz``, 545 MB and ~43,000
files unpacked; LINKGRAPH_SOURCES_DIR for another folder) in a child process without the cache, then
reads it again through the cache in another one. Prints each one's wall time and peak RSS, and the
index's time as a ratio to reading the archive alone (decompressing every member), which depends
less on the machine. The issue's bounds: at most 60 s and 1 GiB on the project's 2-CPU machine.

Usage: python bench/source_index.py [RELEASE]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT = Path(os.environ.get("LINKGRAPH_SOURCES_DIR", REPO.parent / "shared" / "sources")) / "TL-MR3020_V1_GPL.tar.xz"

CHILD = """
import json, resource, sys, tarfile, time
from pathlib import Path
what, release = sys.argv[1], Path(sys.argv[2])
start = time.perf_counter()
if what == "read":
    with tarfile.open(release, "r|*") as tar:
        for info in tar:
            stream = tar.extractfile(info) if info.isfile() else None
            if stream is not None:
                stream.read()
    counts = {}
else:
    from linkgraph.loader.sources.cache import load_index
    index, cached = load_index(release, use_cache=True)
    counts = {"files": len(index.files), "packages": len(index.packages), "sources": len(index.sources),
              "literals": len(index.literals), "functions": len(index.functions),
              "link_lines": len(index.link_lines), "cached": cached, "problems": len(index.problems)}
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **counts}))
"""


def run(what: str, release: Path, env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(release)], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    release = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with tempfile.TemporaryDirectory(prefix="linkgraph-source-index-") as cache:
        env = {**os.environ, "LINKGRAPH_CACHE": cache}
        start = time.perf_counter()
        read = run("read", release, env)
        first = run("index", release, env)
        again = run("index", release, env)
        total = time.perf_counter() - start
    print(f"release: {release.name} ({release.stat().st_size / 2**20:.0f} MiB packed)")
    print(f"reading every member:   {read['seconds']:6.1f} s  peak {read['peak_mib']:6.0f} MiB")
    print(
        f"indexing (no cache):    {first['seconds']:6.1f} s  peak {first['peak_mib']:6.0f} MiB  "
        f"({first['seconds'] / read['seconds']:.2f} x reading): {first['files']:,} files, "
        f"{first['packages']} packages, "
        f"{first['sources']:,} C sources, {first['literals']:,} literal segments, {first['functions']:,} functions, "
        f"{first['link_lines']} link lines, {first['problems']} problems"
    )
    print(
        f"from the cache:         {again['seconds']:6.1f} s  peak {again['peak_mib']:6.0f} MiB  "
        f"(cached: {again['cached']})"
    )
    print(f"(bench total {total:.0f} s)")
    within = first["seconds"] <= 60 and first["peak_mib"] <= 1024 and again["cached"]
    print("within 60 s and 1 GiB, cache reused" if within else "OUTSIDE the bounds (60 s, 1 GiB, cache reused)")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
