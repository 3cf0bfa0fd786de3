"""What ``linkgraph diff`` must say, worked out from the two firmware's JSON reports (and the
files' own hashes), without linkgraph's comparison code: docs/diff.md's rules applied to the
report's rows. Each table comes out as a set of hashable rows, like the diff's rows made hashable
by the ``*_rows`` helpers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

Report = dict[str, Any]


def matching(old: Report, new: Report) -> dict[str, str]:
    """Old path -> new path: same path, then a soname carried by one unmatched module on each side."""
    old_paths = {m["path"]: m for m in old["modules"]}
    new_paths = {m["path"]: m for m in new["modules"]}
    renamed = {p: p for p in old_paths if p in new_paths}
    by_soname: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for p, m in old_paths.items():
        if p not in renamed and m["soname"]:
            by_soname[m["soname"]][0].append(p)
    for p, m in new_paths.items():
        if p not in old_paths and m["soname"]:
            by_soname[m["soname"]][1].append(p)
    for olds, news in by_soname.values():
        if len(olds) == 1 and len(news) == 1:
            renamed[olds[0]] = news[0]
    return renamed


def modules(old: Report, new: Report, old_hash: Callable[[str], str], new_hash: Callable[[str], str]) -> dict[str, set]:
    renamed = matching(old, new)
    old_by, new_by = {m["path"]: m for m in old["modules"]}, {m["path"]: m for m in new["modules"]}
    changed = set()
    for o, n in renamed.items():
        diffs = []
        for field, before, after in (
            ("sha256", old_hash(o), new_hash(n)),
            ("soname", old_by[o]["soname"], new_by[n]["soname"]),
            ("licence", old_by[o]["licence"], new_by[n]["licence"]),
            ("package", old_by[o]["package"], new_by[n]["package"]),
        ):
            diffs.append((field, before, after) if before != after else (field, None, None))
        if o != n or any(d[1] != d[2] for d in diffs):
            changed.add((n, o, tuple(diffs)))
    kept = set(renamed.values())
    return {
        "added": {
            (p, m["soname"], new_hash(p), m["licence"], m["package"]) for p, m in new_by.items() if p not in kept
        },
        "removed": {
            (p, m["soname"], old_hash(p), m["licence"], m["package"]) for p, m in old_by.items() if p not in renamed
        },
        "changed": changed,
    }


def module_rows(part: dict[str, list[dict[str, Any]]]) -> dict[str, set]:
    def change(c: dict[str, Any] | None, field: str) -> tuple[str, Any, Any]:
        return (field, None, None) if c is None else (field, c["old"], c["new"])

    fields = ("sha256", "soname", "licence", "package")
    return {
        "added": {(m["path"], m["soname"], m["sha256"], m["licence"], m["package"]) for m in part["added"]},
        "removed": {(m["path"], m["soname"], m["sha256"], m["licence"], m["package"]) for m in part["removed"]},
        "changed": {(m["path"], m["old_path"], tuple(change(m[f], f) for f in fields)) for m in part["changed"]},
    }


def _rename(renamed: dict[str, str]) -> Callable[[str | None], str | None]:
    return lambda p: None if p is None else renamed.get(p, p)


def edges(old: Report, new: Report) -> dict[str, set]:
    n = _rename(matching(old, new))
    before = {(n(e["from"]), e["soname"], n(e["to"])): e for e in old["dependencies"]}
    after = {(e["from"], e["soname"], e["to"]): e for e in new["dependencies"]}
    assert len(before) == len(old["dependencies"]) and len(after) == len(new["dependencies"])

    def row(e: dict[str, Any]) -> tuple:
        return (e["from"], e["soname"], e["to"], e["status"], tuple(e["symbols"]))

    changed = set()
    for key in before.keys() & after.keys():
        b, a = before[key], after[key]
        if (b["status"], b["symbols"]) != (a["status"], a["symbols"]):
            added = tuple(sorted(set(a["symbols"]) - set(b["symbols"])))
            removed = tuple(sorted(set(b["symbols"]) - set(a["symbols"])))
            changed.add((*key, b["status"], a["status"], added, removed))
    return {
        "added": {row(e) for k, e in after.items() if k not in before},
        "removed": {row(e) for k, e in before.items() if k not in after},
        "changed": changed,
    }


def edge_rows(part: dict[str, list[dict[str, Any]]]) -> dict[str, set]:
    def row(e: dict[str, Any]) -> tuple:
        return (e["from"], e["soname"], e["to"], e["status"], tuple(e["symbols"]))

    return {
        "added": {row(e) for e in part["added"]},
        "removed": {row(e) for e in part["removed"]},
        "changed": {
            (e["from"], e["soname"], e["to"], e["old_status"], e["status"], tuple(e["symbols_added"]),
             tuple(e["symbols_removed"]))
            for e in part["changed"]
        },
    }  # fmt: skip


def _new_gone(before: dict, after: dict) -> dict[str, set]:
    return {
        "new": {after[k] for k in after.keys() - before.keys()},
        "gone": {before[k] for k in before.keys() - after.keys()},
    }


def _grouped(entries: Iterable[dict[str, Any]], key: Callable, fact: Callable) -> dict:
    executables: dict[Any, set[str]] = defaultdict(set)
    facts: dict[Any, tuple] = {}
    for e in entries:
        executables[key(e)].add(e["executable"])
        facts[key(e)] = fact(e)
    return {k: (*facts[k], tuple(sorted(executables[k]))) for k in facts}


def unresolved(old: Report, new: Report) -> dict[str, set]:
    n = _rename(matching(old, new))

    def fact(e: dict[str, Any]) -> tuple:
        return (e["module"], e["symbol"], e["version"], e["weak"])

    before = _grouped(old["unresolved"], lambda e: (n(e["module"]), e["symbol"], e["version"]), fact)
    after = _grouped(new["unresolved"], lambda e: (e["module"], e["symbol"], e["version"]), fact)
    return _new_gone(before, after)


def unresolved_rows(part: dict[str, list[dict[str, Any]]]) -> dict[str, set]:
    return {
        w: {(u["module"], u["symbol"], u["version"], u["weak"], tuple(u["executables"])) for u in rows}
        for w, rows in part.items()
    }


def duplicates(old: Report, new: Report) -> dict[str, set]:
    n = _rename(matching(old, new))

    def fact(e: dict[str, Any]) -> tuple:
        return (e["symbol"], tuple(e["providers"]), e["chosen"])

    before = _grouped(old["duplicates"], lambda e: (e["symbol"], tuple(n(p) for p in e["providers"])), fact)
    after = _grouped(new["duplicates"], lambda e: (e["symbol"], tuple(e["providers"])), fact)
    return _new_gone(before, after)


def duplicate_rows(part: dict[str, list[dict[str, Any]]]) -> dict[str, set]:
    return {
        w: {(d["symbol"], tuple(d["providers"]), d["chosen"], tuple(d["executables"])) for d in rows}
        for w, rows in part.items()
    }


_USING = ("used", "hidden")
_SUSPECT = ("incompatible", "unknown")


def finding_keys(report: Report) -> dict[str, set[tuple]]:
    """The licence findings (a)-(d), (f), (g) of one report, by the modules each names (docs/licences.md)."""
    klass = {m["path"]: m["licence_class"] for m in report["modules"]}
    deps = [e for e in report["dependencies"] if e["to"] is not None]
    using = [e for e in deps if e["status"] in _USING]
    found: dict[str, set[tuple]] = {
        "gpl_uses": {(e["from"], e["to"]) for e in using if klass[e["from"]] == "gpl" and klass[e["to"]] in _SUSPECT},
        "lgpl_used": {(e["to"], e["from"]) for e in using if klass[e["to"]] == "lgpl"},
        "declared_only": {
            (e["from"], e["to"])
            for e in deps
            if e["status"] == "declared-unused"
            and (
                (klass[e["from"]] == "gpl" and klass[e["to"]] in _SUSPECT)
                or (klass[e["to"]] == "gpl" and klass[e["from"]] in _SUSPECT)
            )
        },
    }
    # (a): paths of 1-4 used/hidden edges from a suspect module to the only GPL module on them,
    # no module twice, kept when one link map holds every module of the path
    out: dict[str, set[str]] = defaultdict(set)
    for e in using:
        out[e["from"]].add(e["to"])
    maps = [set(lm["objects"]) for lm in report["link_maps"]]
    paths: set[tuple] = set()

    def walk(path: list[str]) -> None:
        for nxt in sorted(out[path[-1]]):
            if nxt in path:
                continue
            if klass[nxt] == "gpl":
                if any(set(path) | {nxt} <= objects for objects in maps):
                    paths.add((path[0], nxt, *path[1:], nxt))
            elif len(path) < 4:
                walk([*path, nxt])

    for start, cls in klass.items():
        if cls in _SUSPECT:
            walk([start])
    found["gpl_used_by"] = paths
    # (f), (g): the components the report says a module carries inside it (docs/identify.md)
    inside = [(m, c) for m in report["modules"] for c in m.get("contains", [])]
    found["gpl_contained"] = {
        (m["path"], c["component"], c["version"])
        for m, c in inside
        if m["licence_class"] in _SUSPECT and c["licence_class"] == "gpl"
    }
    found["lgpl_static"] = {
        (m["path"], c["component"], c["version"]) for m, c in inside if m["static"] and c["licence_class"] == "lgpl"
    }
    return found


def findings(old: Report, new: Report) -> dict[str, dict[str, set[tuple]]]:
    """Per kind, the keys ``new`` (in NEW's paths) and ``gone`` (in OLD's)."""
    n = _rename(matching(old, new))
    before, after = finding_keys(old), finding_keys(new)
    return {
        kind: {
            "new": {k for k in after[kind] if k not in {tuple(map(n, o)) for o in before[kind]}},
            "gone": {o for o in before[kind] if tuple(map(n, o)) not in after[kind]},
        }
        for kind in after
    }


def finding_rows(part: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, dict[str, set[tuple]]]:
    keys: dict[str, Callable[[dict[str, Any]], tuple]] = {
        "gpl_used_by": lambda r: (r["module"], r["gpl_module"], *(h["to"] for h in r["hops"])),
        "gpl_uses": lambda r: (r["module"], r["uses"]),
        "declared_only": lambda r: (r["module"], r["library"]),
        "lgpl_used": lambda r: (r["library"], r["module"]),
        "gpl_contained": lambda r: (r["module"], r["component"], r["version"]),
        "lgpl_static": lambda r: (r["module"], r["component"], r["version"]),
    }
    return {kind: {w: {keys[kind](r) for r in rows} for w, rows in p.items()} for kind, p in part.items()}
