// Files that could not be used as they are (corrupt ELF, symlink loops, odd names), with severity and message.
MATCH (p:Problem {firmware: $firmware})
RETURN p.path AS path, p.severity AS severity, p.code AS code, p.message AS message
ORDER BY path, message;
