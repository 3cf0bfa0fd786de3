"""Extractors that replace unblob's own where those lose what the analysis needs.

- tar, zip and cpio chunks found inside images: our guarded extraction (``ArchiveExtractor``),
  the same as for archives given directly, so every bad member is a problem alike;
- cramfs: util-linux's ``fsck.cramfs --extract`` instead of 7-Zip, which drops every symbolic
  link whose target has a ``..`` in it (``sbin/init -> ../bin/busybox``);
- ubifs: ``ubireader_extract_files`` with ``--keep-permissions`` when running as root, else
  every file comes out without its execute bits.
squashfs has its own module (``squashfs.py``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from unblob.extractors import Command
from unblob.models import ExtractError, Extractor, ExtractResult, Handler

from ..budget import BudgetReached, current
from .archives import extract_archive
from .formats import ARCHIVES, NotThisFormat, format_of_handler
from .links import MemberProblems
from .safe_tree import SafeTree, TooManyEntries
from .squashfs import extractor_of, with_unsquashfs


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
        except TooManyEntries as exc:  # what was extracted stays; the message says where it stopped
            tree.problem("(archive)", str(exc))
        except BudgetReached as exc:  # the same: one scan-budget problem for the whole scan
            current().reached(exc.kind, inpath.name)
        return ExtractResult(reports=[MemberProblems(problems=[(p.severity.value, p.message) for p in tree.problems])])


class FsckCramfs(Extractor):
    """cramfs (either byte order) with ``fsck.cramfs``; unblob's 7-Zip where that is missing."""

    COMMAND = Command("fsck.cramfs", "--extract={outdir}", "{inpath}")

    def __init__(self, original: Extractor) -> None:
        self.original = original

    def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
        if not shutil.which("fsck.cramfs"):
            return self.original.extract(inpath, outdir)
        outdir.rmdir()  # fsck.cramfs makes the folder itself (the handler made it, empty)
        try:
            return self.COMMAND.extract(inpath, outdir)
        finally:
            outdir.mkdir(exist_ok=True)

    def get_dependencies(self) -> list[str]:
        return ["fsck.cramfs"]


UBIFS_KEEPING_MODES = Command("ubireader_extract_files", "{inpath}", "-w", "--keep-permissions", "-o", "{outdir}")


def with_our_extractor(handler: type[Handler]) -> type[Handler]:
    """``handler``, or a subclass of it with one of the extractors above."""
    fmt = format_of_handler(handler.NAME)
    original = extractor_of(handler)
    if fmt in ARCHIVES and original is not None:
        extractor: Extractor = ArchiveExtractor(fmt, original)
    elif fmt == "cramfs" and original is not None:
        extractor = FsckCramfs(original)
    elif fmt == "ubifs" and os.geteuid() == 0:
        extractor = UBIFS_KEEPING_MODES
    else:
        return with_unsquashfs(handler)
    return type(handler.__name__, (handler,), {"EXTRACTOR": extractor, "__module__": __name__})
