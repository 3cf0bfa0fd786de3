// Every ELF module of the firmware as a file: what an SBOM or a comparison needs of it (origin: whose vendor code it is, origin_evidence: JSON).
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.kind AS kind, m.soname AS soname, m.sha256 AS sha256, m.sha1 AS sha1, m.size AS size,
       m.aliases AS aliases, m.licence AS licence, m.licence_class AS licence_class,
       m.licence_source AS licence_source, m.licence_certainty AS licence_certainty, m.package AS package, m.static AS static,
       m.origin AS origin, m.origin_evidence AS origin_evidence
ORDER BY path;
