// GPL and LGPL programs that use (a used or hidden edge in the program's own process, never interposed or an upcall) a module that is not itself copyleft and has no source in the release (prebuilt or absent: the article's proprietary library; a copyleft module without source is source-missing's row), with the symbols, and the build-file lines of the program's source folder that link that module (-lNAME, LDFLAGS, LIBRARIES, cp … lib lines): one row per line, or one row without a line when its folder has none (docs/sources.md).
MATCH (p:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t:Module)
WHERE p.licence_class IN ['gpl', 'lgpl'] AND n.status IN ['used', 'hidden'] AND p.path IN n.programs
  AND NOT coalesce(t.licence_class, '') IN ['gpl', 'lgpl']
MATCH (s:Source {firmware: $firmware, module: t.id})
WHERE s.status IN ['prebuilt', 'absent']
OPTIONAL MATCH (ps:Source {firmware: $firmware, module: p.id})
OPTIONAL MATCH (l:LinkLine {firmware: $firmware, library: t.id, folder: ps.folder})
RETURN p.path AS program, p.licence AS licence, n.status AS status, t.path AS uses, t.licence AS uses_licence,
       s.status AS uses_source, n.symbols AS symbols, ps.folder AS program_folder, l.file AS file, l.line AS line,
       l.text AS text
ORDER BY program, uses, file, line;
