"""Libraries a module may load at run time with dlopen: candidate edges with their certainty, and
the bindings of such a library in the link map of the program that loads it (docs/dlopen.md)."""

from .edges import DlopenCertainty, DlopenEdge, FoundIn
from .find import dlopen_edges, imports_dlopen

__all__ = ["DlopenCertainty", "DlopenEdge", "FoundIn", "dlopen_edges", "imports_dlopen"]
