"""TP-Link's LZMA squashfs variant, built from scratch for the tests.

mksquashfs writes the tree with every table and block stored as it is (``-noI -noD -noF -noX``)
and, from a pseudo file, as many folders and links as a case needs; then the superblock's
compression id is set to LZMA and the id table's metadata block is compressed the way TP-Link's
SDK compresses every block (an LZMA stream with lc=1 lp=2 pb=2, a 5-byte header without the size
field, an end marker). Debian's ``unsquashfs`` cannot read that block ("File system corruption
detected"), as it cannot read a real TP-Link image, so a scan reaches the variant reader exactly
as it does on the stock firmware; the variant reader reads it, and the stored blocks need no
decompressor.

``directory_graph`` rewrites folder entries of such an image so that two names lead to one
directory: a chain of 40 levels where each level lists the next one twice (2^40 paths: a DAG),
or where the last level lists the first one (a loop).
"""

from __future__ import annotations

import lzma
import struct
import subprocess
from pathlib import Path

SUPERBLOCK = struct.Struct("<IIIIIHHHHHHQQQQQQQQ")
FIELDS = ("magic", "inodes", "mkfs_time", "block_size", "fragments", "compression", "block_log", "flags", "no_ids")
FIELDS += ("major", "minor", "root_inode", "bytes_used", "id_table", "xattr_table", "inode_table", "directory_table")
FIELDS += ("fragment_table", "lookup_table")
COMPRESSION_AT = 20
LZMA_ID = 2
UNCOMPRESSED = 0x8000  # a metadata block header's flag: stored as it is
METADATA = 8192
TPLINK_FILTER = {"id": lzma.FILTER_LZMA1, "lc": 1, "lp": 2, "pb": 2, "dict_size": 1 << 23}
MKSQUASHFS = ("mksquashfs", "-quiet", "-no-progress", "-noI", "-noD", "-noF", "-noX")


def _field(data: bytes | bytearray, name: str) -> int:
    return SUPERBLOCK.unpack_from(data)[FIELDS.index(name)]


def stored_squashfs(source: Path, image: Path, pseudo: Path | None = None, options: tuple[str, ...] = ()) -> Path:
    """``source`` (and the entries of ``pseudo``) as a squashfs with every block stored as it is."""
    extra = [*(["-pf", str(pseudo)] if pseudo is not None else []), *options]
    subprocess.run([*MKSQUASHFS[:1], str(source), str(image), "-noappend", *MKSQUASHFS[1:], *extra], check=True)
    return image


def append(source: Path, image: Path) -> None:
    """``source`` appended to the stored squashfs ``image`` (its own flags are kept)."""
    subprocess.run([*MKSQUASHFS[:1], str(source), str(image), *MKSQUASHFS[1:3], "-no-recovery"], check=True)


def tplink_block(raw: bytes) -> bytes:
    """``raw`` compressed as TP-Link's SDK compresses a squashfs block."""
    stream = lzma.compress(raw, format=lzma.FORMAT_ALONE, filters=[TPLINK_FILTER])
    return stream[:5] + stream[13:]  # the 8-byte size field is not written


def as_variant(image: Path) -> Path:
    """The stored squashfs ``image`` turned, in place, into TP-Link's LZMA variant (see above).

    The id table needs enough distinct owners that its block compresses to less than it holds."""
    data = bytearray(image.read_bytes())
    struct.pack_into("<H", data, COMPRESSION_AT, LZMA_ID)
    index = _field(data, "id_table")
    (block,) = struct.unpack_from("<Q", data, index)
    (header,) = struct.unpack_from("<H", data, block)
    assert header & UNCOMPRESSED, "the id table is stored as it is"
    raw = bytes(data[block + 2 : block + 2 + (header & ~UNCOMPRESSED)])
    packed = tplink_block(raw)
    assert len(packed) < len(raw), f"{len(raw)} bytes of ids do not compress: give the tree more owners"
    data[block : block + 2 + len(raw)] = struct.pack("<H", len(packed)) + packed + bytes(len(raw) - len(packed))
    image.write_bytes(bytes(data))
    return image


def chain_pseudo(pseudo: Path, levels: int) -> Path:
    """Folders ``a00/a01/.../aNN`` with an empty ``bNN`` beside each ``aNN`` and a file at the
    bottom, each folder with its own owner (the id table then compresses)."""
    lines, path = [], ""
    for level in range(levels):
        lines.append(f"{path}b{level:02d} d 755 {1000 + 2 * level} 0")
        path += f"a{level:02d}"
        lines.append(f"{path} d 755 {1001 + 2 * level} 0")
        path += "/"
    lines.append(f"{path}bottom s 777 0 0 /bin/sh")
    pseudo.write_text("\n".join(lines) + "\n")
    return pseudo


def directory_graph(image: Path, levels: int, loop: bool) -> Path:
    """Each ``bNN`` entry of a ``chain_pseudo`` image made to name ``aNN``'s inode (a DAG with 2^levels
    paths); with ``loop``, only the last one, made to name the top folder ``a00`` (a loop)."""
    data = bytearray(image.read_bytes())
    inodes, directories = _field(data, "inode_table"), _field(data, "directory_table")
    assert directories - inodes < METADATA, "every inode in the first metadata block (one start block)"
    later = (_field(data, name) for name in ("fragment_table", "lookup_table", "id_table", "xattr_table"))
    table = slice(directories, min(start for start in later if start > directories))

    def entry(name: str) -> int:  # a directory entry: offset u16, inode delta s16, type u16, size u16, name
        at = data.index(name.encode(), table.start, table.stop) - 8
        assert data.count(name.encode(), table.start, table.stop) == 1
        return at

    pairs = [(f"b{levels - 1:02d}", "a00")] if loop else [(f"b{level:02d}", f"a{level:02d}") for level in range(levels)]
    for name, named in pairs:
        source, target = entry(name), entry(named)
        data[source : source + 2] = data[target : target + 2]
    image.write_bytes(bytes(data))
    return image
