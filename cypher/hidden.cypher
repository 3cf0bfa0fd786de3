// Hidden dependencies: symbols bind to a module the object does not declare, and it needs them (it works because another object loads it); interposition is listed by the query interposed, upcalls by the query upcall.
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN {status: 'hidden'}]->(t:Module)
RETURN m.path AS from, t.path AS to, h.soname AS soname, h.symbols AS symbols, h.programs AS programs
ORDER BY from, to;
