// One kernel module's links, both ways: what it binds to (a module, a missing module or the kernel) and the modules that bind to it, with the state, the symbols and the GPL-only ones among them.
MATCH (m:Module {firmware: $firmware, path: $path})-[e:KERNEL_LINK]->(p)
RETURN 'to' AS direction, coalesce(p.path, p.soname, 'vmlinux') AS other, p.path IS NULL AND p.soname IS NOT NULL AS missing,
       e.state AS state, e.bound AS symbols, e.gpl_only AS gpl_only
UNION ALL
MATCH (o:Module {firmware: $firmware})-[e:KERNEL_LINK]->(m:Module {firmware: $firmware, path: $path})
RETURN 'from' AS direction, o.path AS other, false AS missing, e.state AS state, e.bound AS symbols, e.gpl_only AS gpl_only;
