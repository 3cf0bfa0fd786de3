// internal: Neo4j only: delete the generation $generation (retired, or staged by a writer that died), in many small transactions; its Firmware node last, so that a deletion cut short is found again.
MATCH (:Module {firmware: $generation})-[e]->()
CALL (e) { DELETE e } IN TRANSACTIONS OF 20000 ROWS;
MATCH (n:Module {firmware: $generation})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Symbol {firmware: $generation})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Missing {firmware: $generation})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:LinkMap {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Duplicate {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Problem {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Scope {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Kernel {firmware: $generation})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Component {firmware: $generation})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Finding {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Source {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Release {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:LinkLine {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:ReleaseGap {firmware: $generation})
CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (f:StagedFirmware|RetiredFirmware {generation: $generation})
DETACH DELETE f;
