// Neo4j only: generations of one firmware repeat its scope ids, so the scope is looked up in the firmware's live generation (see loader/store/neo4j_store.py).
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
MATCH (c:Scope {firmware: $firmware, id: r.scope})
RETURN m.path AS module, r.symbol AS symbol, r.version AS version, p.path AS provider, c.executables AS executables
ORDER BY module, symbol, provider;
