// Neo4j only: generations of one firmware repeat its scope ids, so the scope is looked up in the firmware's live generation (see loader/store/neo4j_store.py).
MATCH (m:Module {firmware: $firmware, path: $path})-[u:UNRESOLVED]->(s:Symbol)
MATCH (c:Scope {firmware: $firmware, id: u.scope})
RETURN s.name AS symbol, s.version AS version, u.weak AS weak, c.executables AS executables
ORDER BY symbol, version;
