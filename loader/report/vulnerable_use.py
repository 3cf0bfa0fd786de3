"""Which programs really bind a function of a vulnerable component (docs/identify.md, "Vulnerable
use"): the named query ``vulnerable-use`` for one rule, and a file of rules, one per advisory.

A rule names a component (as the identification names it: ``openssl``), the first version that
is not affected (``version-below``) and the symbols the advisory's fix touches. Versions are
compared by their keys (``identify.version_order``), made when the graph is written; the query's
``below_key`` is the key of ``version-below``, made here.

A rules file is JSON: ``{"rules": [{"id": "CVE-2016-6309", "component": "openssl",
"version-below": "1.1.0b", "symbols": ["SSL_read"]}, …]}`` (or the list alone). Nothing is
fetched: the user converts an OSV or NVD export they downloaded (docs/identify.md says how).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import QueryError
from ..identify.version_order import version_key
from ..store.base import GraphStore
from ..store.queries import load_query

QUERY = "vulnerable-use"
BELOW = "version-below"  # the parameter users give; the query compares its key
MAX_RULES_BYTES = 64 * 1024 * 1024  # a rules file is the user's own; still, it is read whole


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    component: str
    below: str
    symbols: tuple[str, ...]


def query_values(values: dict[str, Any]) -> dict[str, Any]:
    """The query's parameters from the user's: ``version-below`` becomes ``below_key``."""
    out = dict(values)
    below = out.pop(BELOW, None)
    if below is not None:
        if not isinstance(below, str) or not below.strip():
            raise QueryError(f"--param {BELOW}: a version, e.g. 1.0.2l")
        out["below_key"] = version_key(below)
    return out


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise QueryError(f"{where}: {key!r} must be a non-empty string")
    return value


def parse_rules(text: str, where: str) -> list[Rule]:
    """The rules of a rules file's text; a malformed file is one ``QueryError`` naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QueryError(f"{where}: not JSON ({exc})") from None
    entries = data.get("rules") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise QueryError(f'{where}: expected {{"rules": [...]}} or a list of rules')
    rules = []
    for number, entry in enumerate(entries, 1):
        at = f"{where}, rule {number}"
        if not isinstance(entry, dict):
            raise QueryError(f"{at}: a rule is an object")
        symbols = entry.get("symbols")
        if not isinstance(symbols, list) or not symbols or not all(isinstance(s, str) and s for s in symbols):
            raise QueryError(f"{at}: 'symbols' must be a non-empty list of names")
        rule_id = entry.get("id")
        rules.append(
            Rule(
                str(rule_id) if rule_id is not None else f"rule {number}",
                _text(entry, "component", at),
                _text(entry, BELOW, at),
                tuple(symbols),
            )
        )
    return rules


def read_rules(path: Path) -> list[Rule]:
    try:
        if path.stat().st_size > MAX_RULES_BYTES:
            raise QueryError(f"{path}: larger than {MAX_RULES_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError(f"{path}: cannot be read ({exc})") from None
    return parse_rules(text, str(path))


def rule_rows(store: GraphStore, rules: list[Rule]) -> list[dict[str, Any]]:
    """The query's rows for every symbol of every rule, each row with its rule's id and symbol."""
    query = load_query(QUERY, store.engine)
    rows = []
    for rule in rules:
        for symbol in rule.symbols:
            values = query_values({"component": rule.component, BELOW: rule.below, "symbol": symbol})
            rows += ({"rule": rule.id, "symbol": symbol, **row} for row in store.run_query(query, values))
    return rows
