"""The Cypher of both stores: the named queries and the classification (``*.cypher`` package
data, read by ``linkgraph.loader.store.queries``), and the schema declared once (``schema``),
from which each store's tables, constraints and bulk statements derive (Neo4j's in
``neo4j_schema``). No Cypher text is written anywhere else."""
