"""Names of formats, and which archive or compressed stream a file starts with.

Archives and compressed streams are recognised by their first bytes only: they are unpacked
by this package's own code. Everything else is an image, searched for chunks by unblob.
"""

from __future__ import annotations

import re
from pathlib import Path

ARCHIVES = ("tar", "zip", "cpio")
STREAMS = ("gzip", "xz", "lzma", "bzip2", "zstd")
# formats whose extracted top folder is a file system tree: its top may be a root as it is
FILESYSTEMS = frozenset(
    {
        "squashfs",
        "cramfs",
        "jffs2",
        "ubifs",
        "ext",
        "yaffs",
        "romfs",
        "erofs",
        "cpio",
        "minix-fs",
        "iso9660",
        "fat",
        "ntfs",
        "ufs",
    }
)

HEAD_SIZE = 512


class NotThisFormat(Exception):
    """The file does not start like the archive or stream format it was taken for."""


# unblob handler name -> our format name, where stripping versions and byte orders is not enough
_HANDLER_NAMES = {
    "extfs": "ext",
    "jffs2_new": "jffs2",
    "jffs2_old": "jffs2",
    "elf32": "elf",
    "elf64": "elf",
    "trx_v1": "trx",
    "trx_v2": "trx",
    "sevenzip": "7z",
    "ufs1": "ufs",
    "ufs2": "ufs",
    "solaris_ufs1": "ufs",
}
_SUFFIXES = re.compile(r"(_v\d+)?(_(le|be|ddwrt|broadcom|nonstandard|ns))?$")


def format_of_handler(name: str) -> str:
    """Our name for an unblob handler's format: ``squashfs_v4_le`` -> ``squashfs``."""
    if name in _HANDLER_NAMES:
        return _HANDLER_NAMES[name]
    if name.startswith("cpio_"):
        return "cpio"
    if name.startswith("lz4"):
        return "lz4"
    return _SUFFIXES.sub("", name).replace("_", "-") or name


def _tar_checksum_ok(head: bytes) -> bool:
    if len(head) < HEAD_SIZE or head[0] == 0:
        return False
    field = head[148:156].split(b"\0", 1)[0].strip()
    try:
        stored = int(field, 8)
    except ValueError:
        return False
    unsigned = sum(head[:148]) + 8 * 0x20 + sum(head[156:512])
    signed = sum(b - 256 if b > 127 else b for b in head[:148] + head[156:512]) + 8 * 0x20
    return stored in (unsigned, signed)


def _lzma_alone(head: bytes) -> bool:
    """An LZMA "alone" header: properties byte, dictionary size, 64-bit size (or unknown)."""
    if len(head) < 13 or head[0] >= 9 * 5 * 5:
        return False
    dict_size = int.from_bytes(head[1:5], "little")
    size = int.from_bytes(head[5:13], "little")
    power_of_two = dict_size & (dict_size - 1) == 0
    two_powers = any(dict_size == (1 << n) + (1 << (n - 1)) for n in range(12, 31))
    return dict_size >= 4096 and (power_of_two or two_powers) and (size == (1 << 64) - 1 or size < 1 << 40)


def sniff(head: bytes) -> str | None:
    """The archive or stream format ``head`` (a file's first bytes) starts, or None for an image."""
    if head[257:262] == b"ustar" or _tar_checksum_ok(head):
        return "tar"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[:6] in (b"070701", b"070702", b"070707") or head[:2] in (b"\xc7\x71", b"\x71\xc7"):
        return "cpio"
    if head[:3] == b"\x1f\x8b\x08":
        return "gzip"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] == b"\x31\x41\x59\x26\x53\x59":
        return "bzip2"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    if _lzma_alone(head):
        return "lzma"
    return None


def read_head(path: Path, size: int = HEAD_SIZE) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)
