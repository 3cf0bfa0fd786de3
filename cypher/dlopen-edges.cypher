// Libraries each module may load with dlopen: certainty (declared, named, pattern), where it was read, the evidence, and the library's bindings in its program's link map (not part of used/declared-unused/hidden).
MATCH (m:Module {firmware: $firmware})-[d:DLOPEN]->(t:Module)
RETURN m.path AS from, t.path AS to, d.certainty AS certainty, d.found_in AS found_in, d.evidence AS evidence,
       d.host AS host, d.loaded_at_start AS loaded_at_start, d.bindings AS bindings, d.hidden AS hidden
ORDER BY from, to;
