// The link map of every executable (and of every library no executable loads): objects in load order, missing names.
MATCH (l:LinkMap {firmware: $firmware})
RETURN l.executable AS executable, l.flavour AS flavour, l.objects AS objects, l.missing AS missing
ORDER BY executable;
