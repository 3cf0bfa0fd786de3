"""A scan result as rows for the graph store: one list of typed rows (the ``TypedDict`` of each
table in ``cypher.schema``) per node or edge table.

Both stores write exactly these rows (LadybugDB by bulk ``COPY``, Neo4j by ``UNWIND $rows``),
so the two graphs are the same by construction.
"""

from __future__ import annotations

import datetime as _dt
import json
import posixpath

from ...cypher.schema import (
    ContainsRow,
    DuplicateRow,
    FirmwareRow,
    LinkMapRow,
    MissingRow,
    ModuleRow,
    NeededRow,
    ProblemRow,
)
from ..dlopen.rows import dlopen_rows
from ..freed_memory import give_back
from ..identify import ModuleIdentity
from ..licences.classes import licence_class
from ..licences.facts import NO_FACT
from ..model import LicenceFact, Module, ScanResult
from .binding_rows import binding_rows
from .graph_rows import GraphRows, key_part, module_id
from .hardening_rows import hardening_columns
from .identity_rows import component_rows, identity_columns, origin_columns
from .kernel_rows import kernel_rows
from .printable import make_printable, printable


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
    modules = [
        _module_row(fw, mid[m.path], m, result.licences.get(m.path, unknown), result.identities.get(m.path))
        for m in result.modules
    ]
    rows.nodes["Module"] = modules
    contains: list[ContainsRow] = [
        {"from": fw, "to": mid[m.path], "certainty": None, "evidence": None} for m in result.modules
    ]
    rows.rels[("CONTAINS", "Firmware", "Module")] = contains
    component_rows(rows, result.identities, mid)

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
                    "programs": [],
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

    binding_rows(rows, result, mid)
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
    nodes, rels = kernel_rows(result, fw, mid, set(missing), key_part)
    rows.nodes["Kernel"] = nodes["Kernel"]
    rows.nodes["Missing"] = [*rows.nodes["Missing"], *nodes["Missing"]]
    rows.rels.update(rels)
    make_printable(rows)

    def last_tables() -> None:
        """The problems and the dlopen edges: known once the scan's last stage has run."""
        result.complete()
        give_back()  # what the last stage held (the binder, the parsed files) is free now
        last = GraphRows(fw)
        last.nodes["Problem"] = _problem_rows(fw, result)
        last.rels[("DLOPEN", "Module", "Module")] = dlopen_rows(result.dlopen, mid)
        make_printable(last)
        rows.nodes.update(last.nodes)
        rows.rels.update(last.rels)

    rows.later = last_tables
    if result.pending is None:
        rows.complete()
    return rows


def _problem_rows(fw: str, result: ScanResult) -> list[ProblemRow]:
    return [
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


def _module_row(fw: str, module_id: str, m: Module, fact: LicenceFact, found: ModuleIdentity | None) -> ModuleRow:
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
        "static": m.facts.static,
        **identity_columns(found),  # type: ignore[typeddict-item]
        **hardening_columns(m.facts),  # type: ignore[typeddict-item]
        **origin_columns(found),  # type: ignore[typeddict-item]
    }


def _position_by_declaration(result: ScanResult, needed: dict[tuple[str, str, str | None], NeededRow]) -> None:
    """A NEEDED edge's position is the index of its name in the declaring object's DT_NEEDED."""
    order = {m.path: m.facts.needed for m in result.modules}
    for (source, soname, _target), row in needed.items():
        names = order.get(source, [])
        row["position"] = names.index(soname) if soname in names else -1
