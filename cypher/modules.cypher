// Every ELF module of the firmware: kind, architecture, soname, interpreter, DT_NEEDED, aliases, licence fact, the identification stage's answer (identity: JSON, docs/identify.md) and the origin of vendor code (origin, origin_evidence: JSON).
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.kind AS kind, m.soname AS soname, m.machine AS machine, m.class AS class,
       m.endian AS endian, m.interpreter AS interpreter, m.needed AS needed, m.aliases AS aliases,
       m.licence AS licence, m.licence_class AS licence_class, m.licence_source AS licence_source, m.licence_certainty AS licence_certainty,
       m.package AS package, m.static AS static, m.identity AS identity,
       m.origin AS origin, m.origin_evidence AS origin_evidence
ORDER BY path;
