"""The diff as titled tables of text cells: what the text and HTML forms (and the viewer's compare
page) show, the same rows as the JSON form."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..store.printable import visible
from .modules import COMPARED


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list | tuple):
        return visible(" ".join(map(str, value))) or "-"
    return visible(str(value))


def _change(value: dict[str, Any] | None, short: bool = False) -> str:
    if value is None:
        return ""
    old, new = (v[:12] if short and v else v for v in (value["old"], value["new"]))
    return f"{_text(old)} -> {_text(new)}"


def _table(title: str, columns: Iterable[str], rows: Iterable[Iterable[Any]]) -> Table:
    return Table(title, tuple(columns), [tuple(_text(c) for c in row) for row in rows])


def tables(diff: dict[str, Any]) -> list[Table]:
    """Every table of the diff, in the order the text and HTML forms show them."""
    mods, deps = diff["modules"], diff["dependencies"]
    module_columns = ("path", "kind", "soname", "sha256", "licence", "package")
    found = [
        _table(
            "Modules added",
            module_columns,
            ([m[c][:12] if c == "sha256" else m[c] for c in module_columns] for m in mods["added"]),
        ),
        _table(
            "Modules removed",
            module_columns,
            ([m[c][:12] if c == "sha256" else m[c] for c in module_columns] for m in mods["removed"]),
        ),
        _table(
            "Modules changed",
            ("path", "was", "matched by", *COMPARED),
            (
                (
                    m["path"],
                    "" if m["old_path"] == m["path"] else m["old_path"],
                    m["matched_by"],
                    *(_change(m[c], c == "sha256") for c in COMPARED),
                )
                for m in mods["changed"]
            ),
        ),
    ]
    edge_columns = ("from", "soname", "to", "status", "symbols")
    found += [
        _table("Dependency edges added", edge_columns, ([e[c] for c in edge_columns] for e in deps["added"])),
        _table("Dependency edges removed", edge_columns, ([e[c] for c in edge_columns] for e in deps["removed"])),
        _table(
            "Dependency edges changed",
            ("from", "soname", "to", "status", "symbols added", "symbols removed"),
            (
                (
                    e["from"],
                    e["soname"],
                    e["to"],
                    e["status"] if e["old_status"] == e["status"] else f"{e['old_status']} -> {e['status']}",
                    e["symbols_added"],
                    e["symbols_removed"],
                )
                for e in deps["changed"]
            ),
        ),
    ]
    for which in ("new", "gone"):
        found.append(
            _table(
                f"Unresolved references {which}",
                ("module", "symbol", "version", "weak", "executables"),
                (
                    (u["module"], u["symbol"], u["version"], "weak" if u["weak"] else "strong", u["executables"])
                    for u in diff["unresolved"][which]
                ),
            )
        )
    for which in ("new", "gone"):
        found.append(
            _table(
                f"Duplicate providers {which}",
                ("symbol", "providers", "chosen", "executables"),
                ((d["symbol"], d["providers"], d["chosen"], d["executables"]) for d in diff["duplicates"][which]),
            )
        )
    for kind, part in diff["licence_findings"].items():
        for which in ("new", "gone"):
            found.append(_finding_table(kind, which, part[which]))
    return found


_FINDING_TITLES = {
    "gpl_used_by": "(a) GPL-only code used by incompatible or unknown code",
    "gpl_uses": "(b) GPL modules using incompatible or unknown code",
    "declared_only": "(c) declared-only links between GPL and incompatible or unknown code",
    "lgpl_used": "(d) LGPL libraries used dynamically",
    "gpl_contained": "(f) GPL components inside incompatible or unknown modules",
    "lgpl_static": "(g) LGPL components linked statically",
}


def _finding_table(kind: str, which: str, rows: list[dict[str, Any]]) -> Table:
    title = f"Licence findings {which}: {_FINDING_TITLES[kind]}"
    if kind == "gpl_used_by":
        return _table(
            title,
            ("module", "licence", "GPL module", "path"),
            (
                (r["module"], r["licence"], r["gpl_module"], " -> ".join([r["module"], *(h["to"] for h in r["hops"])]))
                for r in rows
            ),
        )
    if kind == "gpl_uses":
        return _table(
            title,
            ("module", "licence", "uses", "its licence", "status"),
            ((r["module"], r["licence"], r["uses"], r["uses_licence"], r["status"]) for r in rows),
        )
    if kind == "declared_only":
        return _table(
            title,
            ("module", "licence", "library", "its licence"),
            ((r["module"], r["licence"], r["library"], r["library_licence"]) for r in rows),
        )
    if kind in ("gpl_contained", "lgpl_static"):
        return _table(
            title,
            ("module", "licence", "component inside", "its licence"),
            ((r["module"], r["licence"], f"{r['component']} {r['version'] or ''}".strip(), r["component_licence"])
             for r in rows),
        )  # fmt: skip
    return _table(
        title,
        ("library", "licence", "used by", "its licence", "status"),
        ((r["library"], r["library_licence"], r["module"], r["licence"], r["status"]) for r in rows),
    )
