// internal: the used and hidden edges (NEEDED, HIDDEN) leaving a module that is not GPL, with the programs in whose process each holds: what licence finding (a) is computed from after the classification (loader/store/finding_paths.py)
MATCH (m:Module {firmware: $firmware})-[e:NEEDED|HIDDEN]->(t:Module)
WHERE e.status IN ['used', 'hidden'] AND coalesce(m.licence_class, '') <> 'gpl'
RETURN m.id AS source, t.id AS target, e.status AS status, e.programs AS programs;
