// Every symbol binding: referencing module, symbol, version, providing module, and the executables whose link map it holds in.
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
MATCH (c:Scope {id: r.scope})
RETURN m.path AS module, r.symbol AS symbol, r.version AS version, p.path AS provider, c.executables AS executables
ORDER BY module, symbol, provider;
