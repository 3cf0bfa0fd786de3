// LadybugDB only: the hop conditions filter the path search itself (LadybugDB 0.22's list predicates, all() or single() over a path, give wrong answers once a batch of rows holds more than about 2,048 list elements: docs/licences.md), and is_acyclic() stands for node comparison in a list predicate.
// one thread: each thread enumerating the paths holds working memory of its own (the /usr+/opt root: 485 MiB on one, 670 MiB on two, in about the same time).
MATCH p = (m:Module {firmware: $firmware})-[:NEEDED|HIDDEN*1..4 (r, n | WHERE r.status IN ['used', 'hidden'] AND coalesce(n.licence_class, '') <> 'gpl')]->(g:Module {firmware: $firmware, licence_class: 'gpl'})
WHERE m.licence_class IN ['incompatible', 'unknown']
  AND is_acyclic(p)
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, g.path AS gpl_module, g.licence AS gpl_licence,
       properties(nodes(p), 'path') AS hops, properties(relationships(p), 'status') AS statuses
ORDER BY module, gpl_module;
