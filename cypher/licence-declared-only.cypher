// (c) Declared-only links between GPL code and code under an incompatible or unknown licence (DT_NEEDED, but no symbol binds), with the modules that do use the library.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(t:Module)
WHERE n.status = 'declared-unused'
  AND ((m.licence_class = 'gpl' AND t.licence_class IN ['incompatible', 'unknown'])
       OR (t.licence_class = 'gpl' AND m.licence_class IN ['incompatible', 'unknown']))
OPTIONAL MATCH (o:Module)-[u:NEEDED|HIDDEN]->(t)
WHERE u.status IN ['used', 'hidden']
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, t.path AS library,
       t.licence AS library_licence, t.licence_class AS library_class, o.path AS used_by, u.status AS used_by_status,
       u.symbols AS used_by_symbols
ORDER BY module, library, used_by;
