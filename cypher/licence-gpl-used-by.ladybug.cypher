// LadybugDB only: no list comprehensions (properties() instead), no node comparison in list predicates (is_acyclic() instead).
// one thread: each thread enumerating the paths holds working memory of its own (the /usr+/opt root: 580 MiB on one, 860 MiB on two, in about the same time).
MATCH p = (m:Module {firmware: $firmware})-[:NEEDED|HIDDEN*1..4]->(g:Module {firmware: $firmware, licence_class: 'gpl'})
WHERE m.licence_class IN ['incompatible', 'unknown']
  AND all(r IN relationships(p) WHERE r.status IN ['used', 'hidden'])
  AND single(n IN nodes(p) WHERE n.licence_class = 'gpl')
  AND is_acyclic(p)
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, g.path AS gpl_module, g.licence AS gpl_licence,
       properties(nodes(p), 'path') AS hops, properties(relationships(p), 'status') AS statuses
ORDER BY module, gpl_module;
