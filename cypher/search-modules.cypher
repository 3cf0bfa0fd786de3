// Modules whose path, soname or a symlink to them contains $text (any case), by path, a page of $limit from $offset.
WITH lower($text) AS text
MATCH (m:Module {firmware: $firmware})
WHERE lower(m.path) CONTAINS text OR lower(coalesce(m.soname, '')) CONTAINS text
   OR any(alias IN m.aliases WHERE lower(alias) CONTAINS text)
RETURN m.path AS path, m.name AS name, m.kind AS kind, m.soname AS soname, m.aliases AS aliases,
       m.licence_class AS licence_class
ORDER BY path
SKIP $offset LIMIT $limit;
