"""Unpack: a directory, an archive or a raw firmware image in, root filesystems out.

    result = unpack(Path("lede-...-sysupgrade.bin"), Path("work"))
    result.kind                      # "image"
    [r.name for r in result.roots]   # ["squashfs@0x133444"]
    result.roots[0].path             # work/0001-.../1258564-3477664.squashfs_v4_le_extract
    result.carved                    # tplink@0x0, lzma@0x200, squashfs@0x133444, jffs2-placeholder@0x360000, ...

Archives (tar, cpio, zip) and compressed streams (gzip, xz, lzma, bzip2, zstd) are
extracted by this package's own guarded code; images go through unblob, used as a library,
with squashfs extracted by Debian's ``unsquashfs`` (TP-Link's LZMA variant, which it refuses, by
PySquashfsImage: ``squashfs_lzma.py``). Everything is written below ``workdir``;
a bad archive member, a failing extractor or a damaged chunk becomes a ``Problem``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..problems import Problem, ProblemCode, Severity
from .records import ARCHIVE, DIRECTORY, IMAGE, Carved, FoundRoot, Progress, Unpacked

__all__ = ["ARCHIVE", "DIRECTORY", "IMAGE", "Carved", "FoundRoot", "Unpacked", "unpack"]


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


def unpack(target: Path, workdir: Path, progress: Progress | None = None) -> Unpacked:
    """Find the root filesystems in ``target``, extracting into ``workdir`` when needed.

    A directory is its own single root (nothing is extracted). Anything else is unpacked into
    new folders below ``workdir`` (created if missing), recursively: archives in archives,
    images in archives, file systems in images. ``progress(stage, done, total)`` is called as
    files are unpacked.
    """
    target = Path(target)
    if target.is_dir():
        return Unpacked(kind=DIRECTORY, roots=[FoundRoot(target.resolve().name or "/", target, [])])
    if not target.is_file():
        problem = Problem(str(target), Severity.ERROR, "not a file or a directory", ProblemCode.UNPACK)
        return Unpacked(kind=IMAGE, problems=[problem])
    from .driver import Unpacker  # imports unblob (slow): only when there is something to unpack

    # unblob runs helper commands installed beside this Python (jefferson, ubireader_*): make sure
    # they are found even when the virtual environment is not activated.
    scripts = os.path.dirname(sys.executable)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    return Unpacker(workdir.resolve(), progress or _no_progress).run(target.resolve())
