// internal: Neo4j only: the writer of the generations $generations (staged or retired) is alive; a cleaner leaves them alone while it says so.
MATCH (f:StagedFirmware|RetiredFirmware)
WHERE f.generation IN $generations
SET f.heartbeat = timestamp();
