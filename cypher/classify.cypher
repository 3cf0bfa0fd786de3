// internal: (in LadybugDB's dialect: list_sort; Neo4j has classify.neo4j.cypher) mark every NEEDED edge used, declared-unused or missing; add the hidden, the interposed and the upcall edges; and record the programs (link maps) in whose process each edge holds with its status (docs/graph.md, docs/licences.md); licence finding (a) is then computed from these edges (loader/store/finding_paths.py). An interposed binding (the object's own dependency tree defines the symbol too) or an upcall (the provider's own tree loads the object) makes no edge used or hidden; a declared provider is in the object's tree, so an upcall on a NEEDED edge is a binding of a link map that resolved that name to another file.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(t:Module)
OPTIONAL MATCH (m)-[r:RESOLVES_TO]->(t)
WHERE NOT coalesce(r.interposed, false) AND NOT coalesce(r.upcall, false)
WITH n, collect(DISTINCT r.symbol) AS symbols
SET n.symbols = symbols,
    n.status = CASE WHEN size(symbols) > 0 THEN 'used' ELSE 'declared-unused' END,
    n.programs = [];
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(x:Missing)
SET n.status = 'missing', n.symbols = [], n.programs = [];
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(t:Module)
WHERE m.id <> t.id AND NOT coalesce(r.copy, false) AND NOT EXISTS { MATCH (m)-[:NEEDED]->(t) }
WITH m, t, collect(DISTINCT CASE WHEN NOT coalesce(r.interposed, false) AND NOT coalesce(r.upcall, false) THEN r.symbol END) AS bound,
     collect(DISTINCT CASE WHEN coalesce(r.upcall, false) THEN r.symbol END) AS upcalls,
     collect(DISTINCT CASE WHEN coalesce(r.interposed, false) THEN r.symbol END) AS interposed
CREATE (m)-[:HIDDEN {soname: coalesce(t.soname, t.name),
                     status: CASE WHEN size(bound) > 0 THEN 'hidden' WHEN size(upcalls) > 0 THEN 'upcall' ELSE 'interposed' END,
                     symbols: CASE WHEN size(bound) > 0 THEN bound WHEN size(upcalls) > 0 THEN upcalls ELSE interposed END,
                     programs: []}]->(t);
MATCH (m:Module {firmware: $firmware})-[n:NEEDED {status: 'used'}]->(t:Module)
MATCH (m)-[r:RESOLVES_TO]->(t)
WHERE NOT coalesce(r.interposed, false) AND NOT coalesce(r.upcall, false)
WITH n, collect(DISTINCT r.scope) AS scopes
UNWIND scopes AS sid
MATCH (c:Scope {id: sid})
UNWIND c.executables AS program
WITH n, collect(DISTINCT program) AS programs
SET n.programs = list_sort(programs);
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN]->(t:Module)
MATCH (m)-[r:RESOLVES_TO]->(t)
WHERE NOT coalesce(r.copy, false)
  AND CASE WHEN coalesce(r.interposed, false) THEN 'interposed' WHEN coalesce(r.upcall, false) THEN 'upcall' ELSE 'hidden' END = h.status
WITH h, collect(DISTINCT r.scope) AS scopes
UNWIND scopes AS sid
MATCH (c:Scope {id: sid})
UNWIND c.executables AS program
WITH h, collect(DISTINCT program) AS programs
SET h.programs = list_sort(programs);
