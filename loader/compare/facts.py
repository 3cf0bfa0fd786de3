"""Per-firmware facts compared as sets, new or gone: unresolved references, duplicate providers
and the licence findings (a)-(d), (f) and (g). Each fact has a key made of paths; the old firmware's paths are
carried over to the new one's by the module matching before the keys are compared."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..report import licence_findings as findings
from ..store.base import GraphStore
from .modules import Matching

Row = dict[str, Any]
Keyed = dict[tuple[Any, ...], Row]
Rename = Callable[[str | None], str | None]


def _same(path: str | None) -> str | None:
    return path


def unresolved(store: GraphStore, firmware: str, rename: Rename = _same) -> Keyed:
    """Unresolved references by (module, symbol, version), with every executable they hold in."""
    found: Keyed = {}
    for module, symbol, version, weak, executables in store.stream("unresolved", {"firmware": firmware}):
        row = found.setdefault(
            (rename(module), symbol, version),
            {"module": module, "symbol": symbol, "version": version, "weak": bool(weak), "executables": []},
        )
        row["executables"] = sorted({*row["executables"], *(executables or [])})
    return found


def duplicates(store: GraphStore, firmware: str, rename: Rename = _same) -> Keyed:
    """Symbols defined by several objects of a link map, by (symbol, providers in load order)."""
    found: Keyed = {}
    for symbol, providers, chosen, executables in store.stream("duplicates", {"firmware": firmware}):
        key = (symbol, tuple(rename(p) for p in providers))
        row = found.setdefault(
            key, {"symbol": symbol, "providers": list(providers), "chosen": chosen, "executables": []}
        )
        row["executables"] = sorted({*row["executables"], *(executables or [])})
    return found


# each licence finding's identity: the modules it is about (docs/licences.md)
_FINDING_KEYS: dict[str, Callable[[Row, Rename], tuple[Any, ...]]] = {
    "gpl_used_by": lambda r, n: (n(r["module"]), n(r["gpl_module"]), *(n(h["to"]) for h in r["hops"])),
    "gpl_uses": lambda r, n: (n(r["module"]), n(r["uses"])),
    "declared_only": lambda r, n: (n(r["module"]), n(r["library"])),
    "lgpl_used": lambda r, n: (n(r["library"]), n(r["module"])),
    "gpl_contained": lambda r, n: (n(r["module"]), r["component"], r["version"]),
    "lgpl_static": lambda r, n: (n(r["module"]), r["component"], r["version"]),
}
_FINDINGS: dict[str, Callable[[GraphStore, str], list[Row]]] = {
    "gpl_used_by": findings.gpl_used_by,
    "gpl_uses": findings.gpl_uses,
    "declared_only": findings.declared_only,
    "lgpl_used": findings.lgpl_used,
    "gpl_contained": findings.gpl_contained,
    "lgpl_static": findings.lgpl_static,
}
FINDINGS = tuple(_FINDINGS)


def licence_findings(store: GraphStore, firmware: str, kind: str, rename: Rename = _same) -> Keyed:
    """The findings of one ``kind`` ((a)-(d), (f), (g): ``FINDINGS``) of one firmware, by the modules they name."""
    return {_FINDING_KEYS[kind](row, rename): row for row in _FINDINGS[kind](store, firmware)}


def new_and_gone(old: Keyed, new: Keyed, order: Callable[[Row], Any]) -> dict[str, list[Row]]:
    """The rows whose key is only in ``new`` (``new``) and only in ``old`` (``gone``), sorted."""
    return {
        "new": sorted((row for key, row in new.items() if key not in old), key=order),
        "gone": sorted((row for key, row in old.items() if key not in new), key=order),
    }


def by_keys(*keys: str) -> Callable[[Row], tuple[Any, ...]]:
    """A sort key of a row's fields, None as empty text and lists as tuples."""

    def order(row: Row) -> tuple[Any, ...]:
        return tuple(_sortable(row[k]) for k in keys)

    return order


def _sortable(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Iterable) and not isinstance(value, str):
        return tuple(_sortable(v) for v in value)
    return value


def renamer(matching: Matching) -> Rename:
    return matching.new_path
