// The module at $path (its own path or one of its symlinks): kind, architecture, soname, size, hash, aliases, licence.
MATCH (m:Module {firmware: $firmware})
WHERE m.path = $path OR $path IN m.aliases
RETURN m.path AS path, m.name AS name, m.kind AS kind, m.soname AS soname, m.machine AS machine, m.class AS class,
       m.endian AS endian, m.osabi AS osabi, m.interpreter AS interpreter, m.needed AS needed,
       m.aliases AS aliases, m.size AS size, m.sha256 AS sha256, m.root AS root, m.licence AS licence,
       m.licence_class AS licence_class, m.licence_source AS licence_source,
       m.licence_certainty AS licence_certainty, m.package AS package, m.static AS static
ORDER BY path;
