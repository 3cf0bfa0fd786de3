// Symbol names that start with $start and contain $text, both in any case, that a reference binds across modules or leaves unresolved, by name, a page of $limit from $offset (the search's suggestions when the exact name finds nothing).
WITH lower($text) AS text, lower($start) AS start
MATCH (s:Symbol {firmware: $firmware})
WHERE lower(s.name) STARTS WITH start AND lower(s.name) CONTAINS text
RETURN DISTINCT s.name AS name
ORDER BY name
SKIP $offset LIMIT $limit;
