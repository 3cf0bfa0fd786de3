// Upcalls: symbols of an object bind to a module it does not declare, and that module's own dependency tree loads the object (it calls back into a module that depends on it, as the C runtime calling the program's main); no dependency, so no edge used or hidden.
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN {status: 'upcall'}]->(t:Module)
RETURN m.path AS from, t.path AS to, h.soname AS soname, h.symbols AS symbols, h.programs AS programs
ORDER BY from, to;
