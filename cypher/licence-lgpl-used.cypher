// (d) LGPL libraries (and GPL ones with a linking exception) that modules use dynamically (used or hidden edges, never interposed or an upcall), with the symbols and the programs in whose process the edge holds.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t:Module {firmware: $firmware, licence_class: 'lgpl'})
WHERE n.status IN ['used', 'hidden']
RETURN t.path AS library, t.licence AS library_licence, m.path AS module, m.licence AS licence,
       m.licence_class AS class, n.status AS status, n.symbols AS symbols, n.programs AS programs
ORDER BY library, module;
