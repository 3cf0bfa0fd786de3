// (b) GPL programs and libraries that use (used or hidden edges, never interposed or an upcall) modules under a GPL-incompatible or unknown licence, with the symbols and the programs in whose process the edge holds.
MATCH (g:Module {firmware: $firmware, licence_class: 'gpl'})-[n:NEEDED|HIDDEN]->(t:Module)
WHERE n.status IN ['used', 'hidden'] AND t.licence_class IN ['incompatible', 'unknown']
RETURN g.path AS module, g.licence AS licence, n.status AS status, t.path AS uses, t.licence AS uses_licence,
       t.licence_class AS uses_class, n.symbols AS symbols, n.programs AS programs
ORDER BY module, uses;
