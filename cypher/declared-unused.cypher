// Declared dependencies (DT_NEEDED) that no symbol of the declaring object binds to.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED {status: 'declared-unused'}]->(t:Module)
RETURN m.path AS from, n.soname AS soname, t.path AS to
ORDER BY from, soname;
