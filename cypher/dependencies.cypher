// Every dependency edge with its status (used, declared-unused, hidden, interposed, upcall, missing), the symbols behind it and how the loader found it.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
RETURN m.path AS from, n.soname AS soname, t.path AS to, n.status AS status, n.symbols AS symbols,
       n.rule AS rule, n.directory AS directory, n.via AS via, n.tried AS tried, n.found_by AS found_by
ORDER BY from, soname, status, to;
