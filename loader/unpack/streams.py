"""Single compressed streams: gzip, xz, lzma ("alone"), bzip2 and zstd, decompressed to one file."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path
from typing import BinaryIO

import pyzstd

from ..budget import BudgetReached, Kind, current
from .formats import NotThisFormat

CHUNK = 1 << 20
MAX_OUTPUT = 16 << 30  # a decompression bomb stops here
STREAM_TAIL = 64 << 20  # bytes of a stream read past the archive it holds, to tell the stream's size


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


def _read(src: io.BufferedIOBase, fmt: str, written: int) -> bytes:
    """The next chunk; a decompression error is ``NotThisFormat`` before any output."""
    try:
        return src.read(CHUNK)
    except (OSError, EOFError, ValueError, lzma.LZMAError, pyzstd.ZstdError) as exc:
        if written == 0:
            raise NotThisFormat(f"not a {fmt} stream: {exc}") from exc
        raise


def _spend(written: int, chunk: int, limit: int) -> None:
    if written > limit:
        raise TooLarge(f"decompresses to more than {limit >> 20} MiB")
    current().spend(Kind.WRITTEN, chunk)


def decompress(fmt: str, path: Path, out: Path, limit: int = MAX_OUTPUT) -> int:
    """Decompress ``path`` into the new file ``out``; returns its size.

    ``NotThisFormat`` when nothing could be decompressed (the caller treats the file as an
    image instead); ``TooLarge`` past ``limit``, ``BudgetReached`` past the scan's ``written``
    budget: in both cases ``out`` is deleted (output past a bound is never searched); other
    decompression errors after some output are raised as they are (the output so far stays).
    """
    written = 0
    try:
        with open_stream(fmt, path) as src, open(out, "xb") as dst:
            while data := _read(src, fmt, written):
                written += len(data)
                _spend(written, len(data), limit)
                dst.write(data)
    except (TooLarge, BudgetReached):
        out.unlink(missing_ok=True)
        raise
    return written


def stream_size(src: io.BufferedIOBase) -> int | None:
    """The decompressed size of a stream read up to somewhere: what is left is read (at most
    ``STREAM_TAIL`` bytes, never written); None when it goes on past that or cannot be read."""
    try:
        for _ in range(STREAM_TAIL // CHUNK):
            if not src.read(CHUNK):
                return src.tell()
    except Exception:  # a damaged end: the size is not known
        return None
    return None
