"""Which bindings are upcalls rather than dependency (``Status.UPCALL``, docs/graph.md).

An object O binds its reference to a symbol to provider P. When P is not in O's own dependency
tree (O and the breadth-first closure of its ``DT_NEEDED`` entries, as this link map resolved
them) while O is in P's own tree, P loads O: O calls back into a module that depends on it, and
the dependency runs from P to O, not from O to P. The C runtime's reference to ``main``
(uClibc's libc has ``UND WEAK main``), uClibc's libc calling libpthread's hooks (libpthread
needs libc), a library calling a function its host program defines: none of these objects uses
the module it calls, and no licence path runs through such a binding.

Interposition is decided first (``interposition``): a binding that is interposition in a link map
is not an upcall there. A library opened with ``dlopen`` is no part of its program's tree at
start-up, and its bindings are its DLOPEN edge's (``dlopen``): a plugin calling its host stays a
use. The trees are O's and P's in each link map, so a binding may be an upcall under some
executables and not under others.
"""

from __future__ import annotations

from ..model import BindingKey, Resolution
from .interposition import DependencyTrees


def find_upcalls(resolution: Resolution, trees: DependencyTrees) -> dict[BindingKey, list[str]]:
    """The bindings of ``resolution`` that are upcalls, each with the executables (link maps) in
    which it is; none where ``resolution.interposed`` says the binding is interposition."""
    by_pair: dict[tuple[str, str, int], list[str]] = {}  # (O, P, id of exes) -> exes where P's tree loads O
    found: dict[BindingKey, list[str]] = {}
    for key, exes in resolution.bindings.items():
        module, _name, _version, provider = key
        if module == provider:
            continue
        shared = (module, provider, id(exes))
        upcall = by_pair.get(shared)
        if upcall is None:
            outside = trees.outside(module, provider, exes)
            upcall = by_pair[shared] = [exe for exe in outside if module in trees.tree(exe, provider)]
        interposed = resolution.interposed.get(key)
        if interposed and upcall:
            apart = set(interposed)
            upcall = [exe for exe in upcall if exe not in apart]
        if upcall:
            found[key] = upcall
    return found
