"""The sections of the JSON report (``linkgraph-report/1``), each an iterator of its entries in
the report's order, read from the graph store as they are written out.

Bindings and unresolved references are stored once, with the set of link maps they hold in (a
``Scope``); the report lists them per executable. That per-executable form is made here while
streaming, one executable at a time: what is held is each distinct fact once (interned strings)
and one executable's entries, never the expanded list. Everything is made from named queries, so
either store gives the same report.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..dlopen.rows import decode_bindings
from ..licences.facts import NO_FACT
from ..store.base import GraphStore
from .hardening import hardening_by_module
from .identities import components, contained_by_module
from .licence_coverage import licence_coverage
from .licence_findings import licence_findings
from .source_findings import source_findings
from .vendor_code import origin_entry

SCHEMA = "linkgraph-report/1"
Entry = dict[str, Any]


def firmware_header(store: GraphStore, firmware: str) -> Entry:
    """The report's ``firmware`` object: name, hash and (when recorded) where the root came from."""
    info = next(f for f in store.firmware_ids() if f["id"] == firmware)
    return {
        "name": info["name"],
        "sha256": info["sha256"],
        **({"source": json.loads(info["source"])} if info.get("source") else {}),
    }


def section(store: GraphStore, firmware: str, name: str) -> Iterator[Entry]:
    """The entries of one section, in order."""
    return _MAKERS[name](store, {"firmware": firmware})


def single(store: GraphStore, firmware: str, name: str) -> Entry | None:
    """A section that is one object, not a list (``licence_coverage``, ``licence_findings``: the
    findings as the viewer shows them, docs/licences.md); None for the others."""
    if name == "licence_coverage":
        found = licence_coverage(store, firmware)
        kept = ("modules", "without_licence_fact", "unclassified", "statement", "to_review")
        return {k: found[k] for k in (*kept, "vendor_code", "unknown_origin", "origin_statement")}
    if name == "licence_findings":
        return licence_findings(store, firmware)
    if name == "source_check":
        return source_findings(store, firmware)
    return None


def _modules(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    """Each module with its licence fact, its own identification (``identity``, None when nothing
    identified it), the components found inside it (``contains``, docs/identify.md), whose vendor
    code it is (``origin``, None when nothing shows it) and its hardening facts (``hardening``, None
    for a kernel module, docs/graph.md)."""
    contains = contained_by_module(components(store, p["firmware"]))
    hardening = hardening_by_module(store, p["firmware"])
    for path, kind, soname, machine, elf_class, endian, interp, needed, aliases, *licence in store.stream("modules", p):
        lic, lic_class, source, certainty, package, static, identity, origin, origin_evidence = licence
        yield {
            "path": path,
            "kind": kind,
            "soname": soname,
            "machine": machine,
            "class": elf_class,
            "endian": endian,
            "interpreter": interp,
            "needed": list(needed or []),
            "aliases": sorted(aliases or []),
            "licence": lic,
            "licence_class": lic_class or "unknown",
            "licence_source": source or NO_FACT,
            "licence_certainty": certainty,
            "package": package,
            "static": None if static is None else bool(static),
            "identity": json.loads(identity) if identity else None,
            "contains": contains.get(path, []),
            "origin": origin_entry(origin, origin_evidence),
            "hardening": hardening.get(path),
        }


def _dependencies(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    """One entry per edge; as many as the graph has edges (not bindings), sorted in memory."""
    entries = []
    for src, soname, to, status, symbols, rule, directory, via, tried, found_by in store.stream("dependencies", p):
        entries.append(
            {
                "from": src,
                "soname": soname,
                "to": to,
                "status": status,
                "symbols": sorted(set(symbols or [])),
                "rule": rule,
                "directory": directory,
                "via": via,
                "tried": list(tried or []),
                "found_by": json.loads(found_by) if found_by else None,
            }
        )
    entries.sort(key=lambda d: (d["from"], d["soname"], d["to"] or "", d["status"]))
    return iter(entries)


def _dlopen(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    """One entry per dlopen edge (docs/dlopen.md), in (from, to) order."""
    for src, to, certainty, found_in, evidence, host, at_start, bindings, hidden in store.stream("dlopen-edges", p):
        yield {
            "from": src,
            "to": to,
            "certainty": certainty,
            "found_in": found_in,
            "evidence": evidence,
            "host": host,
            "loaded_at_start": bool(at_start),
            "bindings": [
                {"module": m, "symbol": s, "version": v, "provider": pr} for m, s, v, pr in decode_bindings(bindings)
            ],
            "hidden": sorted(hidden or []),
        }


def _link_maps(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    for executable, _flavour, objects, missing in store.stream("link-maps", p):
        yield {"executable": executable, "objects": list(objects), "missing": list(missing or [])}


@dataclass(frozen=True)
class Scoped:
    """A section listed per executable from facts stored once: ``pairs`` gives (executable, fact)
    in the report's order, each fact a tuple of interned values in ``fields`` order (the same
    tuple object for every executable it holds in, so a writer can render it once)."""

    fields: tuple[str, ...]
    pairs: Iterator[tuple[str, tuple[Any, ...]]]


def scoped(store: GraphStore, firmware: str, name: str) -> Scoped | None:
    """The per-executable form of ``bindings``, ``unresolved`` and ``duplicates``; None for others."""
    maker = _SCOPED.get(name)
    return maker(store, {"firmware": firmware}) if maker else None


def _per_executable(
    facts: dict[Any, list[tuple[Any, ...]]], holders: Iterable[tuple[Any, list[str]]], key: Callable[[Any], Any]
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Facts grouped by the key of the set of link maps they hold in, and those sets: each
    executable (sorted) with the facts that hold in its link map, sorted by ``key``."""
    groups_of: dict[str, list[Any]] = defaultdict(list)
    for group, executables in holders:
        if group in facts:
            for exe in executables:
                groups_of[sys.intern(exe)].append(group)
    for exe in sorted(groups_of):
        found = [fact for group in groups_of.pop(exe) for fact in facts[group]]
        found.sort(key=key)
        for fact in found:
            yield exe, fact


def _interned(row: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(sys.intern(v) if isinstance(v, str) else v for v in row)


def _by_scope(store: GraphStore, p: dict[str, Any], name: str) -> dict[Any, list[tuple[Any, ...]]]:
    by_scope: dict[Any, list[tuple[Any, ...]]] = defaultdict(list)
    for *fact, scope in store.stream(name, p):
        by_scope[scope].append(_interned(fact))
    return by_scope


def _binding_order(f: tuple[Any, ...]) -> tuple[Any, ...]:  # module, symbol, version, provider
    return (f[0], f[1], f[2] or "", f[3])


def _unresolved_order(f: tuple[Any, ...]) -> tuple[Any, ...]:  # module, symbol, version
    return (f[0], f[1], f[2] or "")


def _duplicate_order(f: tuple[Any, ...]) -> tuple[Any, ...]:  # symbol, providers
    return (f[0], f[1])


def _bindings(store: GraphStore, p: dict[str, Any]) -> Scoped:
    facts = _by_scope(store, p, "report-bindings")
    return Scoped(
        ("module", "symbol", "version", "provider"), _per_executable(facts, store.stream("scopes", p), _binding_order)
    )


def _unresolved(store: GraphStore, p: dict[str, Any]) -> Scoped:
    facts = _by_scope(store, p, "report-unresolved")
    for group in facts.values():
        group[:] = [(module, symbol, version, bool(weak)) for module, symbol, version, weak in group]
    return Scoped(
        ("module", "symbol", "version", "weak"), _per_executable(facts, store.stream("scopes", p), _unresolved_order)
    )


def _duplicates(store: GraphStore, p: dict[str, Any]) -> Scoped:
    facts: dict[int, list[tuple[Any, ...]]] = {}
    holders: list[tuple[int, list[str]]] = []
    for i, (symbol, providers, chosen, executables) in enumerate(store.stream("duplicates", p)):
        facts[i] = [(sys.intern(symbol), _interned(providers), sys.intern(chosen))]
        holders.append((i, [sys.intern(e) for e in executables]))
    return Scoped(("symbol", "providers", "chosen"), _per_executable(facts, holders, _duplicate_order))


def _entries(maker: Callable[[GraphStore, dict[str, Any]], Scoped]) -> Callable[..., Iterator[Entry]]:
    def entries(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
        found = maker(store, p)
        for exe, fact in found.pairs:
            entry: Entry = {"executable": exe}
            for field, value in zip(found.fields, fact, strict=True):
                entry[field] = list(value) if isinstance(value, tuple) else value
            yield entry

    return entries


def _problems(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    for path, severity, code, message in store.stream("problems", p):
        yield {"path": path, "severity": severity, "code": code, "message": message}


def _kernel_links(store: GraphStore, p: dict[str, Any]) -> Iterator[Entry]:
    """Kernel modules' links (docs/kernel.md): module -> module, or -> "vmlinux", the kernel."""
    for module, target, state, symbols, gpl_only in store.stream("kernel-links", p):
        yield {
            "module": module,
            "target": target,
            "state": state,
            "symbols": sorted(symbols or []),
            "gpl_only": sorted(gpl_only or []),
        }


_MAKERS: dict[str, Callable[[GraphStore, dict[str, Any]], Iterator[Entry]]] = {
    "modules": _modules,
    "dependencies": _dependencies,
    "dlopen": _dlopen,
    "link_maps": _link_maps,
    "bindings": _entries(_bindings),
    "unresolved": _entries(_unresolved),
    "duplicates": _entries(_duplicates),
    "problems": _problems,
    "kernel_links": _kernel_links,
}
_SCOPED = {"bindings": _bindings, "unresolved": _unresolved, "duplicates": _duplicates}
