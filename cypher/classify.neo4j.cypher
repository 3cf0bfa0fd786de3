// internal: Neo4j only: classify.cypher's classification, with the bindings of each pair of modules gathered once, then their NEEDED edges looked up (Neo4j expands a module's bindings once per NEEDED edge otherwise, and checks every binding for a NEEDED edge: a quarter slower on the 1k host root).
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(:Module)
SET n.status = 'declared-unused', n.symbols = [];
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(t:Module)
WITH m, t, collect(DISTINCT r.symbol) AS symbols
MATCH (m)-[n:NEEDED]->(t)
SET n.symbols = symbols, n.status = 'used';
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(x:Missing)
SET n.status = 'missing', n.symbols = [];
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(t:Module)
WHERE NOT coalesce(r.copy, false)
WITH m, t, collect(DISTINCT r.symbol) AS symbols
WHERE m.id <> t.id AND NOT EXISTS { MATCH (m)-[:NEEDED]->(t) }
CREATE (m)-[:HIDDEN {soname: coalesce(t.soname, t.name), status: 'hidden', symbols: symbols}]->(t);
