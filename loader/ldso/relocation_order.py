"""The order a link map's objects are relocated in, which decides STB_GNU_UNIQUE providers."""

from __future__ import annotations

from ..model import ElfFacts, LinkMap


def relocation_order(link_map: LinkMap, objects: list[ElfFacts]) -> list[ElfFacts]:
    """The order glibc relocates a link map in: dependencies first, the executable last.

    ``_dl_sort_maps`` (depth-first, the default since glibc 2.35) sorts the objects after the
    executable so that each comes before its dependencies; relocation walks that list backwards.
    Only STB_GNU_UNIQUE symbols care: the first relocation that finds one fixes its provider.
    """
    by_path = {o.path: o for o in objects}
    deps: dict[str, list[str]] = {}
    for edge in link_map.needed:
        if edge.target is not None:
            deps.setdefault(edge.source, []).append(edge.target)
    main = objects[0].path
    visited: set[str] = set()
    finished: list[str] = []
    for obj in reversed(objects[1:]):  # a post-order depth-first walk, with a stack (chains are long)
        if obj.path in visited:
            continue
        visited.add(obj.path)
        stack = [(obj.path, iter(deps.get(obj.path, ())))]
        while stack:
            path, pending = stack[-1]
            for dep in pending:
                if dep not in visited and dep != main:
                    visited.add(dep)
                    stack.append((dep, iter(deps.get(dep, ()))))
                    break
            else:
                stack.pop()
                finished.append(path)
    return [by_path[p] for p in finished if p in by_path] + [objects[0]]
