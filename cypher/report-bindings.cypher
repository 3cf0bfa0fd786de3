// internal: the streamed report: every distinct binding once, with the id of the set of link maps it holds in (scopes).
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
RETURN m.path AS module, r.symbol AS symbol, r.version AS version, p.path AS provider, r.scope AS scope;
