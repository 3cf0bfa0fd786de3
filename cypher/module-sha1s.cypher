// Every module's SHA-1 with its package, in SHA-1 order: the SPDX 2.3 package verification codes, one pass.
MATCH (m:Module {firmware: $firmware})
WHERE m.sha1 IS NOT NULL AND m.sha1 <> ''
RETURN m.sha1 AS sha1, m.package AS package
ORDER BY sha1, package;
