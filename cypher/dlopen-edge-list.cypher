// Every dlopen edge without its bindings: the module, the library it may load, the certainty (declared, named, pattern) and where it was read (the whole-firmware view; the rest: query dlopen-edges).
MATCH (m:Module {firmware: $firmware})-[d:DLOPEN]->(t:Module)
RETURN m.path AS from, t.path AS to, d.certainty AS certainty, d.found_in AS found_in, d.loaded_at_start AS loaded_at_start
ORDER BY from, to;
