"""Two firmware of one store compared (``linkgraph diff``): modules, dependency edges, unresolved
references, duplicate providers and licence findings, read from the store (no web framework)."""
