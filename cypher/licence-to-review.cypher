// The modules to review: no licence fact (licence null), or a licence linkgraph does not classify; why (source), package, kind, static, and whose code it is (origin: a vendor SDK or the device maker, null when unknown; origin_evidence: JSON, docs/identify.md).
MATCH (m:Module {firmware: $firmware})
WHERE m.licence IS NULL OR m.licence_class IS NULL OR m.licence_class = 'unknown'
RETURN m.path AS path, m.kind AS kind, m.static AS static, m.licence AS licence, m.licence_source AS source,
       m.package AS package, m.origin AS origin, m.origin_evidence AS origin_evidence
ORDER BY path;
