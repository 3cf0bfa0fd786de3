// Version mismatches: a module the identification found at one version, built from a source folder of the release at another (docs/sources.md).
MATCH (m:Module {firmware: $firmware})
MATCH (s:Source {firmware: $firmware, module: m.id})
WHERE s.mismatch
RETURN m.path AS module, m.component AS component, s.identified_version AS identified_version,
       s.folder AS folder, s.package AS package, s.version AS release_version
ORDER BY module;
