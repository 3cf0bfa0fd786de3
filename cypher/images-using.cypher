// Across firmware: in which images a module really uses (used or hidden edge; never interposed or an upcall) the library $library (soname, file name or sha256).
MATCH (f:Firmware)-[:CONTAINS]->(lib:Module)
WHERE lib.soname = $library OR lib.name = $library OR lib.sha256 = $library
MATCH (u:Module)-[e:NEEDED|HIDDEN]->(lib)
WHERE e.status = 'used' OR e.status = 'hidden'
RETURN f.name AS firmware, u.path AS user, lib.path AS library, e.status AS status, e.symbols AS symbols
ORDER BY firmware, user, library;
