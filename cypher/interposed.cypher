// Interposition: symbols of an object bind to a module it does not declare, though the object or its own dependencies define them too (the module only comes first in the lookup scope, as a program defining malloc); no dependency, so no edge used or hidden.
MATCH (m:Module {firmware: $firmware})-[h:HIDDEN {status: 'interposed'}]->(t:Module)
RETURN m.path AS from, t.path AS to, h.soname AS soname, h.symbols AS symbols, h.programs AS programs
ORDER BY from, to;
