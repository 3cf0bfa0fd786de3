// Who binds the symbol $symbol, and to which module (one row per referencing module and provider).
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
WHERE r.symbol = $symbol
RETURN m.path AS module, r.version AS version, p.path AS provider
ORDER BY module, provider;
