// (f) Modules under a GPL-incompatible or unknown licence that carry a copy of a GPL component inside them (a CONTAINS edge: GPL code compiled in, not linked), with the component, its licence, the certainty and the evidence (JSON).
MATCH (m:Module {firmware: $firmware})-[c:CONTAINS]->(x:Component {licence_class: 'gpl'})
WHERE m.licence_class IN ['incompatible', 'unknown']
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, x.name AS component, x.version AS version,
       x.licence AS component_licence, c.certainty AS certainty, c.evidence AS evidence
ORDER BY module, component, version;
