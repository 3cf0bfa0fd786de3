// How many dependency edges of each status the firmware has.
MATCH (m:Module {firmware: $firmware})-[n:NEEDED|HIDDEN]->(t)
RETURN n.status AS status, count(*) AS edges
ORDER BY status;
