// The hardening facts of the module at $path (its own path or one of its symlinks; docs/graph.md, "Hardening"), one row per risky DT_RPATH / DT_RUNPATH warning (code and message; one row with nulls when there is none).
MATCH (m:Module {firmware: $firmware})
WHERE (m.path = $path OR $path IN m.aliases) AND m.relro IS NOT NULL
OPTIONAL MATCH (p:Problem {firmware: $firmware})
WHERE p.path = m.path AND p.code STARTS WITH 'rpath-'
RETURN m.path AS path, m.kind AS kind, m.pie AS pie, m.nx AS nx, m.relro AS relro,
       m.stack_protector AS stack_protector, m.fortify AS fortify, m.fortified AS fortified,
       m.textrel AS textrel, m.rpath AS rpath, m.runpath AS runpath, p.code AS code, p.message AS message
ORDER BY code, message;
