"""The unblob handlers we run: unblob's own, with three kinds of changes, plus ours.

- squashfs: ``unsquashfs`` from Debian's squashfs-tools instead of sasquatch (``squashfs.py``);
- tar, zip, cpio found inside images: our own guarded extraction, the same as for archives
  given directly (``archives.py``, ``cpio.py``), so bad members become problems alike;
- every handler keeps the extracted tree's symbolic links and drops device nodes (``links.py``);
- TP-Link and uImage headers and OpenWrt's jffs2 placeholder are recognised (``headers.py``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from unblob.handlers import BUILTIN_HANDLERS
from unblob.models import ExtractError, Extractor, ExtractResult, Handler, Handlers

from .archives import extract_archive
from .formats import ARCHIVES, NotThisFormat, format_of_handler
from .headers import HEADER_HANDLERS
from .links import MemberProblems, keeping_links
from .safe_tree import SafeTree
from .squashfs import with_unsquashfs


class ArchiveExtractor(Extractor):
    """Our own extraction of an archive chunk (tar, zip or cpio), every bad member a problem.

    Handlers may read attributes of their extractor (unblob's cpio handlers take the header
    parser from it): those come from the extractor replaced.
    """

    def __init__(self, fmt: str, original: Extractor) -> None:
        self.fmt = fmt
        self.original = original

    def __getattr__(self, name: str) -> object:
        return getattr(self.original, name)

    def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
        tree = SafeTree(outdir, source=inpath.name)
        try:
            extract_archive(self.fmt, inpath, tree)
        except NotThisFormat as exc:
            raise ExtractError(MemberProblems(problems=[("error", f"not a valid {self.fmt} archive: {exc}")])) from exc
        found = [(p.severity.value, p.message) for p in tree.problems]
        return ExtractResult(reports=[MemberProblems(problems=found)])


def _ours(handler: type[Handler]) -> type[Handler]:
    fmt = format_of_handler(handler.NAME)
    if fmt in ARCHIVES and handler.EXTRACTOR is not None:
        return type(handler.__name__, (handler,), {"EXTRACTOR": ArchiveExtractor(fmt, handler.EXTRACTOR),
                                                   "__module__": __name__})
    return with_unsquashfs(handler)


@functools.cache
def unpack_handlers() -> Handlers:
    """All handlers, built once (unblob caches its pattern database per handler tuple)."""
    return tuple(keeping_links(h) for h in (*HEADER_HANDLERS, *(_ours(h) for h in BUILTIN_HANDLERS)))
