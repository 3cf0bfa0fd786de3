// Symbol names that start with $text (exact case) that a reference binds across modules or leaves unresolved, by name, a page of $limit from $offset.
MATCH (s:Symbol {firmware: $firmware})
WHERE s.name STARTS WITH $text
RETURN DISTINCT s.name AS name
ORDER BY name
SKIP $offset LIMIT $limit;
