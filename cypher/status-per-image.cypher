// Across firmware: how many dependency edges of each status every image in the store has.
MATCH (f:Firmware)-[:CONTAINS]->(m:Module)-[e:NEEDED|HIDDEN]->()
RETURN f.name AS firmware, f.id AS firmware_id, e.status AS status, count(*) AS edges
ORDER BY firmware, firmware_id, status;
