// Which modules bind symbols to the module at $path (and their kind), through which kind of edge, with the symbols.
MATCH (t:Module {firmware: $firmware, path: $path})<-[n:NEEDED|HIDDEN]-(m:Module)
RETURN m.path AS module, m.kind AS kind, n.status AS status, n.symbols AS symbols
ORDER BY module;
