"""The rows of a scan's bindings: RESOLVES_TO (the largest table, held as ``Columns``), the
symbols other objects take (PROVIDES), the unresolved references (UNRESOLVED), their Symbol nodes,
and the Scope nodes: each set of link maps a binding or reference holds in, stored once."""

from __future__ import annotations

from ...cypher.schema import TABLES, ProvidesRow, ScopeRow, SymbolRow, UnresolvedRow
from ..elf.dynsym import defined_at
from ..model import RelocClass, ScanResult
from .columns import Columns
from .graph_rows import GraphRows, symbol_id


def binding_rows(rows: GraphRows, result: ScanResult, mid: dict[str, str]) -> None:
    """Adds the tables of ``result``'s bindings and unresolved references to ``rows`` (``mid``: each
    module's node id by path)."""
    fw = rows.firmware
    res = result.resolution
    scopes: dict[tuple[str, ...], str] = {}
    by_list: dict[int, str] = {}  # the resolution shares one list between facts of the same link maps

    def scope_of(executables: list[str], keep: bool = False) -> str:
        """Bindings hold in the same sets of link maps again and again: each set is stored once
        (``keep``: a list made here, which may not outlive the call, is not remembered by id)."""
        sid = None if keep else by_list.get(id(executables))
        if sid is None:
            key = tuple(executables)
            sid = scopes.get(key)
            if sid is None:
                sid = scopes[key] = f"{fw[:16]}:scope:{len(scopes)}"
            if not keep:
                by_list[id(executables)] = sid
        return sid

    copied = _copy_relocated(result)
    symbols: dict[str, SymbolRow] = {}
    provides: set[tuple[str, str]] = set()
    resolves = Columns(("from", "to", *TABLES["RESOLVES_TO"].column_names))
    rows.rels[("RESOLVES_TO", "Module", "Module")] = resolves
    add = resolves.append
    sid_of: dict[tuple[str, str | None], str] = {}
    for key, exes in res.bindings.items():
        module, name, version, provider = key
        copy = module != provider and (provider, name) in copied
        interposed, upcall = res.interposed.get(key), res.upcalls.get(key)
        if interposed is None and upcall is None:  # in ResolvesToRow's order
            add(mid[module], mid[provider], name, version, copy, scope_of(exes), False, False)
        else:  # interposition or an upcall under some executables: a row for those, one for the others
            apart = {*(interposed or ()), *(upcall or ())}
            rest = [exe for exe in exes if exe not in apart]
            if rest:
                add(mid[module], mid[provider], name, version, copy, scope_of(rest, keep=True), False, False)
            if interposed:
                add(mid[module], mid[provider], name, version, copy, scope_of(interposed, keep=True), True, False)
            if upcall:
                add(mid[module], mid[provider], name, version, copy, scope_of(upcall, keep=True), False, True)
        if module != provider:  # PROVIDES: what an object offers others (self-use is no dependency)
            sid = sid_of.get((name, version))
            if sid is None:
                sid = sid_of[name, version] = symbol_id(fw, name, version)
                symbols[sid] = {"id": sid, "firmware": fw, "name": name, "version": version}
            provides.add((mid[provider], sid))
    provided: list[ProvidesRow] = [{"from": f, "to": t} for f, t in sorted(provides)]
    rows.rels[("PROVIDES", "Module", "Symbol")] = provided
    unresolved: list[UnresolvedRow] = []
    rows.rels[("UNRESOLVED", "Module", "Symbol")] = unresolved
    for (module, name, version, weak), exes in res.unresolved.items():
        sid = symbol_id(fw, name, version)
        symbols.setdefault(sid, {"id": sid, "firmware": fw, "name": name, "version": version})
        unresolved.append({"from": mid[module], "to": sid, "weak": weak, "scope": scope_of(exes)})
    rows.nodes["Symbol"] = list(symbols.values())
    scope_rows: list[ScopeRow] = [{"id": sid, "firmware": fw, "executables": list(key)} for key, sid in scopes.items()]
    rows.nodes["Scope"] = scope_rows


def _copy_relocated(result: ScanResult) -> set[tuple[str, str]]:
    """(module, symbol) pairs where the module holds a copy of a library's data symbol.

    Aliases at the same address (``program_invocation_name`` beside ``__progname_full``) are
    copies too.
    """
    out = set()
    for m in result.modules:
        syms = m.facts.symbols
        addresses = {
            syms[r.symbol_index].value
            for r in m.facts.references
            if r.reloc_class == RelocClass.COPY and r.symbol_index < len(syms)
        }
        if addresses:
            out.update((m.path, name) for name in defined_at(syms, addresses))
    return out
