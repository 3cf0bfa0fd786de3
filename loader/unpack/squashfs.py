"""squashfs with Debian's ``unsquashfs``, for unblob's squashfs handlers.

unblob extracts squashfs with ``sasquatch``, a patched unsquashfs that Debian does not
package. ``Unsquashfs`` replaces the extractor of every squashfs handler: it uses sasquatch
when one is installed (vendor-modified file systems need it), else ``unsquashfs`` from
squashfs-tools, which reads squashfs 1.x to 4.0 with every standard compressor (gzip, lzma,
lzo, xz, lz4, zstd) but not the big-endian or vendor variants of 4.0. When ``unsquashfs`` fails
on an LZMA squashfs, TP-Link's LZMA variant is tried (``squashfs_lzma.py``); if that fails too,
both reasons travel back with the chunk.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from unblob.extractors import Command
from unblob.file_utils import Endian, File, get_endian
from unblob.handlers.filesystem import squashfs
from unblob.models import ExtractError, Extractor, ExtractResult, Handler
from unblob.report import ErrorReport, Severity, register_report_types

from .links import MemberProblems
from .safe_tree import SafeTree
from .squashfs_lzma import VariantError, extract_tplink_lzma, is_lzma_squashfs

UNSQUASHFS = "unsquashfs"


class VariantNotRead(ErrorReport):
    """TP-Link's LZMA variant was tried after ``unsquashfs`` failed, and could not be read either."""

    severity: Severity = Severity.ERROR
    reason: str


register_report_types([VariantNotRead])


class Unsquashfs(Extractor):
    COMMAND = Command(UNSQUASHFS, "-no-xattrs", "-no-progress", "-force", "-dest", "{outdir}", "{inpath}")

    def __init__(self, original: Extractor) -> None:
        self.original = original  # unblob's sasquatch extractor, used when sasquatch exists

    def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
        if shutil.which(squashfs.SquashFSExtractor.EXECUTABLE) and self._sasquatch_can(inpath):
            return self.original.extract(inpath, outdir)
        try:
            return self.COMMAND.extract(inpath, outdir)
        except ExtractError as failed:
            if not is_lzma_squashfs(inpath):
                raise
            return _tplink_lzma(inpath, outdir, failed)

    def _sasquatch_can(self, inpath: Path) -> bool:
        """Big-endian squashfs 4 needs unblob's separate ``sasquatch-v4be`` too."""
        if not isinstance(self.original, squashfs.SquashFSExtractor) or self.original.version != 4:
            return True
        with File.from_path(inpath) as file:
            big = get_endian(file, self.original.big_endian_magic) is Endian.BIG
        return not big or bool(shutil.which(squashfs.SquashFSExtractor.V4BE_EXECUTABLE))

    def get_dependencies(self) -> list[str]:
        return [UNSQUASHFS]


def _tplink_lzma(inpath: Path, outdir: Path, failed: ExtractError) -> ExtractResult:
    """TP-Link's LZMA variant into ``outdir`` (emptied first); ``failed`` is unsquashfs's failure."""
    shutil.rmtree(outdir, ignore_errors=True)
    tree = SafeTree(outdir, inpath.name)
    try:
        extract_tplink_lzma(inpath, tree)
    except Exception as exc:  # hostile input: whatever the reader raises is the reason
        shutil.rmtree(outdir, ignore_errors=True)
        outdir.mkdir(parents=True, exist_ok=True)
        reason = f"{type(exc).__name__}: {exc}" if not isinstance(exc, VariantError) else str(exc)
        raise ExtractError(*failed.reports, VariantNotRead(reason=reason)) from None
    return ExtractResult(reports=[MemberProblems(problems=[(p.severity.value, p.message) for p in tree.problems])])


def extractor_of(handler: type[Handler]) -> Extractor | None:
    """``handler.EXTRACTOR``: unblob sets it on the class but declares it per instance, typed by a
    type variable, so reading it from the class is ambiguous to a type checker."""
    return handler.EXTRACTOR  # pyright: ignore[reportGeneralTypeIssues]


def with_unsquashfs(handler: type[Handler]) -> type[Handler]:
    """``handler`` with its sasquatch extractor replaced by ``Unsquashfs`` (others unchanged)."""
    original = extractor_of(handler)
    if not isinstance(original, squashfs.SquashFSExtractor):
        return handler
    return type(handler.__name__, (handler,), {"EXTRACTOR": Unsquashfs(original), "__module__": __name__})
