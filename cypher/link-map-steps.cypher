// Every edge in the process of $program (its link map): declared (used, declared-unused, missing) and undeclared (hidden, interposed), with the number of symbols bound across it.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
WHERE $program IN n.executables
RETURN m.path AS from, coalesce(t.path, t.soname) AS to, t.path IS NULL AS missing, n.status AS status, size(n.symbols) AS count
ORDER BY from, to, status;
