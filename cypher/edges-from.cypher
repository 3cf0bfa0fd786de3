// Dependency edges (declared, hidden, interposed and upcall) out of the modules whose paths are in the list $paths, with status, symbols and the programs whose process holds them.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
WHERE m.path IN $paths
RETURN m.path AS from, n.soname AS soname, n.position AS position, t.path AS to, t.kind AS kind,
       t.licence AS licence, t.licence_class AS licence_class,
       n.status AS status, n.symbols AS symbols, n.executables AS executables, n.programs AS programs,
       n.rule AS rule, n.directory AS directory, n.via AS via, n.tried AS tried, n.found_by AS found_by
ORDER BY from, soname, status, to;
