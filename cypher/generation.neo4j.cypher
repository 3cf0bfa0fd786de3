// internal: Neo4j only: the generation key the live graph of firmware $firmware is stored under (its nodes' firmware; an older linkgraph's graph: the id itself), see loader/store/neo4j_store.py.
MATCH (f:Firmware {id: $firmware})
RETURN coalesce(f.generation, f.id) AS generation;
