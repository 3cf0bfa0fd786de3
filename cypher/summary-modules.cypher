// How many modules the firmware has, of each kind.
MATCH (m:Module {firmware: $firmware})
RETURN count(m) AS modules, sum(CASE WHEN m.kind = 'executable' THEN 1 ELSE 0 END) AS executables,
       sum(CASE WHEN m.kind = 'library' THEN 1 ELSE 0 END) AS libraries;
