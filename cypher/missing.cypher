// Declared dependencies that no file in the firmware satisfies.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED]->(x:Missing)
RETURN m.path AS from, n.soname AS soname, n.executables AS executables
ORDER BY from, soname;
