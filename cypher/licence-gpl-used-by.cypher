// (a) Modules under a GPL-incompatible or unknown licence that use GPL-only code (used or hidden edges, through up to three other modules): every path, the status of each hop (the findings add each hop's symbols from its edge).
MATCH p = (m:Module {firmware: $firmware})-[:NEEDED|HIDDEN*1..4]->(g:Module {firmware: $firmware, licence_class: 'gpl'})
WHERE m.licence_class IN ['incompatible', 'unknown']
  AND all(r IN relationships(p) WHERE r.status IN ['used', 'hidden'])
  AND single(n IN nodes(p) WHERE n.licence_class = 'gpl')
  AND all(n IN nodes(p) WHERE single(x IN nodes(p) WHERE x = n))
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, g.path AS gpl_module, g.licence AS gpl_licence,
       [n IN nodes(p) | n.path] AS hops, [r IN relationships(p) | r.status] AS statuses
ORDER BY module, gpl_module;
