// (a) Modules under a GPL-incompatible or unknown licence that use GPL code (used or hidden edges, through up to three other modules, none of them GPL): every path, the status of each hop, and the programs in whose process every hop holds with that status (interposition and upcalls are no use). Computed once, when the scan classifies (classify.cypher).
MATCH (f:Finding {firmware: $firmware, kind: 'gpl-used-by'})
RETURN f.module AS module, f.licence AS licence, f.class AS class, f.gpl_module AS gpl_module, f.gpl_licence AS gpl_licence,
       f.hops AS hops, f.statuses AS statuses, f.programs AS programs
ORDER BY module, gpl_module, size(hops), f.id;
