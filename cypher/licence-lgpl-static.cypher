// (g) Statically linked programs that carry an LGPL component (or GPL with a linking exception) inside them, such as an LGPL C library linked in: the LGPL asks that users can relink the program with a changed library; with the component, its licence, the certainty and the evidence (JSON).
MATCH (m:Module {firmware: $firmware, static: true})-[c:CONTAINS]->(x:Component {licence_class: 'lgpl'})
RETURN m.path AS module, m.licence AS licence, m.licence_class AS class, x.name AS component, x.version AS version,
       x.licence AS component_licence, c.certainty AS certainty, c.evidence AS evidence
ORDER BY module, component, version;
