// Who provides the symbol $symbol: each module a reference binds it to, with the version and how many references bind there.
MATCH (m:Module {firmware: $firmware})-[r:RESOLVES_TO]->(p:Module)
WHERE r.symbol = $symbol
RETURN p.path AS provider, p.soname AS soname, r.version AS version, count(*) AS references
ORDER BY provider, version;
