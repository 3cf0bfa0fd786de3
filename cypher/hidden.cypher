// Hidden dependencies: symbols bind to a module the object does not declare (it works because another object loads it).
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN]->(t:Module)
RETURN m.path AS from, t.path AS to, h.soname AS soname, h.symbols AS symbols
ORDER BY from, to;
