// internal: Neo4j only: switch the staged generation $generation of firmware $firmware in, in one transaction: the live graph's Firmware node retired, the staged one made live. Nothing else changes: every other node of a generation is found by its key.
MATCH (old:Firmware {id: $firmware})
SET old.generation = coalesce(old.generation, old.id), old.heartbeat = timestamp()
REMOVE old:Firmware
SET old:RetiredFirmware
RETURN old.generation AS retired;
MATCH (f:StagedFirmware {generation: $generation})
REMOVE f:StagedFirmware, f.heartbeat
SET f:Firmware
RETURN count(f) AS switched;
