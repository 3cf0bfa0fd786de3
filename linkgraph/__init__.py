"""linkgraph: firmware dependency explorer.

The sub-packages live in the repository's top-level folders (``loader/``, ``cypher/``)
and are mapped under this namespace by ``pyproject.toml``.
"""

__version__ = "0.1.0"
