// GPL and LGPL modules whose corresponding source the release does not give: prebuilt (the release holds the binary only) or absent (nothing of it), with the release files that hold its bytes or name (docs/sources.md).
MATCH (m:Module {firmware: $firmware})
WHERE m.licence_class IN ['gpl', 'lgpl']
MATCH (s:Source {firmware: $firmware, module: m.id})
WHERE s.status IN ['prebuilt', 'absent']
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, s.status AS status,
       s.release_paths AS release_paths
ORDER BY module;
