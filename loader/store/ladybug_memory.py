"""LadybugDB's memory: its buffer pool sized from the machine's memory, and a query that fills it told
as a budget the scan reached, with what to do next (docs/graph.md, "The store's memory").

LadybugDB's own default pool is about 80% of the machine's memory: a classification that grows
without bound then takes the machine with it before failing. linkgraph gives it a quarter of the
memory the process may use (the machine's, or the control group's limit or the address space limit,
``ulimit -v``, when lower), at least ``FLOOR``; ``LINKGRAPH_DB_MEMORY_MIB`` sets another size.

LadybugDB also reserves address space for the database file itself (8 TiB by default, never touched
unless used): under an address space limit that reservation fails and no database opens, so there
the reservation is the largest power of two (LadybugDB's rule) within a quarter of the limit, and
the pool an eighth of it: what is only reserved counts against such a limit too (each thread's
stack, malloc's arenas, the Arrow tables being copied), and a tighter share left the scan short.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

ENV = "LINKGRAPH_DB_MEMORY_MIB"
MIB = 1 << 20
FLOOR = 256 * MIB
SHARE = 4  # the pool is one SHARE-th of the memory the process may use
SHARE_OF_LIMIT = 8  # ... or of an address space limit, when that is what bounds it
CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")
# what LadybugDB says when its buffer pool cannot give a query more pages
FULL = ("Buffer manager exception", "Unable to allocate memory", "buffer pool is full")


def address_space_limit() -> int | None:
    """The process's address space limit (``ulimit -v``, ``prlimit --as``) in bytes, None without one."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def max_db_size() -> int | None:
    """The address space LadybugDB may reserve for the database file: None (its default) without an
    address space limit, else the largest power of two within a quarter of it."""
    limit = address_space_limit()
    if limit is None:
        return None
    return 1 << max(0, (limit // 4).bit_length() - 1)


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its control group's limit or its
    address space limit if lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    total = min(total, address_space_limit() or total)
    try:
        limit = CGROUP_LIMIT.read_text().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def buffer_pool_size() -> int:
    """The buffer pool's size in bytes: ``LINKGRAPH_DB_MEMORY_MIB`` when set, else a quarter of
    ``machine_memory()``, at least ``FLOOR``."""
    wanted = os.environ.get(ENV, "").strip()
    if wanted:
        if not wanted.isdigit() or int(wanted) == 0:
            from ..errors import StoreError

            raise StoreError(f"{ENV}={wanted!r}: give the store's memory as a whole number of MiB, such as 2048")
        return int(wanted) * MIB
    memory, limit = machine_memory(), address_space_limit()
    share = SHARE_OF_LIMIT if limit is not None and memory >= limit else SHARE
    return max(FLOOR, memory // share)


def is_full(exc: BaseException) -> bool:
    """Whether LadybugDB's error says its buffer pool is full."""
    text = str(exc)
    return any(marker in text for marker in FULL)


def full_message(what: str, pool: int, exc: BaseException) -> str:
    """What a user reads when ``what`` (a query's or a table's name) filled the buffer pool."""
    return (
        f"scan-budget: the graph store's memory is full ({what} needed more than LadybugDB's buffer pool of "
        f"{pool // MIB} MiB; the machine has {machine_memory() // MIB} MiB). Nothing was written; the previous "
        f"graph is intact. Give the store more memory with {ENV}=N (MiB), scan a smaller part of the image, "
        f"or write to Neo4j (--neo4j URI). LadybugDB said: {exc}"
    )
