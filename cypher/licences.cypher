// Each module's licence (SPDX, null if unknown), its class (gpl, lgpl, permissive, incompatible, unknown), where that comes from, how certain it is, its package, and the component and version the identification stage says it is.
MATCH (m:Module {firmware: $firmware})
RETURN m.path AS path, m.licence AS licence, m.licence_class AS class, m.licence_certainty AS certainty, m.licence_source AS source,
       m.package AS package, m.kind AS kind, m.static AS static, m.component AS component, m.component_version AS version
ORDER BY path;
