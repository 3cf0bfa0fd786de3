// The references of the other objects of the link map of $program that bind to the module at $library: referencing module, symbol, version, copy relocation, the edge's status.
MATCH (l:LinkMap {firmware: $firmware, executable: $program})
MATCH (c:Scope {firmware: $firmware})
WHERE $program IN c.executables
WITH l, collect(c.id) AS scopes
UNWIND l.objects AS object
MATCH (m:Module {firmware: $firmware, path: object})-[r:RESOLVES_TO]->(x:Module {firmware: $firmware, path: $library})
WHERE r.scope IN scopes AND m.path <> $library
OPTIONAL MATCH (m)-[n:NEEDED|HIDDEN]->(x)
RETURN m.path AS module, r.symbol AS symbol, r.version AS version, coalesce(r.copy, false) AS copy, n.status AS status
ORDER BY module, symbol, version, status;
