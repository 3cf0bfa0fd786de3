#!/usr/bin/env bash
# Install linkgraph, then analyse this machine's own programs the way a firmware root would be:
# every dynamically linked program of /usr/bin with its libraries, copied into a root folder
# (cached), scanned into the embedded graph store linkgraph.lbdb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "quickstart: building a root filesystem from this machine's /usr/bin (cached after the first run)"
root="$(.venv/bin/python bench/host_root.py)"
status=0
.venv/bin/linkgraph scan "$root" --db linkgraph.lbdb --name "$(hostname)-usr-bin" || status=$?
echo "next: .venv/bin/linkgraph query --list"
echo "      .venv/bin/linkgraph query hidden --db linkgraph.lbdb"
echo "      .venv/bin/linkgraph report --db linkgraph.lbdb --format json > report.json"
echo "      .venv/bin/linkgraph report --db linkgraph.lbdb --format html -o compliance.html"
echo "      .venv/bin/linkgraph serve --db linkgraph.lbdb     # the viewer on http://127.0.0.1:8750/"
exit "$status"
