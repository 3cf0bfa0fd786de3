// Who binds the symbol $symbol and over which edge: the referencing module, version, provider, the edge's status (none when a module binds its own definition), the programs whose link maps hold it; a page of $limit from $offset.
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
WHERE r.symbol = $symbol
MATCH (c:Scope {firmware: $firmware, id: r.scope})
OPTIONAL MATCH (m)-[n:NEEDED|HIDDEN]->(p)
RETURN m.path AS module, r.version AS version, p.path AS provider, coalesce(r.copy, false) AS copy, n.status AS status,
       c.executables AS programs
ORDER BY module, provider, version, status
SKIP $offset LIMIT $limit;
