"""Licence finding (a) from the classified edges, at a cost bounded by the graph (docs/licences.md).

A row is a path of 1 to ``MAX_HOPS`` used or hidden edges (``NEEDED`` or ``HIDDEN``) through distinct
modules, from a module of licence class ``incompatible`` or ``unknown`` to the first module of class
``gpl``, with the programs in whose process every hop holds: the intersection of its edges'
``programs`` lists, kept when not empty. One row per path of edges (two ``NEEDED`` edges between the
same modules make two rows, as the path search in Cypher did).

The search grows each path hop by hop and carries the programs its hops hold in so far as one
integer (a bit per program), so a path no program holds is dropped where it stops holding, and a
path that cannot reach a GPL module within the hops left is never grown (each module's distance to
the nearest GPL module is known first). What it costs is then bounded by the paths that some
program's own process graph holds, not by paths times programs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...cypher.schema import FindingRow

MAX_HOPS = 4
STARTS = frozenset({"incompatible", "unknown"})
GPL = "gpl"
HOLDING = frozenset({"used", "hidden"})
KIND = "gpl-used-by"


@dataclass(frozen=True, slots=True)
class ModuleFacts:
    """What a row says of one module."""

    path: str
    licence: str | None
    klass: str | None


@dataclass(slots=True)
class EdgeGraph:
    """The used and hidden edges leaving modules that are not GPL, each with its programs as bits."""

    modules: dict[str, ModuleFacts] = field(default_factory=dict)
    out: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)  # source -> (target, status, bits)
    programs: list[str] = field(default_factory=list)  # bit i is programs[i], in sorted order

    @classmethod
    def build(
        cls,
        modules: Iterable[tuple[str, str, str | None, str | None]],
        edges: Iterable[tuple[str, str, str, list[str] | None]],
    ) -> EdgeGraph:
        """From (id, path, licence, class) per module and (source id, target id, status, programs)
        per edge. Edges of another status, from a GPL module or holding in no program are left out:
        no row goes through them."""
        graph = cls(modules={m: ModuleFacts(path, licence, klass) for m, path, licence, klass in modules})
        kept = [
            (src, dst, status, programs or [])
            for src, dst, status, programs in edges
            if status in HOLDING and programs and src in graph.modules and dst in graph.modules
            and graph.modules[src].klass != GPL
        ]  # fmt: skip
        graph.programs = sorted({p for *_, programs in kept for p in programs})
        bit = {p: 1 << i for i, p in enumerate(graph.programs)}
        for src, dst, status, programs in kept:
            bits = 0
            for p in programs:
                bits |= bit[p]
            graph.out.setdefault(src, []).append((dst, status, bits))
        return graph

    def names(self, bits: int) -> list[str]:
        """The programs of ``bits``, sorted."""
        found: list[str] = []
        while bits:
            low = bits & -bits
            found.append(self.programs[low.bit_length() - 1])
            bits ^= low
        return found

    def distances(self) -> dict[str, int]:
        """Each module's fewest hops to a GPL module (through modules that are not GPL), up to MAX_HOPS."""
        into: dict[str, list[str]] = {}
        for src, hops in self.out.items():
            for dst, _status, _bits in hops:
                into.setdefault(dst, []).append(src)
        dist = {m: 0 for m, facts in self.modules.items() if facts.klass == GPL}
        queue = deque(dist)
        while queue:
            current = queue.popleft()
            if dist[current] >= MAX_HOPS:
                continue
            for src in into.get(current, ()):
                if src not in dist:  # sources are never GPL (their edges were left out)
                    dist[src] = dist[current] + 1
                    queue.append(src)
        return dist


def finding_rows(firmware: str, graph: EdgeGraph) -> Iterator[FindingRow]:
    """Finding (a)'s rows of ``firmware`` (its key in the store), one per path."""
    dist = graph.distances()
    everyone = (1 << len(graph.programs)) - 1
    modules = graph.modules

    def walk(path: list[str], statuses: list[str], held: int) -> Iterator[tuple[list[str], list[str], int]]:
        for target, status, bits in graph.out.get(path[-1], ()):
            here = held & bits
            if not here or target in path:
                continue
            if modules[target].klass == GPL:
                yield [*path, target], [*statuses, status], here
            elif len(path) + dist.get(target, MAX_HOPS + 1) <= MAX_HOPS:
                yield from walk([*path, target], [*statuses, status], here)

    for start in sorted(graph.out):
        first = modules[start]
        if first.klass not in STARTS or start not in dist:
            continue
        for ids, statuses, bits in walk([start], [], everyone):
            hops = [modules[m].path for m in ids]
            last = modules[ids[-1]]
            yield {
                "id": f"{firmware}:a:{'>'.join(hops)}",
                "firmware": firmware,
                "kind": KIND,
                "module": first.path,
                "licence": first.licence,
                "class": first.klass or "",
                "gpl_module": last.path,
                "gpl_licence": last.licence,
                "hops": hops,
                "statuses": statuses,
                "programs": graph.names(bits),
            }


def read_graph(stream: Callable[[str], Iterable[tuple[Any, ...]]]) -> EdgeGraph:
    """The edge graph from a store: ``stream(name)`` runs the named query for the firmware and gives
    its rows as tuples (``finding-a-modules`` read whole before ``finding-a-edges`` starts)."""
    modules = [(m, path, licence, klass) for m, path, licence, klass in stream("finding-a-modules")]
    return EdgeGraph.build(modules, ((s, t, status, programs) for s, t, status, programs in stream("finding-a-edges")))


def batches(rows: Iterable[FindingRow], size: int) -> Iterator[list[FindingRow]]:
    """The rows in lists of at most ``size``."""
    batch: list[FindingRow] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
