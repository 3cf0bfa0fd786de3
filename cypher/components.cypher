// Every identification of the firmware (docs/identify.md): what each module is (contained false) and each component found inside a module (contained true, its CONTAINS edge), with the version, licence, certainty, package URL, CPE and evidence (a JSON list of {kind, text, offset}).
MATCH (m:Module {firmware: $firmware})
WHERE m.component IS NOT NULL
RETURN m.path AS path, m.component AS component, m.component_version AS version, m.component_licence AS licence,
       m.component_certainty AS certainty, false AS contained, m.component_purl AS purl, m.component_cpe AS cpe,
       m.component_evidence AS evidence
UNION ALL
MATCH (m:Module {firmware: $firmware})-[c:CONTAINS]->(x:Component)
RETURN m.path AS path, x.name AS component, x.version AS version, x.licence AS licence, c.certainty AS certainty,
       true AS contained, x.purl AS purl, x.cpe AS cpe, c.evidence AS evidence;
