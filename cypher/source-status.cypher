// The source-release check (docs/sources.md): every module's source status (source, prebuilt, absent, not-required), the tier that tied it to the release (bytes, dwarf, strings, functions, name), the source folder with its package and version, the release files with its bytes (or binaries of its name), and the evidence (a JSON list of {kind, text, file, line}).
MATCH (m:Module {firmware: $firmware})
MATCH (s:Source {firmware: $firmware, module: m.id})
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, s.status AS status, s.tier AS tier,
       s.folder AS folder, s.package AS package, s.version AS version, s.release_paths AS release_paths,
       s.evidence AS evidence
ORDER BY module;
