#!/usr/bin/env bash
# The checks every change must pass before its tests run: formatting, lint and types.
#   bash scripts/gates.sh      (after scripts/setup.sh --test has made .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin
echo "gates: ruff format --check"
$py/ruff format --check --quiet .
echo "gates: ruff check (rules in pyproject.toml)"
$py/ruff check --quiet .
# The type checker is basedpyright (pyright's checks, with Node.js in its wheel: nothing is fetched
# when it runs). It reads the packages as they are installed: the repository's folders are mapped
# under the linkgraph namespace by pyproject.toml, which relative imports such as `from .. import x`
# follow only in the installed layout. So the gate installs a copy (no dependencies) and checks that.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
if ! $py/python -m pip install --quiet --no-deps --no-compile --target "$tree" . >"$tree.log" 2>&1; then
    cat "$tree.log"; echo "gates: could not install a copy of linkgraph for pyright"; exit 1
fi
rm -f "$tree.log"
echo "gates: basedpyright (pyright, standard mode) on the installed linkgraph package"
$py/basedpyright --pythonpath "$py/python" --project pyproject.toml "$tree/linkgraph"
