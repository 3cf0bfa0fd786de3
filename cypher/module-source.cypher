// One module's source status from the source-release check (docs/sources.md): status, tier, source folder with its package and version, the release files with its bytes (or binaries of its name), and the evidence (a JSON list of {kind, text, file, line}); no row when no release was checked.
MATCH (m:Module {firmware: $firmware, path: $path})
MATCH (s:Source {firmware: $firmware, module: m.id})
RETURN m.path AS module, s.status AS status, s.tier AS tier, s.folder AS folder, s.package AS package,
       s.version AS version, s.release_paths AS release_paths, s.evidence AS evidence
ORDER BY module;
