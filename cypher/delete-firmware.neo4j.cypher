// internal: Neo4j only: remove firmware $firmware's live graph: its nodes carry the generation key the Firmware node maps its id to (an older linkgraph's graph: the id itself).
MATCH (f:Firmware {id: $firmware})
MATCH (m:Module {firmware: coalesce(f.generation, f.id)}) DETACH DELETE m;
MATCH (f:Firmware {id: $firmware})
MATCH (x:Missing {firmware: coalesce(f.generation, f.id)}) DETACH DELETE x;
MATCH (f:Firmware {id: $firmware})
MATCH (s:Symbol {firmware: coalesce(f.generation, f.id)}) DETACH DELETE s;
MATCH (f:Firmware {id: $firmware})
MATCH (l:LinkMap {firmware: coalesce(f.generation, f.id)}) DETACH DELETE l;
MATCH (f:Firmware {id: $firmware})
MATCH (c:Scope {firmware: coalesce(f.generation, f.id)}) DETACH DELETE c;
MATCH (f:Firmware {id: $firmware})
MATCH (d:Duplicate {firmware: coalesce(f.generation, f.id)}) DETACH DELETE d;
MATCH (f:Firmware {id: $firmware})
MATCH (p:Problem {firmware: coalesce(f.generation, f.id)}) DETACH DELETE p;
MATCH (f:Firmware {id: $firmware})
MATCH (k:Kernel {firmware: coalesce(f.generation, f.id)}) DETACH DELETE k;
MATCH (f:Firmware {id: $firmware})
MATCH (c:Component {firmware: coalesce(f.generation, f.id)}) DETACH DELETE c;
MATCH (f:Firmware {id: $firmware})
MATCH (x:Finding {firmware: coalesce(f.generation, f.id)}) DELETE x;
MATCH (f:Firmware {id: $firmware})
MATCH (x:Source {firmware: coalesce(f.generation, f.id)}) DELETE x;
MATCH (f:Firmware {id: $firmware})
MATCH (x:Release {firmware: coalesce(f.generation, f.id)}) DELETE x;
MATCH (f:Firmware {id: $firmware})
MATCH (x:LinkLine {firmware: coalesce(f.generation, f.id)}) DELETE x;
MATCH (f:Firmware {id: $firmware})
MATCH (x:ReleaseGap {firmware: coalesce(f.generation, f.id)}) DELETE x;
MATCH (f:Firmware {id: $firmware}) DETACH DELETE f;
