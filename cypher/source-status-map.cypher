// Every module's source status alone (source, prebuilt, absent, not-required), for the viewer's colouring and marks: the whole view and the per-program graph (docs/sources.md); no rows when no release was checked.
MATCH (m:Module {firmware: $firmware})
MATCH (s:Source {firmware: $firmware, module: m.id})
RETURN m.path AS module, s.status AS status
ORDER BY module;
