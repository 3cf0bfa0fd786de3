// Every kernel module's link (to a module, a missing module or the kernel) with its state and how many symbols, and GPL-only ones, it binds (the symbols themselves: query kernel-links).
MATCH (m:Module {firmware: $firmware})-[e:KERNEL_LINK]->(p)
RETURN m.path AS from, coalesce(p.path, p.soname, 'vmlinux') AS to, p.path IS NULL AND p.soname IS NOT NULL AS missing,
       p.version AS kernel, e.state AS state, size(e.bound) AS count, size(e.gpl_only) AS gpl_only
ORDER BY from, to;
