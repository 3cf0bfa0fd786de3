"""squashfs with Debian's ``unsquashfs``, for unblob's squashfs handlers.

unblob extracts squashfs with ``sasquatch``, a patched unsquashfs that Debian does not
package. ``Unsquashfs`` replaces the extractor of every squashfs handler: it uses sasquatch
when one is installed (vendor-modified file systems need it), else ``unsquashfs`` from
squashfs-tools, which reads squashfs 1.x to 4.0 with every standard compressor (gzip, lzma,
lzo, xz, lz4, zstd) but not the big-endian or vendor variants of 4.0. When ``unsquashfs`` fails
on an LZMA squashfs, TP-Link's LZMA variant is tried (``squashfs_lzma.py``); if that fails too,
both reasons travel back with the chunk. Both readers are bounded by the scan's budgets
(``loader/budget.py``): ``unsquashfs`` lists the file system first and is not run on one with
more entries or bytes than are left (``listing.py``); the variant stops reading at the limit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from unblob.extractors import Command
from unblob.file_utils import Endian, File, get_endian
from unblob.handlers.filesystem import squashfs
from unblob.models import ExtractError, Extractor, ExtractResult, Handler
from unblob.report import ErrorReport, Severity, register_report_types

from ..budget import BudgetReached, current
from .links import MemberProblems
from .listing import Cut, within_budget
from .safe_tree import SafeTree, TooManyEntries
from .squashfs_lzma import VariantError, extract_tplink_lzma, is_lzma_squashfs

UNSQUASHFS = "unsquashfs"


class VariantNotRead(ErrorReport):
    """TP-Link's LZMA variant was tried after ``unsquashfs`` failed, and could not be read either."""

    severity: Severity = Severity.ERROR
    reason: str


register_report_types([VariantNotRead])


class Unsquashfs(Extractor):
    ARGS = (UNSQUASHFS, "-no-xattrs", "-no-progress", "-force", "-dest", "{outdir}", "{inpath}")
    COMMAND = Command(*ARGS)

    def __init__(self, original: Extractor) -> None:
        self.original = original  # unblob's sasquatch extractor, used when sasquatch exists

    def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
        if shutil.which(squashfs.SquashFSExtractor.EXECUTABLE) and self._sasquatch_can(inpath):
            return self.original.extract(inpath, outdir)
        cut = within_budget(inpath)
        try:
            if cut is not None:  # only what the limits have room for (one problem says so)
                return self._some(inpath, outdir, cut)
            return self.COMMAND.extract(inpath, outdir)
        except ExtractError as failed:
            if not is_lzma_squashfs(inpath):
                raise
            return _tplink_lzma(inpath, outdir, failed)

    def _some(self, inpath: Path, outdir: Path, cut: Cut) -> ExtractResult | None:
        """Extract only the entries of ``cut`` (paths below the top), named in a file beside ``outdir``."""
        names = outdir.with_name(f"{outdir.name}.entries")
        names.write_bytes(b"".join(name + b"\n" for name in cut.names))
        escaped = str(names).replace("{", "{{").replace("}", "}}")  # a template, as the others
        try:
            Command(*self.ARGS[:-1], "-ef", escaped, self.ARGS[-1]).extract(inpath, outdir)  # options first
        finally:
            names.unlink(missing_ok=True)
        said = [("error", cut.problem)] if cut.problem is not None else []
        return ExtractResult(reports=[MemberProblems(problems=said)])

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
    except TooManyEntries as exc:  # what was extracted stays, one problem says where it stopped
        tree.problem("(file system)", str(exc))
    except BudgetReached as exc:
        current().reached(exc.kind, inpath.name)
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
