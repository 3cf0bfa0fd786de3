"""Bind every module's undefined symbols the way the kernel and depmod do, and draw the edges.

kernel/module/main.c ``resolve_symbol`` -> ``find_symbol`` looks a name up in the kernel's own
export tables first, then in the loaded modules' tables; a module whose licence is not
GPL-compatible is not offered GPL-only exports (``gplok``). Which module is "loaded" is, for a
static view, depmod's choice (kmod tools/depmod.c): modules sorted by their line in
``modules.order`` (the others after them, in the order found), each symbol owned by the first
module that exports it; a module's dependency on the kernel itself is not written by depmod.

An edge's status follows docs/graph.md: ``used`` (the module names the provider in ``depends=``
and binds to it; every kernel edge is ``used``, the kernel is never named), ``hidden`` (binds
to a module its ``depends=`` does not name), ``declared-unused`` (named, nothing binds),
``missing`` (named, and no module of that name is in the root).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model import Status
from .licence import is_gpl_compatible
from .model import KERNEL, BoundSymbol, ExportKind, KernelExports, KernelGraph, KernelModule, ModuleEdge


def provider_order(modules: Sequence[KernelModule], order: Mapping[str, int]) -> list[KernelModule]:
    """depmod's order: listed modules by their ``modules.order`` line, then the rest by path."""
    return sorted(modules, key=lambda m: (0, order[m.path], "") if m.path in order else (1, 0, m.path))


def owners(modules: Sequence[KernelModule]) -> dict[str, tuple[KernelModule, ExportKind]]:
    """Each exported name -> the first module (in the order given) exporting it, and its kind."""
    out: dict[str, tuple[KernelModule, ExportKind]] = {}
    for module in modules:
        for export in module.exports:
            out.setdefault(export.name, (module, export.kind))
    return out


def resolve(
    modules: Sequence[KernelModule], kernel: KernelExports, order: Mapping[str, int] | None = None
) -> KernelGraph:
    ordered = provider_order(modules, order or {})
    owner = owners(ordered)
    by_name = {m.name: m for m in reversed(ordered)}  # the first of a name wins, as in depmod
    graph = KernelGraph(list(ordered), kernel)
    paths = {m.path: m for m in ordered}
    for module in ordered:
        bound: dict[str, list[BoundSymbol]] = {}
        for ref in module.undefined:
            kind = kernel.exports.get(ref.name)
            if kind is not None:
                bound.setdefault(KERNEL, []).append(BoundSymbol(ref.name, kind))
                continue
            found = owner.get(ref.name)
            if found is not None and found[0] is not module:
                bound.setdefault(found[0].path, []).append(BoundSymbol(ref.name, found[1]))
            elif not ref.weak:
                graph.unresolved.setdefault(module.path, []).append(ref.name)
        named = set(module.depends)
        for target, symbols in bound.items():
            declared = target == KERNEL or paths[target].name in named  # the kernel is never named
            status = Status.USED if declared else Status.HIDDEN
            graph.edges.append(ModuleEdge(module.path, target, status, sorted(symbols, key=lambda s: s.name)))
        bound_names = {paths[t].name for t in bound if t != KERNEL}
        for name in module.depends:
            if name in bound_names:
                continue
            target_module = by_name.get(name)
            if target_module is None:
                graph.edges.append(ModuleEdge(module.path, name, Status.MISSING))
            else:
                graph.edges.append(ModuleEdge(module.path, target_module.path, Status.DECLARED_UNUSED))
    return graph


def gpl_only_used(graph: KernelGraph) -> dict[str, list[str]]:
    """Modules whose licence the kernel treats as GPL-incompatible that bind to GPL-only
    exports (which the kernel would refuse them), with those symbols."""
    licences = {m.path: m.licence for m in graph.modules}
    out: dict[str, list[str]] = {}
    for edge in graph.edges:
        if edge.gpl_only and not is_gpl_compatible(licences.get(edge.source)):
            out.setdefault(edge.source, []).extend(edge.gpl_only)
    return {k: sorted(v) for k, v in out.items()}


def module_dependencies(graph: KernelGraph) -> dict[str, set[str]]:
    """module -> the modules its symbols bind to (used and hidden edges): depmod's direct deps."""
    deps: dict[str, set[str]] = {m.path: set() for m in graph.modules}
    for edge in graph.edges:
        if edge.symbols and edge.target != KERNEL:
            deps[edge.source].add(edge.target)
    return deps
