// The dependency edge from the module at $from to $to (a path, or the soname of a missing library), with its symbols.
MATCH (m:Module {firmware: $firmware, path: $from})-[n:NEEDED|HIDDEN]->(t)
WHERE t.path = $to OR (t.path IS NULL AND t.soname = $to)
RETURN m.path AS from, coalesce(t.path, t.soname) AS to, n.soname AS soname, n.status AS status, n.symbols AS symbols
ORDER BY status;
