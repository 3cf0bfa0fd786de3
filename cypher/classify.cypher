// internal: mark every NEEDED edge used, declared-unused or missing, and add the hidden edges.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(t:Module)
OPTIONAL MATCH (m)-[r:RESOLVES_TO]->(t)
WITH n, collect(DISTINCT r.symbol) AS symbols
SET n.symbols = symbols,
    n.status = CASE WHEN size(symbols) > 0 THEN 'used' ELSE 'declared-unused' END;
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(x:Missing)
SET n.status = 'missing', n.symbols = [];
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(t:Module)
WHERE m.id <> t.id AND NOT coalesce(r.copy, false) AND NOT EXISTS { MATCH (m)-[:NEEDED]->(t) }
WITH m, t, collect(DISTINCT r.symbol) AS symbols
CREATE (m)-[:HIDDEN {soname: coalesce(t.soname, t.name), status: 'hidden', symbols: symbols}]->(t);
