// Every module with its aliases, whether it is statically linked, and how many hidden, declared-unused and missing edges and strong unresolved references it has.
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.kind AS kind, m.soname AS soname, m.aliases AS aliases, m.static AS static,
       COUNT { MATCH (m)-[h:HIDDEN]->(:Module) WHERE h.status = 'hidden' } AS hidden,
       COUNT { MATCH (m)-[n:NEEDED]->(:Module) WHERE n.status = 'declared-unused' } AS declared_unused,
       COUNT { MATCH (m)-[:NEEDED]->(:Missing) } AS missing,
       COUNT { MATCH (m)-[u:UNRESOLVED]->(:Symbol) WHERE NOT u.weak } AS unresolved
ORDER BY path;
