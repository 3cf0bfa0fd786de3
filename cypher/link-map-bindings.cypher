// The references of the link map of $program that bind to the module at $library: referencing module, symbol, version, copy relocation, the edge's status.
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(x:Module {firmware: $firmware, path: $library})
MATCH (c:Scope {firmware: $firmware, id: r.scope})
WHERE $program IN c.executables
OPTIONAL MATCH (m)-[n:NEEDED|HIDDEN]->(x)
RETURN m.path AS module, r.symbol AS symbol, r.version AS version, r.copy AS copy, n.status AS status
ORDER BY module, symbol, version, status;
