// Symbol references of the module at $path that nothing defines, with the executables whose link maps they occur in.
MATCH (m:Module {firmware: $firmware, path: $path})-[u:UNRESOLVED]->(s:Symbol)
MATCH (c:Scope {id: u.scope})
RETURN s.name AS symbol, s.version AS version, u.weak AS weak, c.executables AS executables
ORDER BY symbol, version;
