"""Single compressed streams: gzip, xz, lzma ("alone"), bzip2 and zstd, decompressed to one file."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path
from typing import BinaryIO

import pyzstd

from .formats import NotThisFormat

CHUNK = 1 << 20
MAX_OUTPUT = 16 << 30  # a decompression bomb stops here


class TooLarge(Exception):
    """The stream decompresses to more than ``MAX_OUTPUT`` bytes."""


def open_stream(fmt: str, path: Path | BinaryIO) -> io.BufferedIOBase:
    """``path`` (or a file already open) read through the decompressor of ``fmt`` (one of ``STREAMS``)."""
    match fmt:
        case "gzip":
            return gzip.open(path, "rb")
        case "xz":
            return lzma.open(path, "rb", format=lzma.FORMAT_XZ)
        case "lzma":
            return lzma.open(path, "rb", format=lzma.FORMAT_ALONE)
        case "bzip2":
            return bz2.BZ2File(path, "rb")
        case "zstd":
            return pyzstd.open(path, "rb")
    raise ValueError(f"not a stream format: {fmt}")


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
    with open_stream(fmt, path) as src, open(out, "xb") as dst:
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
