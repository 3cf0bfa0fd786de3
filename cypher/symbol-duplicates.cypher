// The link maps where several objects define the symbol $symbol: the providers in load order, the one chosen (the first), the programs.
MATCH (d:Duplicate {firmware: $firmware})
WHERE d.symbol = $symbol
RETURN d.symbol AS symbol, d.providers AS providers, d.chosen AS chosen, d.executables AS executables
ORDER BY chosen;
