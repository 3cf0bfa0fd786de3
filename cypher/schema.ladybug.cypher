// LadybugDB only: node and relationship tables must be declared with typed properties (Neo4j uses constraints instead).
CREATE NODE TABLE IF NOT EXISTS Firmware(id STRING, name STRING, sha256 STRING, scanned_at STRING, source STRING, PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS Module(id STRING, firmware STRING, path STRING, name STRING, root STRING, kind STRING, soname STRING, machine STRING, class INT64, endian STRING, osabi STRING, interpreter STRING, needed STRING[], aliases STRING[], size INT64, sha256 STRING, licence STRING, licence_source STRING, licence_certainty STRING, package STRING, licence_class STRING, PRIMARY KEY(id));
// Databases written before modules had licence facts gain the columns (at the end, where COPY expects them).
ALTER TABLE Module ADD IF NOT EXISTS licence STRING;
ALTER TABLE Module ADD IF NOT EXISTS licence_source STRING;
ALTER TABLE Module ADD IF NOT EXISTS licence_certainty STRING;
ALTER TABLE Module ADD IF NOT EXISTS package STRING;
ALTER TABLE Module ADD IF NOT EXISTS licence_class STRING;
CREATE NODE TABLE IF NOT EXISTS Missing(id STRING, firmware STRING, soname STRING, PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS Symbol(id STRING, firmware STRING, name STRING, version STRING, PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS Scope(id STRING, firmware STRING, executables STRING[], PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS LinkMap(id STRING, firmware STRING, executable STRING, flavour STRING, objects STRING[], missing STRING[], PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS Duplicate(id STRING, firmware STRING, symbol STRING, providers STRING[], chosen STRING, executables STRING[], PRIMARY KEY(id));
CREATE NODE TABLE IF NOT EXISTS Problem(id STRING, firmware STRING, path STRING, severity STRING, message STRING, code STRING, PRIMARY KEY(id));
CREATE REL TABLE IF NOT EXISTS CONTAINS(FROM Firmware TO Module);
CREATE REL TABLE IF NOT EXISTS NEEDED(FROM Module TO Module, FROM Module TO Missing, soname STRING, position INT64, executables STRING[], status STRING, symbols STRING[], rule STRING, directory STRING, via STRING, tried STRING[], found_by STRING);
// Databases written before NEEDED edges said how each library was found gain the columns.
ALTER TABLE NEEDED ADD IF NOT EXISTS rule STRING;
ALTER TABLE NEEDED ADD IF NOT EXISTS directory STRING;
ALTER TABLE NEEDED ADD IF NOT EXISTS via STRING;
ALTER TABLE NEEDED ADD IF NOT EXISTS tried STRING[];
ALTER TABLE NEEDED ADD IF NOT EXISTS found_by STRING;
CREATE REL TABLE IF NOT EXISTS HIDDEN(FROM Module TO Module, soname STRING, status STRING, symbols STRING[]);
CREATE REL TABLE IF NOT EXISTS RESOLVES_TO(FROM Module TO Module, symbol STRING, version STRING, copy BOOLEAN, scope STRING);
CREATE REL TABLE IF NOT EXISTS PROVIDES(FROM Module TO Symbol);
CREATE REL TABLE IF NOT EXISTS UNRESOLVED(FROM Module TO Symbol, weak BOOLEAN, scope STRING);
