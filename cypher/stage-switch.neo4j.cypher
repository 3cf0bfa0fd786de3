// internal: Neo4j only: switch the staged generation $generation of firmware $firmware in, in one transaction: the live graph retired (its Firmware and Scope nodes relabelled), the staged one made live.
MATCH (old:Firmware {id: $firmware})
SET old.generation = coalesce(old.generation, old.id), old.heartbeat = timestamp()
REMOVE old:Firmware
SET old:RetiredFirmware
RETURN old.generation AS retired;
MATCH (old:RetiredFirmware {id: $firmware})
MATCH (c:Scope {firmware: old.generation})
REMOVE c:Scope
SET c:RetiredScope;
MATCH (c:StagedScope {firmware: $generation})
REMOVE c:StagedScope
SET c:Scope;
MATCH (f:StagedFirmware {generation: $generation})
REMOVE f:StagedFirmware, f.heartbeat
SET f:Firmware
RETURN count(f) AS switched;
