// How many modules the firmware has, of each kind.
MATCH (m:Module {firmware: $firmware})
RETURN count(m) AS modules, count(CASE WHEN m.kind = 'executable' THEN 1 END) AS executables,
       count(CASE WHEN m.kind = 'library' THEN 1 END) AS libraries;
