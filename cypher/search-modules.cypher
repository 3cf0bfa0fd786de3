// Modules whose path, soname or a symlink to them contains $text (any case), by path, a page of $limit from $offset.
// Each alias is a row of its own, not any(alias IN m.aliases WHERE ...): LadybugDB 0.22's list predicates can answer wrongly, or crash, on big batches of lists (docs/licences.md).
WITH lower($text) AS text
MATCH (m:Module {firmware: $firmware})
UNWIND coalesce(m.aliases, []) + [''] AS alias
WITH m, text, alias
WHERE lower(m.path) CONTAINS text OR lower(coalesce(m.soname, '')) CONTAINS text OR lower(alias) CONTAINS text
WITH DISTINCT m
RETURN m.path AS path, m.name AS name, m.kind AS kind, m.soname AS soname, m.aliases AS aliases,
       m.licence_class AS licence_class
ORDER BY path
SKIP $offset LIMIT $limit;
