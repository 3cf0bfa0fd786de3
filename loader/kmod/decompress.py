"""A kernel module file's bytes: ``.ko`` as it is, ``.ko.xz`` / ``.ko.gz`` / ``.ko.zst`` decompressed
(what kmod's ``kmod_file_open`` accepts), recognised by their magic rather than their names, with
the output bounded."""

from __future__ import annotations

import lzma
import zlib
from pathlib import Path

import pyzstd

from ..errors import LinkgraphError
from ..problems import ProblemCode
from ..unpack.streams import open_stream

# The largest module Debian ships is about 20 MiB uncompressed (amdgpu with debug data stripped); a
# stream that decompresses past this is refused rather than followed.
MAX_MODULE_BYTES = 256 << 20
_MAGIC = ((b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"))
SUFFIXES = (".ko", ".ko.xz", ".ko.gz", ".ko.zst")


class ModuleReadError(LinkgraphError):
    """A module file that cannot be read or decompressed (``code``: the problem it is)."""

    def __init__(self, message: str, code: ProblemCode = ProblemCode.KMOD_UNREADABLE) -> None:
        super().__init__(message)
        self.code = code


def is_module_name(name: str) -> bool:
    return name.endswith(SUFFIXES)


def module_stem(name: str) -> str:
    """``foo-bar.ko.xz`` -> ``foo_bar``: the module name kmod derives from a file name."""
    base = name.rsplit("/", 1)[-1]
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base.replace("-", "_")


def compression_of(head: bytes) -> str | None:
    return next((fmt for magic, fmt in _MAGIC if head.startswith(magic)), None)


def read_module_bytes(path: Path, limit: int = MAX_MODULE_BYTES) -> tuple[bytes, str | None]:
    """The module's ELF bytes and the compression it was stored with (None: plain)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            fmt = compression_of(head)
            if fmt is None:
                data = head + f.read(limit + 1 - len(head))
                if len(data) > limit:
                    raise ModuleReadError(f"larger than {limit >> 20} MiB")
                return data, None
        with open_stream(fmt, path) as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error, pyzstd.ZstdError) as exc:
        raise ModuleReadError(f"cannot read: {exc}") from exc
    if len(data) > limit:
        raise ModuleReadError(f"{fmt} stream decompresses to more than {limit >> 20} MiB")
    return data, fmt
