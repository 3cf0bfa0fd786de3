"""The identification's child process: ``python -m linkgraph.loader.identify.child HOST_DIR ROOT_NAME``.

Reads the device paths to match, NUL separated, until the end of its input; writes one JSON line
per path: ``[path, hits]`` (each hit as ``Hit``'s fields in order) or ``[path, null, reason]``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import astuple

from ..rootfs import RootFS
from .matching import match_paths


def main(argv: list[str]) -> int:
    root = RootFS(argv[0], argv[1])
    paths = [p.decode("utf-8", "surrogateescape") for p in sys.stdin.buffer.read().split(b"\0") if p]
    out = sys.stdout
    for path in paths:
        hits, problems = match_paths(root, [path])
        if problems:
            row: list[object] = [path, None, problems[0].message]
        else:
            row = [path, [astuple(h) for h in hits[path]]]
        out.write(json.dumps(row, ensure_ascii=True) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
