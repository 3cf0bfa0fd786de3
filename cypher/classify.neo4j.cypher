// internal: Neo4j only: classify.cypher's classification with the bindings of each pair of modules gathered in one pass (its symbols, those that are no copy relocation, those that are interposition or upcalls), then its NEEDED edges set used or, without one, a HIDDEN edge made (Neo4j otherwise expands a module's bindings once per NEEDED edge: 0.45 s instead of 0.28 s on the 1k host root); each edge's programs sorted by ORDER BY, where LadybugDB has list_sort. A RESOLVES_TO edge ends at a Module. Licence finding (a) is then computed from these edges (loader/store/finding_paths.py).
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(:Module)
SET n.status = 'declared-unused', n.symbols = [], n.programs = [];
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(t)
WITH m, t, r.symbol AS symbol, coalesce(r.copy, false) AS copy, coalesce(r.interposed, false) AS interposed,
     coalesce(r.upcall, false) AS upcall
WITH m, t, collect(DISTINCT CASE WHEN NOT interposed AND NOT upcall THEN symbol END) AS symbols,
     collect(DISTINCT CASE WHEN NOT copy AND NOT interposed AND NOT upcall THEN symbol END) AS bound,
     collect(DISTINCT CASE WHEN NOT copy AND upcall THEN symbol END) AS upcalls,
     collect(DISTINCT CASE WHEN NOT copy AND interposed THEN symbol END) AS apart
OPTIONAL MATCH (m)-[n:NEEDED]->(t)
WITH m, t, symbols, bound, upcalls, apart, collect(n) AS needed
FOREACH (n IN needed | SET n.symbols = symbols, n.status = CASE WHEN size(symbols) > 0 THEN 'used' ELSE 'declared-unused' END)
WITH m, t, bound, upcalls, apart, needed
WHERE size(needed) = 0 AND size(bound) + size(upcalls) + size(apart) > 0 AND m.id <> t.id
CREATE (m)-[:HIDDEN {soname: coalesce(t.soname, t.name),
                     status: CASE WHEN size(bound) > 0 THEN 'hidden' WHEN size(upcalls) > 0 THEN 'upcall' ELSE 'interposed' END,
                     symbols: CASE WHEN size(bound) > 0 THEN bound WHEN size(upcalls) > 0 THEN upcalls ELSE apart END,
                     programs: []}]->(t);
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(x:Missing)
SET n.status = 'missing', n.symbols = [], n.programs = [];
MATCH (m:Module {firmware: $firmware})-[n:NEEDED {status: 'used'}]->(t:Module)
MATCH (m)-[r:RESOLVES_TO]->(t)
WHERE NOT coalesce(r.interposed, false) AND NOT coalesce(r.upcall, false)
WITH n, collect(DISTINCT r.scope) AS scopes
UNWIND scopes AS sid
MATCH (c:Scope {firmware: $firmware, id: sid})
UNWIND c.executables AS program
WITH DISTINCT n, program ORDER BY program
WITH n, collect(program) AS programs
SET n.programs = programs;
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN]->(t:Module)
MATCH (m)-[r:RESOLVES_TO]->(t)
WHERE NOT coalesce(r.copy, false)
  AND CASE WHEN coalesce(r.interposed, false) THEN 'interposed' WHEN coalesce(r.upcall, false) THEN 'upcall' ELSE 'hidden' END = h.status
WITH h, collect(DISTINCT r.scope) AS scopes
UNWIND scopes AS sid
MATCH (c:Scope {firmware: $firmware, id: sid})
UNWIND c.executables AS program
WITH DISTINCT h, program ORDER BY program
WITH h, collect(program) AS programs
SET h.programs = programs;
