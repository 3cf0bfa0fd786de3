// The module at $path (its own path or one of its symlinks): kind, architecture, soname, size, hash, aliases.
MATCH (m:Module {firmware: $firmware})
WHERE m.path = $path OR $path IN m.aliases
RETURN m.path AS path, m.name AS name, m.kind AS kind, m.soname AS soname, m.machine AS machine, m.class AS class,
       m.endian AS endian, m.osabi AS osabi, m.interpreter AS interpreter, m.needed AS needed,
       m.aliases AS aliases, m.size AS size, m.sha256 AS sha256, m.root AS root
ORDER BY path;
