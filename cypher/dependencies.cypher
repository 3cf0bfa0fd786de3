// Every dependency edge with its status (used, declared-unused, hidden, missing) and the symbols behind it.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
RETURN m.path AS from, n.soname AS soname, t.path AS to, n.status AS status, n.symbols AS symbols
ORDER BY from, soname, status, to;
