// Across firmware: which programs bind the symbol $symbol to the library $library (soname, file name or sha256), in which images: the module whose reference binds, the library's path, the symbol's version.
MATCH (m:Module)-[r:RESOLVES_TO {symbol: $symbol}]->(lib:Module)
WHERE lib.soname = $library OR lib.name = $library OR lib.sha256 = $library
MATCH (f:Firmware)-[:CONTAINS]->(lib)
MATCH (c:Scope {firmware: m.firmware, id: r.scope})
UNWIND c.executables AS program
RETURN f.name AS firmware, program, m.path AS module, lib.path AS provider, r.version AS version
ORDER BY firmware, program, module, provider, version;
