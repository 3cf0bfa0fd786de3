// (e) Kernel modules whose licence the kernel treats as GPL-incompatible that bind to GPL-only exports (the kernel refuses them those symbols), with the symbols.
// GPL-compatible: exactly the strings of license_is_gpl_compatible() in the kernel's include/linux/license.h
// (linkgraph.loader.kmod.licence.GPL_COMPATIBLE holds the same list; a test compares the two answers).
MATCH (m:Module {firmware: $firmware})-[e:KERNEL_LINK]->(p)
WHERE size(e.gpl_only) > 0
  AND (e.licence IS NULL OR NOT e.licence IN ['GPL', 'GPL v2', 'GPL and additional rights', 'Dual BSD/GPL', 'Dual MIT/GPL', 'Dual MPL/GPL'])
RETURN m.path AS module, e.licence AS licence, coalesce(p.path, 'vmlinux') AS provider, e.gpl_only AS symbols
ORDER BY module, provider;
