"""Which bindings are interposition rather than dependency (``Status.INTERPOSED``, docs/graph.md).

An object O binds its reference to a symbol to provider P. When P is not in O's own dependency
tree (O and the breadth-first closure of its ``DT_NEEDED`` entries, as this link map resolved
them) and an object of that tree, O included, also satisfies the lookup, O would have found the
symbol without P: P only comes first in the lookup scope (a program that defines ``malloc``, a
program that defines a symbol libc defines or can do without). O does not depend on P. When no
object of O's tree defines it, O needs P although it does not declare it: a hidden dependency
(a plugin calling its host program, the article's ``libapcfg`` using ``libutility``).

The tree is O's in each link map (a ``DT_RPATH`` of the executable can change where O's names
resolve), so a binding may be interposition under some executables and not under others.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import BindingKey, LinkMap, Resolution
from .flavours import LoaderFlavour

# (object path, flavour) -> (symbol name, version) -> every object of the root that satisfies it
Definers = Callable[[str, LoaderFlavour], dict[tuple[str, str | None], set[str]]]


class _Trees:
    """Each object's own dependency tree, per link map, worked out when first asked for."""

    def __init__(self, link_maps: list[LinkMap]) -> None:
        self.needed: dict[str, dict[str, list[str]]] = {}
        for lm in link_maps:
            edges: dict[str, list[str]] = {}
            for edge in lm.needed:
                if edge.target is not None:
                    edges.setdefault(edge.source, []).append(edge.target)
            self.needed[lm.executable] = edges
        self._trees: dict[tuple[str, str], frozenset[str]] = {}

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


def find_interposed(
    resolution: Resolution, flavours: dict[str, LoaderFlavour], definers: Definers
) -> dict[BindingKey, list[str]]:
    """The bindings of ``resolution`` that are interposition, each with the executables (link
    maps) in which it is (``flavours``: each link map's loader; ``definers``: the binder's)."""
    trees = _Trees(resolution.link_maps)
    outside: dict[tuple[str, str, int], list[str]] = {}  # (O, P, id of exes) -> exes where P is outside O's tree
    index: dict[tuple[str, str], dict[tuple[str, str | None], set[str]]] = {}
    found: dict[BindingKey, list[str]] = {}
    for key, exes in resolution.bindings.items():
        module, name, version, provider = key
        if module == provider:
            continue
        shared = (module, provider, id(exes))
        candidates = outside.get(shared)
        if candidates is None:
            candidates = outside[shared] = [
                exe
                for exe in exes
                if provider not in trees.direct(exe, module) and provider not in trees.tree(exe, module)
            ]
        interposed = []
        for exe in candidates:
            flavour = flavours[exe]
            by_name = index.get((module, flavour.key))
            if by_name is None:
                by_name = index[module, flavour.key] = definers(module, flavour)
            if not trees.tree(exe, module).isdisjoint(by_name.get((name, version), ())):
                interposed.append(exe)
        if interposed:
            found[key] = interposed
    return found
