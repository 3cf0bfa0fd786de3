"""A scan result as rows for the graph store: one list of typed rows (the ``TypedDict`` of each
table in ``cypher.schema``) per node or edge table.

Both stores write exactly these rows (LadybugDB by bulk ``COPY``, Neo4j by ``UNWIND $rows``),
so the two graphs are the same by construction.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import posixpath
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cypher.schema import (
    EDGES,
    NODES,
    ContainsRow,
    DuplicateRow,
    FirmwareRow,
    LinkMapRow,
    MissingRow,
    ModuleRow,
    NeededRow,
    ProblemRow,
    ProvidesRow,
    ResolvesToRow,
    ScopeRow,
    SymbolRow,
    UnresolvedRow,
)
from ..dlopen.rows import dlopen_rows
from ..elf.dynsym import defined_at
from ..licences.classes import licence_class
from ..licences.facts import NO_FACT
from ..model import LicenceFact, Module, RelocClass, ScanResult
from .kernel_rows import kernel_rows
from .printable import make_printable, printable

NODE_TABLES = tuple(t.name for t in NODES)
REL_TABLES = tuple(t.name for t in EDGES if t.written)


Rows = Sequence[Mapping[str, Any]]  # the rows of one table: its TypedDict's, or as a store read them


@dataclass
class GraphRows:
    """What a store writes for one firmware: rows per node table and per (edge table, end tables)."""

    firmware: str
    nodes: dict[str, Rows] = field(default_factory=dict)
    # (table, from-label, to-label) -> rows with "from" and "to" ids
    rels: dict[tuple[str, str, str], Rows] = field(default_factory=dict)
    # True: a store may empty each table's rows once it has taken them (the scan writes them once)
    disposable: bool = False


def key_part(name: str) -> str:
    """An injective, ASCII form of a name from the firmware, for node ids: the name itself when it
    is ASCII without ``\\``, ``%`` or ``@``, else ``%`` and its exact bytes percent-encoded. (Displayed
    names escape undecodable bytes as ``\\xNN``, so a raw byte and a literal backslash look
    alike there; their ids never do.)"""
    if name.isascii() and "\\" not in name and "%" not in name and "@" not in name:
        return name
    return "%" + urllib.parse.quote(os.fsencode(name), safe="")


def module_id(firmware: str, path: str) -> str:
    return f"{firmware[:16]}:{key_part(path)}"


def symbol_id(firmware: str, name: str, version: str | None) -> str:
    return f"{firmware[:16]}:{key_part(name)}@{key_part(version or '')}"


def build_rows(result: ScanResult) -> GraphRows:
    fw = result.firmware_sha256
    rows = GraphRows(fw)
    mid = {m.path: module_id(fw, m.path) for m in result.modules}
    firmware: list[FirmwareRow] = [
        {
            "id": fw,
            "name": result.firmware_name,
            "sha256": fw,
            "scanned_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "source": json.dumps(result.source, sort_keys=True) if result.source else None,
        }
    ]
    rows.nodes["Firmware"] = firmware
    unknown = LicenceFact(None, NO_FACT, None)
    modules = [_module_row(fw, mid[m.path], m, result.licences.get(m.path, unknown)) for m in result.modules]
    rows.nodes["Module"] = modules
    contains: list[ContainsRow] = [{"from": fw, "to": mid[m.path]} for m in result.modules]
    rows.rels[("CONTAINS", "Firmware", "Module")] = contains

    res = result.resolution
    needed: dict[tuple[str, str, str | None], NeededRow] = {}
    missing: dict[str, MissingRow] = {}
    found_by: dict[tuple[str, str, str | None], dict[tuple, list[str]]] = {}
    for lm in res.link_maps:
        for pos, edge in enumerate(lm.needed):
            key = (edge.source, edge.soname, edge.target)
            row = needed.get(key)
            how = (edge.rule, edge.directory, edge.via, tuple(edge.tried or ()))
            if row is None:
                if edge.target is None:
                    to = f"{fw}:missing:{key_part(edge.soname)}"
                    missing.setdefault(to, {"id": to, "firmware": fw, "soname": edge.soname})
                else:
                    to = mid[edge.target]
                row = needed[key] = {
                    "from": mid[edge.source],
                    "to": to,
                    "soname": edge.soname,
                    "position": pos,
                    "executables": [],
                    "status": None,
                    "symbols": [],
                    "rule": edge.rule.value if edge.rule else None,
                    "directory": edge.directory,
                    "via": edge.via,
                    "tried": list(edge.tried or ()),
                    "found_by": None,
                }
                found_by[key] = {how: []}
            if not row["executables"] or row["executables"][-1] != lm.executable:
                row["executables"].append(lm.executable)
                found_by[key].setdefault(how, []).append(lm.executable)  # the first occurrence per link map
    for key, hows in found_by.items():
        if len(hows) > 1:  # link maps disagree (RPATH chains): every way, with the link maps it holds in
            needed[key]["found_by"] = json.dumps(
                [
                    {
                        "rule": rule.value if rule else None,
                        "directory": printable(directory),
                        "via": printable(via),
                        "tried": printable(list(tried)),
                        "executables": printable(exes),
                    }
                    for (rule, directory, via, tried), exes in hows.items()
                ]
            )
    _position_by_declaration(result, needed)
    rows.nodes["Missing"] = list(missing.values())
    rows.rels[("NEEDED", "Module", "Module")] = [r for k, r in needed.items() if k[2] is not None]
    rows.rels[("NEEDED", "Module", "Missing")] = [r for k, r in needed.items() if k[2] is None]
    link_maps: list[LinkMapRow] = [
        {
            "id": f"{fw}:linkmap:{lm.executable}",
            "firmware": fw,
            "executable": lm.executable,
            "flavour": lm.flavour.value,
            "objects": lm.objects,
            "missing": lm.missing,
        }
        for lm in res.link_maps
    ]
    rows.nodes["LinkMap"] = link_maps

    scopes: dict[tuple[str, ...], str] = {}
    by_list: dict[int, str] = {}  # the resolution shares one list between facts of the same link maps

    def scope_of(executables: list[str]) -> str:
        """Bindings hold in the same sets of link maps again and again: each set is stored once."""
        sid = by_list.get(id(executables))
        if sid is None:
            key = tuple(executables)
            sid = scopes.get(key)
            if sid is None:
                sid = scopes[key] = f"{fw[:16]}:scope:{len(scopes)}"
            by_list[id(executables)] = sid
        return sid

    copied = _copy_relocated(result)
    symbols: dict[str, SymbolRow] = {}
    provides: set[tuple[str, str]] = set()
    resolves: list[ResolvesToRow] = []
    rows.rels[("RESOLVES_TO", "Module", "Module")] = resolves
    sid_of: dict[tuple[str, str | None], str] = {}
    for (module, name, version, provider), exes in res.bindings.items():
        resolves.append(
            {
                "from": mid[module],
                "to": mid[provider],
                "symbol": name,
                "version": version,
                "copy": module != provider and (provider, name) in copied,
                "scope": scope_of(exes),
            }
        )
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
    duplicates: list[DuplicateRow] = [
        {
            "id": f"{fw}:dup:{i}",
            "firmware": fw,
            "symbol": name,
            "providers": list(providers),
            "chosen": chosen,
            "executables": exes,
        }
        for i, ((name, providers, chosen), exes) in enumerate(res.duplicates.items())
    ]
    rows.nodes["Duplicate"] = duplicates
    problems: list[ProblemRow] = [
        {
            "id": f"{fw}:problem:{i}",
            "firmware": fw,
            "path": p.path,
            "severity": p.severity.value,
            "message": p.message,
            "code": p.code.value,
        }
        for i, p in enumerate(result.problems)
    ]
    rows.nodes["Problem"] = problems
    nodes, rels = kernel_rows(result, fw, mid, set(missing), key_part)
    rows.nodes["Kernel"] = nodes["Kernel"]
    rows.nodes["Missing"] = [*rows.nodes["Missing"], *nodes["Missing"]]
    rows.rels.update(rels)
    rows.rels[("DLOPEN", "Module", "Module")] = dlopen_rows(result.dlopen, mid)
    make_printable(rows)
    return rows


def _module_row(fw: str, module_id: str, m: Module, fact: LicenceFact) -> ModuleRow:
    return {
        "id": module_id,
        "firmware": fw,
        "path": m.path,
        "name": posixpath.basename(m.path),
        "root": m.root,
        "kind": m.facts.kind.value,
        "soname": m.facts.soname,
        "machine": m.facts.machine,
        "class": m.facts.elf_class,
        "endian": m.facts.endian,
        "osabi": m.facts.osabi,
        "interpreter": m.facts.interpreter,
        "needed": list(m.facts.needed),
        "aliases": list(m.aliases),
        "size": m.facts.size,
        "sha256": m.facts.sha256,
        "licence": fact.licence,
        "licence_source": fact.source,
        "licence_certainty": fact.certainty.value if fact.certainty else None,
        "package": fact.package,
        "licence_class": licence_class(fact.licence).value,
        "sha1": m.facts.sha1,
    }


def _position_by_declaration(result: ScanResult, needed: dict[tuple[str, str, str | None], NeededRow]) -> None:
    """A NEEDED edge's position is the index of its name in the declaring object's DT_NEEDED."""
    order = {m.path: m.facts.needed for m in result.modules}
    for (source, soname, _target), row in needed.items():
        names = order.get(source, [])
        row["position"] = names.index(soname) if soname in names else -1


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
