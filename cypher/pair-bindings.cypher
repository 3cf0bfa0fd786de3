// The bindings from one module to another for each pair in the list $pairs (maps with from and to paths): symbol, whether it is a copy relocation, interposition or an upcall, and its scope (the link maps it holds in: query scopes).
UNWIND $pairs AS pair
MATCH (m:Module {firmware: $firmware, path: pair.from})-[r:RESOLVES_TO]->(t:Module {firmware: $firmware, path: pair.to})
RETURN m.path AS from, t.path AS to, r.symbol AS symbol, coalesce(r.copy, false) AS copy,
       coalesce(r.interposed, false) AS interposed, coalesce(r.upcall, false) AS upcall, r.scope AS scope
ORDER BY from, to, symbol;
