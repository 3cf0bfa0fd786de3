// internal: Neo4j only: classify.cypher's classification with the bindings of each pair of modules gathered in one pass (its symbols, those that are no copy relocation, those that are interposition or upcalls), then its NEEDED edges set used or, without one, a HIDDEN edge made (Neo4j otherwise expands a module's bindings once per NEEDED edge: 0.45 s instead of 0.28 s on the 1k host root); the path search of finding (a) filtered with all(), and the programs common to a path's hops counted per path in a CALL subquery (one aggregation over every path held 1.4 GiB of transaction memory on a graph of 5,000 paths of edges holding in 300 programs each) and sorted by ORDER BY, where LadybugDB has list functions and a filtered path search. A RESOLVES_TO edge ends at a Module.
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
MATCH p = (m:Module {firmware: $firmware})-[rs:NEEDED|HIDDEN*1..4]->(g:Module {firmware: $firmware, licence_class: 'gpl'})
WHERE m.licence_class IN ['incompatible', 'unknown']
  AND all(r IN rs WHERE r.status IN ['used', 'hidden'])
  AND single(n IN nodes(p) WHERE n.licence_class = 'gpl')
  AND all(n IN nodes(p) WHERE single(x IN nodes(p) WHERE x = n))
WITH m, g, [n IN nodes(p) | n.path] AS hops, [r IN rs | r.status] AS statuses, [r IN rs | r.programs] AS held
CALL (held) {
  UNWIND held AS programs
  UNWIND programs AS program
  WITH program, count(*) AS holding
  WHERE holding = size(held)
  WITH program ORDER BY program
  RETURN collect(program) AS programs
}
WITH m, g, hops, statuses, programs
WHERE size(programs) > 0
CREATE (:Finding {id: $firmware + ':a:' + reduce(s = '', h IN hops | s + '>' + h), firmware: $firmware, kind: 'gpl-used-by',
                  module: m.path, licence: m.licence, class: m.licence_class, gpl_module: g.path, gpl_licence: g.licence,
                  hops: hops, statuses: statuses, programs: programs});
