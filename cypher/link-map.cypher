// The link map of the program (or unloaded library) at $path: the objects in load order and the missing sonames.
MATCH (l:LinkMap {firmware: $firmware, executable: $path})
RETURN l.executable AS executable, l.flavour AS flavour, l.objects AS objects, l.missing AS missing;
