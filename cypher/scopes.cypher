// The sets of link maps (by executable) that bindings and unresolved references hold in, each stored once.
MATCH (c:Scope {firmware: $firmware})
RETURN c.id AS id, c.executables AS executables;
