// Interposed symbols the module at $path provides, or that occur in its own link map (the first provider wins).
MATCH (d:Duplicate {firmware: $firmware})
WHERE $path IN d.providers OR $path IN d.executables
RETURN d.symbol AS symbol, d.providers AS providers, d.chosen AS chosen, d.executables AS executables
ORDER BY symbol, chosen;
