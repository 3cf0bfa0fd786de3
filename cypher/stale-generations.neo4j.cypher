// internal: Neo4j only: claim the generations whose writer has not said for $stale_ms ms that it is alive (it died): the caller deletes them. The first SET takes the node's write lock, so of two cleaners only one sees them stale; a staged one is retired, so that a writer that was only slow cannot switch it in any more.
MATCH (f:StagedFirmware|RetiredFirmware)
WHERE coalesce(f.heartbeat, 0) < timestamp() - $stale_ms
SET f.claimed = true
WITH f
WHERE coalesce(f.heartbeat, 0) < timestamp() - $stale_ms
SET f.heartbeat = timestamp(), f:RetiredFirmware
REMOVE f.claimed, f:StagedFirmware
RETURN f.generation AS generation;
