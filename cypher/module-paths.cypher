// Every module's path and the symlinks to it (aliases), by path: what a path (diagram FILE, --param path=) may name.
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.aliases AS aliases
ORDER BY path;
