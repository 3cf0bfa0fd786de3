#!/usr/bin/env bash
# Install linkgraph, then analyse this machine's own programs as a firmware root would be:
# every dynamically linked program of /usr/bin with its libraries, copied into a root folder,
# scanned into the embedded graph store linkgraph.lbdb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
root="${LINKGRAPH_DEMO_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/linkgraph/host-root}"
.venv/bin/python bench/host_root.py "$root"
.venv/bin/linkgraph scan "$root" --db linkgraph.lbdb --name "$(hostname)-usr-bin"
echo "next: .venv/bin/linkgraph query --list; .venv/bin/linkgraph report --db linkgraph.lbdb > report.json"
