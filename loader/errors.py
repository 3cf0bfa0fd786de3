"""One exception hierarchy for linkgraph.

A ``LinkgraphError`` inside the pipeline becomes a recorded ``Problem`` and the scan goes on;
at the command line it becomes a one-line message and a non-zero exit code.
"""


class LinkgraphError(Exception):
    """Base of every error linkgraph raises on purpose."""


class ElfError(LinkgraphError):
    """A file with an ELF magic that cannot be parsed (truncated, corrupt, hostile)."""


class RootfsError(LinkgraphError):
    """A problem walking a root filesystem: symlink loops, links leaving the root, unreadable files."""


class LdconfigError(LinkgraphError):
    """A corrupt ld.so.cache or an unreadable ld.so.conf."""


class StoreError(LinkgraphError):
    """The graph store cannot be opened, written or queried."""


class QueryError(LinkgraphError):
    """An unknown named query or a bad query parameter."""


class NotFoundError(LinkgraphError):
    """A file, edge or firmware asked for by name is not in the graph (a 404 in the viewer)."""


class DiagramError(LinkgraphError):
    """A diagram cannot be drawn: Graphviz is missing, refuses the DOT or takes too long."""
