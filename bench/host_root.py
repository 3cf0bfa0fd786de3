"""Build a root filesystem from this machine: every dynamically linked program of /usr/bin with
the libraries it loads and the ld.so configuration, symlinks kept (see tests/support/hostroot.py).

    python bench/host_root.py            # build or reuse the cached root, print its path
    python bench/host_root.py --limit 50 # only the first 50 programs

The root is cached under $XDG_CACHE_HOME/linkgraph-tests (or $LINKGRAPH_TEST_CACHE) and rebuilt
when the host's files change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import hostroot


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="only this many programs of /usr/bin")
    args = parser.parse_args()
    root = hostroot.cached_host_root(limit=args.limit)
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
