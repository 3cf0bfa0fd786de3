// Kernel modules' links: module -> module and module -> kernel, with their state (used / declared-unused / hidden / missing), bound symbols and the GPL-only ones among them.
MATCH (m:Module {firmware: $firmware})-[e:KERNEL_LINK]->(p)
RETURN m.path AS module, coalesce(p.path, p.soname, 'vmlinux') AS target, e.state AS state, e.bound AS symbols,
       e.gpl_only AS gpl_only
ORDER BY module, target;
