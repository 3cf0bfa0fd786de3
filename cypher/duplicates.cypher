// Symbols that several objects of one link map define and someone references: the first in load order wins.
MATCH (d:Duplicate {firmware: $firmware})
RETURN d.symbol AS symbol, d.providers AS providers, d.chosen AS chosen, d.executables AS executables
ORDER BY symbol, chosen;
