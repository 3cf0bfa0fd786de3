// (d) LGPL libraries (and GPL ones with a linking exception) that modules use dynamically (used or hidden edges), with the symbols.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t:Module {firmware: $firmware, licence_class: 'lgpl'})
WHERE n.status IN ['used', 'hidden']
RETURN t.path AS library, t.licence AS library_licence, m.path AS module, m.licence AS licence,
       m.licence_class AS class, n.status AS status, n.symbols AS symbols
ORDER BY library, module;
