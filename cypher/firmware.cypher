// The firmware images in this database.
MATCH (f:Firmware)
RETURN f.id AS id, f.name AS name, f.sha256 AS sha256, f.scanned_at AS scanned_at, f.source AS source
ORDER BY name, id;
