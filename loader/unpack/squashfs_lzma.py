"""TP-Link's LZMA squashfs: squashfs 4.0 whose LZMA blocks have no uncompressed-size field.

squashfs-tools reads an LZMA squashfs block as an LZMA-alone stream: a properties byte, a
4-byte dictionary size, an 8-byte uncompressed size, then the range-coded data. The squashfs
of TP-Link's stock firmware (TL-MR3020 v1 3.17.2, built with their SDK's mksquashfs) writes
the properties byte and the dictionary size only, with lc=1 lp=2 pb=2 (``0x6d``, not LZMA's
default ``0x5d``) and a 16 MiB dictionary, and ends every stream with an end marker: Debian's
``unsquashfs`` (every version; its LZMA reader wants the 13-byte header) says "File system
corruption detected", and unblob's default handler needs ``sasquatch``, which no distribution
packages.

No maintained unpacker reads these blocks as they are, but one maintained squashfs 4.0 reader
takes a decompressor of our choosing: PySquashfsImage (PyPI, LGPL-3.0, used unmodified as a
library). This module adds only the decompressor (Python's ``lzma`` with the stream's own
properties) and writes the tree it reads through a ``SafeTree``: nothing outside the output
folder, symbolic links stored as they are (never followed), hard links kept, device nodes
skipped. It is tried only on an LZMA squashfs that ``unsquashfs`` failed on.

Bounds: every block is read from the chunk's file (a read past its end is an error), each
block's output is capped at the size squashfs allows for it (8 KiB of metadata, one data
block) and must end where its stream ends; a file's block list may not be longer than the
inode table could hold. The directory table is walked with a stack and a visited set (a
directory listed twice is a loop, refused as ``unsquashfs`` refuses it), in the order
``unsquashfs`` lists it, and no further than the entries left (``MAX_ENTRIES``, the scan's
budget) and the symbolic links one image may hold (``listing.MAX_LINKS``, as for ``unsquashfs``).
"""

from __future__ import annotations

import lzma
import os
import struct
from ctypes import sizeof
from pathlib import Path

from PySquashfsImage import SquashFsImage  # pyright: ignore[reportMissingTypeStubs]
from PySquashfsImage.const import Type  # pyright: ignore[reportMissingTypeStubs]
from PySquashfsImage.file import (  # pyright: ignore[reportMissingTypeStubs]
    Directory,
    RegularFile,
    Symlink,
    filetype,
)
from PySquashfsImage.structure import DirEntry, DirHeader  # pyright: ignore[reportMissingTypeStubs]

from ..budget import Kind, current
from .listing import MAX_LINKS
from .safe_tree import MAX_ENTRIES, STOPS, SafeTree

SUPERBLOCK = struct.Struct("<IIIIIHHHHHHQQQQQQQQ")
MAGIC = 0x73717368  # "hsqs", little-endian squashfs
LZMA_ID = 2  # the superblock's compression id for LZMA
ALONE_HEADER = 5  # properties byte and dictionary size: the size field is missing
UNKNOWN_SIZE = b"\xff" * 8  # what an LZMA-alone header says when it does not know the size
METADATA_SIZE = 8192
MAX_PROPERTIES = 9 * 5 * 5  # lc < 9, lp < 5, pb < 5
LINK_TYPES = (Type.SYMLINK, Type.LSYMLINK)


class VariantError(ValueError):
    """The squashfs is not (readable as) TP-Link's LZMA variant."""


def is_lzma_squashfs(path: Path) -> bool:
    """Is ``path`` a little-endian squashfs 4.0 that says it is LZMA-compressed?"""
    with open(path, "rb") as fh:
        head = fh.read(SUPERBLOCK.size)
    if len(head) < SUPERBLOCK.size:
        return False
    fields = SUPERBLOCK.unpack(head)
    magic, compression, major, minor = fields[0], fields[5], fields[9], fields[10]
    return magic == MAGIC and compression == LZMA_ID and (major, minor) == (4, 0)


def decompress_block(data: bytes, limit: int) -> bytes:
    """One block: 5-byte header (properties, dictionary size), LZMA data, end marker.

    At most ``limit`` bytes come out; a stream that is cut short, longer than ``limit`` or not
    LZMA is an error. The dictionary is never made larger than ``limit``: the stream cannot
    refer further back than what it produced.
    """
    if len(data) <= ALONE_HEADER or data[0] >= MAX_PROPERTIES:
        raise VariantError("not an LZMA stream with a 5-byte header")
    dictionary = max(4096, min(int.from_bytes(data[1:5], "little"), limit))
    stream = data[:1] + dictionary.to_bytes(4, "little") + UNKNOWN_SIZE + data[ALONE_HEADER:]
    decoder = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE)
    try:
        out = decoder.decompress(stream, max_length=limit)
    except lzma.LZMAError as exc:
        raise VariantError(f"LZMA data error: {exc}") from exc
    if not decoder.eof:
        raise VariantError(f"LZMA stream does not end within {limit} bytes of output")
    return out


class _Decompressor:
    name = "lzma (no size field)"

    def uncompress(self, src: bytes, size: int, outsize: int) -> bytes:
        if len(src) != size:
            raise VariantError(f"block of {size} bytes cut short by the end of the file ({len(src)} present)")
        return decompress_block(src, max(outsize, METADATA_SIZE))


class _Image(SquashFsImage):
    """PySquashfsImage with the decompressor above, the block list bounded by the file and the
    directory tree read with a stack, a visited set and a bound on the entries read."""

    def __init__(self, fh: object, max_entries: int) -> None:
        self.max_entries = max_entries
        self.entries = self.links = 0  # directory entries read, symbolic links among them
        self.cut = False  # entries past ``max_entries`` (or links past ``MAX_LINKS``) left unread
        self.cut_links = False  # it was the links
        super().__init__(fh, closefd=False)

    def _dir_scan(self, start_block: int, offset: int) -> Directory:
        """The tree below the directory inode at (``start_block``, ``offset``), walked with a stack in
        the order ``unsquashfs`` lists it (a folder's listing is read when its turn comes, so the
        entries kept at the limit are the first ones listed)."""
        seen = {(start_block, offset)}
        top = Directory(self, self._read_inode(start_block, offset))
        pending = [top]
        while pending:
            directory = pending.pop()
            below: list[Directory] = []
            for entry in self._listing(directory):
                where = (entry["start_block"], entry["offset"])
                if entry["type"] == Type.DIR:
                    if where in seen:
                        raise VariantError(f"directory loop detected: {os.fsdecode(entry['name'])!r} is listed twice")
                    seen.add(where)
                    child = Directory(self, self._read_inode(*where), entry["name"], directory)
                    below.append(child)
                else:
                    child = filetype[entry["type"]](self, self._read_inode(*where), entry["name"], directory)
                directory.children[child.name] = child
            pending.extend(reversed(below))  # the first folder is read next
        return top

    def _listing(self, directory: Directory) -> list[dict]:
        """The entries of ``directory`` (read as the library's ``_opendir`` reads them), none past
        ``max_entries`` in all."""
        inode = directory.inode
        entries: list[dict] = []
        sb = self._sblk
        if inode.data == 3 or sb is None:
            return entries
        start, offset, size, done = sb.directory_table_start + inode.start, inode.offset, inode.data - 3, 0
        while done < size and not self.cut:
            data, start, offset = self._read_directory_data(start, offset, sizeof(DirHeader))
            header = DirHeader.from_bytes(data)
            done += sizeof(DirHeader)
            for _ in range(header.count + 1):
                if self.entries >= self.max_entries:
                    self.cut = True
                    break
                data, start, offset = self._read_directory_data(start, offset, sizeof(DirEntry))
                entry = DirEntry.from_bytes(data)
                if entry.type in LINK_TYPES and self.links >= MAX_LINKS:
                    self.cut = self.cut_links = True
                    break
                self.links += entry.type in LINK_TYPES
                name, start, offset = self._read_directory_data(start, offset, entry.size + 1)
                done += sizeof(DirEntry) + entry.size + 1
                self.entries += 1
                entries.append(
                    {"name": name, "start_block": header.start_block, "offset": entry.offset, "type": entry.type}
                )
        return entries

    def _get_compressor(self, compression_id: int) -> _Decompressor:
        if compression_id != LZMA_ID:
            raise VariantError(f"compression id {compression_id}, not LZMA")
        return _Decompressor()

    def _read_block_list(self, start: int, offset: int, blocks: int) -> list[int]:
        sb = self._sblk
        if sb is None:
            raise VariantError("no superblock read")
        inode_table = max(0, sb.directory_table_start - sb.inode_table_start)
        if blocks * 4 > inode_table // 2 * METADATA_SIZE:
            raise VariantError(f"a file of {blocks} blocks: longer than the inode table could list")
        return super()._read_block_list(start, offset, blocks)


def _name(node: object) -> str:
    raw: bytes = node._name  # pyright: ignore[reportAttributeAccessIssue] - the name as stored (bytes)
    return os.fsdecode(raw)


def extract_tplink_lzma(path: Path, tree: SafeTree) -> int:
    """Extract TP-Link's LZMA squashfs at ``path`` into ``tree``; returns the entries written.

    Raises ``VariantError`` (or the reader's own exception) when the file system cannot be read
    at all; a single file that cannot be read is a problem in ``tree`` and the rest goes on.
    """
    if not is_lzma_squashfs(path):
        raise VariantError("not a little-endian LZMA squashfs 4.0")
    budget = current()
    limit = min(tree.max_entries, MAX_ENTRIES, budget.left(Kind.ENTRIES))
    with open(path, "rb") as fh:
        image = _Image(fh, limit)
        first_path: dict[int, str] = {}  # inode number -> the first name of a hard-linked file
        written = 0
        if image.root is None:
            raise VariantError("no root folder read")
        pending: list[tuple[str, Directory]] = [("", image.root)]
        while pending:
            prefix, folder = pending.pop()
            for node in folder.children.values():
                name = f"{prefix}{_name(node)}"
                written += 1
                try:
                    _write(tree, name, node, first_path, pending)
                except STOPS:
                    raise  # the whole extraction stops (the caller keeps what was written)
                except Exception as exc:  # hostile input: one unreadable file, the rest goes on
                    tree.problem(name, f"cannot be extracted: {type(exc).__name__}: {exc}")
    if image.cut_links:
        tree.problem("(file system)", f"more than {MAX_LINKS:,} symbolic links: the rest is not extracted")
    elif image.cut and limit < min(tree.max_entries, MAX_ENTRIES):
        budget.reached(Kind.ENTRIES, tree.source)
    elif image.cut:
        tree.problem("(file system)", f"more than {limit:,} entries: the rest is not extracted")
    return written


def _write(tree: SafeTree, name: str, node: object, first_path: dict[int, str], pending: list) -> None:
    """One entry of the file system into ``tree`` (a folder's children are walked later)."""
    if isinstance(node, Directory):
        tree.make_dir(name, node.mode)
        pending.append((f"{name}/", node))
    elif isinstance(node, Symlink):
        tree.make_symlink(name, node.readlink())
    elif isinstance(node, RegularFile):
        number = node.inode.inode_number
        if number in first_path:
            tree.make_hardlink(name, first_path[number])
        else:
            first_path[number] = name
            tree.write_file(name, node.iter_bytes(), node.mode)
    else:
        tree.skip_special(name)
