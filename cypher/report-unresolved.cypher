// internal: the streamed report: every distinct unresolved reference once, with the id of the set of link maps it holds in.
MATCH (m:Module {firmware: $firmware})-[u:UNRESOLVED]->(s:Symbol)
RETURN m.path AS module, s.name AS symbol, s.version AS version, u.weak AS weak, u.scope AS scope;
