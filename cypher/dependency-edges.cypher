// Every dependency edge with its status and how many symbols bind across it (the symbols themselves: query edge).
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
RETURN m.path AS from, coalesce(t.path, t.soname) AS to, t.path IS NULL AS missing, n.status AS status,
       size(n.symbols) AS count
ORDER BY from, to, status;
