"""Single compressed streams: gzip, xz, lzma ("alone"), bzip2 and zstd, decompressed to one file."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pyzstd

from .formats import NotThisFormat

CHUNK = 1 << 20
MAX_OUTPUT = 16 << 30  # a decompression bomb stops here


class TooLarge(Exception):
    """The stream decompresses to more than ``MAX_OUTPUT`` bytes."""


OPENERS: dict[str, Callable[[Path], IO[bytes]]] = {
    "gzip": lambda p: gzip.open(p, "rb"),
    "xz": lambda p: lzma.open(p, "rb", format=lzma.FORMAT_XZ),
    "lzma": lambda p: lzma.open(p, "rb", format=lzma.FORMAT_ALONE),
    "bzip2": lambda p: bz2.open(p, "rb"),
    "zstd": lambda p: pyzstd.open(p, "rb"),
}


def output_name(fmt: str) -> str:
    """What the decompressed file is called (the name unblob gives it, too)."""
    return f"{fmt}.uncompressed"


def decompress(fmt: str, path: Path, out: Path, limit: int = MAX_OUTPUT) -> int:
    """Decompress ``path`` into the new file ``out``; returns its size.

    ``NotThisFormat`` when nothing could be decompressed (the caller treats the file as an
    image instead); ``TooLarge`` past ``limit``; other decompression errors after some output
    are raised as they are (the output so far stays).
    """
    written = 0
    with OPENERS[fmt](path) as src, open(out, "xb") as dst:
        while True:
            try:
                data = src.read(CHUNK)
            except (OSError, EOFError, ValueError, lzma.LZMAError, pyzstd.ZstdError) as exc:
                if written == 0:
                    raise NotThisFormat(f"not a {fmt} stream: {exc}") from exc
                raise
            if not data:
                break
            written += len(data)
            if written > limit:
                raise TooLarge(f"decompresses to more than {limit >> 20} MiB")
            dst.write(data)
    return written
