// internal: remove one firmware's whole subgraph before it is written again.
MATCH (m:Module {firmware: $firmware}) DETACH DELETE m;
MATCH (x:Missing {firmware: $firmware}) DETACH DELETE x;
MATCH (s:Symbol {firmware: $firmware}) DETACH DELETE s;
MATCH (l:LinkMap {firmware: $firmware}) DETACH DELETE l;
MATCH (c:Scope {firmware: $firmware}) DETACH DELETE c;
MATCH (d:Duplicate {firmware: $firmware}) DETACH DELETE d;
MATCH (p:Problem {firmware: $firmware}) DETACH DELETE p;
MATCH (k:Kernel {firmware: $firmware}) DETACH DELETE k;
MATCH (c:Component {firmware: $firmware}) DETACH DELETE c;
MATCH (x:Finding {firmware: $firmware}) DELETE x;
MATCH (x:Source {firmware: $firmware}) DELETE x;
MATCH (x:Release {firmware: $firmware}) DELETE x;
MATCH (x:LinkLine {firmware: $firmware}) DELETE x;
MATCH (x:ReleaseGap {firmware: $firmware}) DELETE x;
MATCH (f:Firmware {id: $firmware}) DETACH DELETE f;
