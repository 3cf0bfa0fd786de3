// The DT_NEEDED edges that hold in the link map of $program: declaring module, position, soname, the file loaded, status, symbols.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(t:Module)
WHERE $program IN n.executables
RETURN m.path AS from, n.position AS position, n.soname AS soname, t.path AS to, n.status AS status,
       n.symbols AS symbols
ORDER BY from, position, to;
