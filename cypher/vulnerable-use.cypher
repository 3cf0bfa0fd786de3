// Across images: each program whose process binds $symbol to a module of the component $component whose version sorts below the one given (version-below; an unknown version is listed, version null): the module whose reference binds, the provider, the edge's status, the version and the evidence for it (docs/identify.md, "Vulnerable use").
MATCH (f:Firmware)-[:CONTAINS]->(lib:Module {component: $component})
WHERE lib.component_version_key IS NULL OR lib.component_version_key < $below_key
MATCH (m:Module)-[r:RESOLVES_TO]->(lib)
WHERE r.symbol = $symbol
MATCH (c:Scope {firmware: m.firmware, id: r.scope})
OPTIONAL MATCH (m)-[n:NEEDED|HIDDEN]->(lib)
UNWIND c.executables AS program
RETURN f.name AS firmware, program, m.path AS module, lib.path AS provider, r.version AS symbol_version,
       n.status AS status, lib.component AS component, lib.component_version AS version,
       lib.component_certainty AS certainty, lib.component_evidence AS evidence
ORDER BY firmware, program, module, provider, symbol_version;
