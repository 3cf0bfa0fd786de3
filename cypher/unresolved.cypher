// Symbol references nothing in the link map defines (a strong one may crash the program when first used).
MATCH (m:Module {firmware: $firmware})-[u:UNRESOLVED]->(s:Symbol)
MATCH (c:Scope {id: u.scope})
RETURN m.path AS module, s.name AS symbol, s.version AS version, u.weak AS weak, c.executables AS executables
ORDER BY module, symbol;
