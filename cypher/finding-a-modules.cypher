// internal: every module's id, path, licence and licence class, for licence finding (a) (loader/store/finding_paths.py)
MATCH (m:Module {firmware: $firmware})
RETURN m.id AS id, m.path AS path, m.licence AS licence, m.licence_class AS class;
