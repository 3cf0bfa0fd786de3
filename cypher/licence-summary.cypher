// The licence summary (no letter): how many modules of each licence class the firmware has, and how certain the facts are.
MATCH (m:Module {firmware: $firmware})
RETURN m.licence_class AS class, m.licence_certainty AS certainty, count(*) AS modules
ORDER BY class, certainty;
