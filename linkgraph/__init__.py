"""linkgraph: firmware dependency explorer.

The sub-packages live in the repository's top-level folders (``loader/``: the pipeline and the
read side, ``cypher/``: the queries and the schema, ``viewer/``: the web viewer) and are mapped
under this namespace by ``pyproject.toml``; ``cli`` (this folder) is the command above them all.
"""

__version__ = "0.1.0"
