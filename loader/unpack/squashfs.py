"""squashfs with Debian's ``unsquashfs``, for unblob's squashfs handlers.

unblob extracts squashfs with ``sasquatch``, a patched unsquashfs that Debian does not
package. ``Unsquashfs`` replaces the extractor of every squashfs handler: it uses sasquatch
when one is installed (vendor-modified file systems need it), else ``unsquashfs`` from
squashfs-tools, which reads squashfs 1.x to 4.0 with every standard compressor (gzip, lzma,
lzo, xz, lz4, zstd) but not the big-endian or vendor variants of 4.0.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from unblob.extractors import Command
from unblob.file_utils import Endian, File, get_endian
from unblob.handlers.filesystem import squashfs
from unblob.models import Extractor, ExtractResult, Handler

UNSQUASHFS = "unsquashfs"


class Unsquashfs(Extractor):
    COMMAND = Command(UNSQUASHFS, "-no-xattrs", "-no-progress", "-force", "-dest", "{outdir}", "{inpath}")

    def __init__(self, original: Extractor) -> None:
        self.original = original  # unblob's sasquatch extractor, used when sasquatch exists

    def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
        if shutil.which(squashfs.SquashFSExtractor.EXECUTABLE) and self._sasquatch_can(inpath):
            return self.original.extract(inpath, outdir)
        return self.COMMAND.extract(inpath, outdir)

    def _sasquatch_can(self, inpath: Path) -> bool:
        """Big-endian squashfs 4 needs unblob's separate ``sasquatch-v4be`` too."""
        if not isinstance(self.original, squashfs.SquashFSExtractor) or self.original.version != 4:
            return True
        with File.from_path(inpath) as file:
            big = get_endian(file, self.original.big_endian_magic) is Endian.BIG
        return not big or bool(shutil.which(squashfs.SquashFSExtractor.V4BE_EXECUTABLE))

    def get_dependencies(self) -> list[str]:
        return [UNSQUASHFS]


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
