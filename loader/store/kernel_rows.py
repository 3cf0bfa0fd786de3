"""Kernel modules' links as graph rows: a ``Kernel`` node per kernel version and ``KERNEL_LINK``
edges (module -> module, module -> kernel, module -> a ``Missing`` module name), as
``loader.kmod`` resolved them. Their ``state`` is the kernel's own rule's answer (docs/kernel.md),
written as it is: unlike a dynamic object's ``NEEDED`` edges, nothing is left to classify."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...cypher.schema import KernelLinkRow, KernelRow, MissingRow
from ..kmod.model import KERNEL, KernelGraph, version_of
from ..model import ScanResult

Nodes = dict[str, list[Any]]
Rels = dict[tuple[str, str, str], list[Any]]


def kernel_rows(
    result: ScanResult, fw: str, mid: Mapping[str, str], known: set[str], key_part: Callable[[str], str]
) -> tuple[Nodes, Rels]:
    """The kernel rows of one scan (``mid``: module path -> Module node id; ``known``: the
    Missing node ids already written, grown here). An edge whose module is not a Module node of
    the scan (an unreadable ELF file) is left out."""
    kernels: list[KernelRow] = []
    to_module: list[KernelLinkRow] = []
    to_kernel: list[KernelLinkRow] = []
    to_missing: list[KernelLinkRow] = []
    missing: list[MissingRow] = []
    graphs: list[KernelGraph] = result.kernel
    for graph in graphs:
        version = next((v for v in (version_of(m.path) for m in graph.modules) if v), "")
        kid = f"{fw}:kernel:{key_part(version)}"
        kernels.append(
            {
                "id": kid,
                "firmware": fw,
                "version": version,
                "source": graph.kernel.source.value,
                "exports_from": graph.kernel.path,
                "detail": graph.kernel.detail,
                "exports": len(graph.kernel.exports),
            }
        )
        licences = {m.path: m.licence for m in graph.modules}
        for edge in graph.edges:
            if edge.source not in mid:
                continue
            row: KernelLinkRow = {
                "from": mid[edge.source],
                "to": "",
                "state": edge.status.value,
                "bound": [s.name for s in edge.symbols],
                "gpl_only": edge.gpl_only,
                "licence": licences.get(edge.source),
            }
            if edge.target == KERNEL:
                to_kernel.append({**row, "to": kid})
            elif edge.target in mid:
                to_module.append({**row, "to": mid[edge.target]})
            elif not edge.target.startswith("/"):  # a depends= name no module of the root has
                to = f"{fw}:missing-module:{key_part(edge.target)}"
                if to not in known:
                    known.add(to)
                    missing.append({"id": to, "firmware": fw, "soname": edge.target})
                to_missing.append({**row, "to": to})
    nodes: Nodes = {"Kernel": kernels, "Missing": missing}
    rels: Rels = {
        ("KERNEL_LINK", "Module", "Module"): to_module,
        ("KERNEL_LINK", "Module", "Kernel"): to_kernel,
        ("KERNEL_LINK", "Module", "Missing"): to_missing,
    }
    return nodes, rels
