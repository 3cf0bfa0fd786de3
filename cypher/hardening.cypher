// Hardening facts of every program and library (docs/graph.md, "Hardening"): PIE, non-executable stack, RELRO (none/partial/full), stack protector, FORTIFY (the __NAME_chk functions used), TEXTREL, DT_RPATH / DT_RUNPATH and the codes of their risky-entry warnings.
MATCH (m:Module {firmware: $firmware})
WHERE m.relro IS NOT NULL
OPTIONAL MATCH (p:Problem {firmware: $firmware})
WHERE p.path = m.path AND p.code STARTS WITH 'rpath-'
WITH m, collect(DISTINCT p.code) AS risky
RETURN m.path AS path, m.kind AS kind, m.pie AS pie, m.nx AS nx, m.relro AS relro,
       m.stack_protector AS stack_protector, m.fortify AS fortify, m.fortified AS fortified,
       m.textrel AS textrel, m.rpath AS rpath, m.runpath AS runpath, risky AS risky_paths
ORDER BY path;
