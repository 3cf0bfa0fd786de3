"""Which bindings are interposition rather than dependency (``Status.INTERPOSED``, docs/graph.md).

An object O binds its reference to a symbol to provider P. When P is not in O's own dependency
tree (O and the breadth-first closure of its ``DT_NEEDED`` entries, as this link map resolved
them) and an object of that tree, O included, also satisfies the lookup, O would have found the
symbol without P: P only comes first in the lookup scope (a program that defines ``malloc``, a
program that defines a symbol libc defines or can do without). O does not depend on P. When no
object of O's tree defines it, O needs P although it does not declare it: a hidden dependency
(the article's ``libapcfg`` using ``libutility``), unless P's own tree loads O, when O calls back
into a module that depends on it (an upcall, ``upcalls``: decided after this).

The tree is O's in each link map (a ``DT_RPATH`` of the executable can change where O's names
resolve), so a binding may be interposition under some executables and not under others.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import BindingKey, LinkMap, Resolution
from .flavours import LoaderFlavour

# (object path, flavour) -> (symbol name, version) -> every object of the root that satisfies it
Definers = Callable[[str, LoaderFlavour], dict[tuple[str, str | None], set[str]]]


class DependencyTrees:
    """Each object's own dependency tree (the object and the breadth-first closure of its
    ``DT_NEEDED`` entries as the link map resolved them), per link map, worked out when first asked for."""

    def __init__(self, link_maps: list[LinkMap]) -> None:
        self.needed: dict[str, dict[str, list[str]]] = {}
        for lm in link_maps:
            edges: dict[str, list[str]] = {}
            for edge in lm.needed:
                if edge.target is not None:
                    edges.setdefault(edge.source, []).append(edge.target)
            self.needed[lm.executable] = edges
        self._trees: dict[tuple[str, str], frozenset[str]] = {}
        self._outside: dict[tuple[str, str, int], list[str]] = {}

    def direct(self, exe: str, obj: str) -> list[str]:
        return self.needed.get(exe, {}).get(obj, [])

    def tree(self, exe: str, obj: str) -> frozenset[str]:
        key = (exe, obj)
        found = self._trees.get(key)
        if found is None:
            edges, seen, queue = self.needed.get(exe, {}), {obj}, [obj]
            for current in queue:  # breadth first; the queue grows while it is read
                for target in edges.get(current, ()):
                    if target not in seen:
                        seen.add(target)
                        queue.append(target)
            found = self._trees[key] = frozenset(seen)
        return found

    def outside(self, module: str, provider: str, exes: list[str]) -> list[str]:
        """The executables of ``exes`` in whose link map ``provider`` is not in ``module``'s own tree
        (``exes``: a list the resolution shares between the bindings of the same link maps, so the
        answer is kept by its id while the resolution lives)."""
        shared = (module, provider, id(exes))
        found = self._outside.get(shared)
        if found is None:
            found = self._outside[shared] = [
                exe
                for exe in exes
                if provider not in self.direct(exe, module) and provider not in self.tree(exe, module)
            ]
        return found


def find_interposed(
    resolution: Resolution, flavours: dict[str, LoaderFlavour], definers: Definers, trees: DependencyTrees | None = None
) -> dict[BindingKey, list[str]]:
    """The bindings of ``resolution`` that are interposition, each with the executables (link
    maps) in which it is (``flavours``: each link map's loader; ``definers``: the binder's;
    ``trees``: the link maps' dependency trees, when the caller shares them)."""
    trees = trees or DependencyTrees(resolution.link_maps)
    index: dict[tuple[str, str], dict[tuple[str, str | None], set[str]]] = {}
    found: dict[BindingKey, list[str]] = {}
    for key, exes in resolution.bindings.items():
        module, name, version, provider = key
        if module == provider:
            continue
        interposed = []
        for exe in trees.outside(module, provider, exes):
            flavour = flavours[exe]
            by_name = index.get((module, flavour.key))
            if by_name is None:
                by_name = index[module, flavour.key] = definers(module, flavour)
            if not trees.tree(exe, module).isdisjoint(by_name.get((name, version), ())):
                interposed.append(exe)
        if interposed:
            found[key] = interposed
    return found
