"""The unblob handlers we run: unblob's own, some with another extractor, and ours.

- squashfs: ``unsquashfs`` from Debian's squashfs-tools instead of sasquatch (``squashfs.py``);
- tar, zip and cpio inside images, cramfs and ubifs: see ``extractors.py``;
- every handler keeps the extracted tree's symbolic links and drops device nodes (``links.py``);
- every handler gives up on a file where it misses too often (``search_budget.py``);
- TP-Link and uImage headers and OpenWrt's jffs2 placeholder are recognised (``headers.py``).
"""

from __future__ import annotations

import functools

from unblob.handlers import BUILTIN_HANDLERS
from unblob.models import Handlers

from .extractors import with_our_extractor
from .headers import HEADER_HANDLERS
from .links import keeping_links
from .search_budget import bounded_search


@functools.cache
def unpack_handlers() -> Handlers:
    """All handlers, built once (unblob caches its pattern database per handler tuple)."""
    ours = (*HEADER_HANDLERS, *(with_our_extractor(h) for h in BUILTIN_HANDLERS))
    return tuple(bounded_search(keeping_links(h)) for h in ours)
