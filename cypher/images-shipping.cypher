// Across firmware: which images ship the library $library (a soname, a file name or a sha256), and where.
MATCH (f:Firmware)-[:CONTAINS]->(m:Module)
WHERE m.soname = $library OR m.name = $library OR m.sha256 = $library
RETURN f.name AS firmware, f.id AS firmware_id, m.path AS path, m.soname AS soname, m.sha256 AS sha256
ORDER BY firmware, path;
