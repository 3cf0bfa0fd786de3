// Every module's path, the symlinks to it (aliases) and its soname: the names a person may type for it (the viewer's path finder).
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.aliases AS aliases, m.soname AS soname
ORDER BY path;
