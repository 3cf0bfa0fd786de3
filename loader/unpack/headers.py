"""unblob handlers for vendor headers unblob does not know, and OpenWrt's overlay marker.

Each is a header-only chunk with no extractor: it is recorded in ``carved`` and the payload
after it (an LZMA kernel, a squashfs) is found by unblob's scan of the rest of the file.
"""

from __future__ import annotations

import binascii

from unblob.file_utils import Endian, File, InvalidInputFormat
from unblob.models import Handler, HandlerDoc, HandlerType, HexString, Reference, StructHandler, ValidChunk


def _doc(name: str, description: str, vendor: str | None, url: str) -> HandlerDoc:
    return HandlerDoc(
        name=name,
        description=description,
        vendor=vendor,
        handler_type=HandlerType.ARCHIVE,
        references=[Reference(title=name, url=url)],
        limitations=["header only: not extracted"],
    )


class TPLinkHandler(StructHandler):
    """The 512-byte header of TP-Link firmware (version 1), as stock and OpenWrt images have it."""

    NAME = "tplink"
    HEADER_SIZE = 0x200
    # version 1, then "TP-LINK" or "OpenWrt"
    PATTERNS = [HexString("01 00 00 00 ( 54 50 2d 4c 49 4e 4b | 4f 70 65 6e 57 72 74 )")]  # noqa: RUF012 - unblob's Handler declares PATTERNS a list
    C_DEFINITIONS = r"""
        typedef struct tplink_header {
            uint32 version;
            char   vendor_name[24];
            char   fw_version[36];
            uint32 hw_id;
            uint32 hw_rev;
            uint32 region;
            char   md5sum1[16];
            uint32 unknown2;
            char   md5sum2[16];
            uint32 unknown3;
            uint32 kernel_la;
            uint32 kernel_ep;
            uint32 fw_length;
            uint32 kernel_ofs;
            uint32 kernel_len;
            uint32 rootfs_ofs;
            uint32 rootfs_len;
            uint32 boot_ofs;
            uint32 boot_len;
        } tplink_header_t;
    """
    HEADER_STRUCT = "tplink_header_t"
    EXTRACTOR = None
    DOC = _doc(
        "TP-Link firmware header",
        "Version 1 header of TP-Link router firmware: hardware id, kernel and rootfs offsets, MD5 sum.",
        "TP-Link",
        "https://github.com/openwrt/firmware-utils/blob/master/src/mktplinkfw.c",
    )

    def calculate_chunk(self, file: File, start_offset: int) -> ValidChunk | None:
        header = self.parse_header(file, Endian.BIG)
        kernel_end = header.kernel_ofs + header.kernel_len
        if header.hw_id == 0 or header.kernel_ofs < self.HEADER_SIZE or kernel_end > header.fw_length:
            raise InvalidInputFormat("implausible TP-Link header")
        return ValidChunk(start_offset=start_offset, end_offset=start_offset + self.HEADER_SIZE)


class UImageHandler(Handler):
    """The 64-byte legacy U-Boot image header (``mkimage``), checked by its header CRC.

    Big-endian: magic, header CRC, time, payload size, load address, entry point, payload
    CRC (32 bits each); OS, architecture, image type, compression (a byte each); name[32].
    """

    NAME = "uimage"
    HEADER_SIZE = 64
    PATTERNS = [HexString("27 05 19 56")]  # noqa: RUF012 - unblob's Handler declares an instance-level list
    EXTRACTOR = None
    DOC = _doc(
        "U-Boot legacy image header",
        "mkimage's 64-byte header: load address, entry point, "
        "payload size and CRC, OS, architecture, image type, compression.",
        None,
        "https://source.denx.de/u-boot/u-boot/-/blob/master/include/image.h",
    )

    def calculate_chunk(self, file: File, start_offset: int) -> ValidChunk | None:
        raw = bytearray(file.read(self.HEADER_SIZE))
        if len(raw) < self.HEADER_SIZE:
            raise InvalidInputFormat("truncated uImage header")
        stored = int.from_bytes(raw[4:8], "big")
        raw[4:8] = bytes(4)
        if binascii.crc32(raw) != stored:
            raise InvalidInputFormat("uImage header CRC mismatch")
        return ValidChunk(start_offset=start_offset, end_offset=start_offset + self.HEADER_SIZE)


class JFFS2PlaceholderHandler(Handler):
    """OpenWrt's ``0xdeadc0de``: where the jffs2 overlay (rootfs_data) will be made on first boot.

    It sits on an erase-block boundary after the squashfs and is followed by erased flash
    (``0xff``) or the end of the image. The chunk is the marker and the erased bytes after it.
    """

    NAME = "jffs2_placeholder"
    ALIGNMENT = 0x1000
    PATTERNS = [HexString("de ad c0 de")]  # noqa: RUF012 - unblob's Handler declares an instance-level list
    EXTRACTOR = None
    DOC = _doc(
        "OpenWrt jffs2 overlay placeholder",
        "The 0xdeadc0de marker after an OpenWrt squashfs: the jffs2 overlay is created there on first boot.",
        "OpenWrt",
        "https://openwrt.org/docs/techref/filesystems",
    )

    def calculate_chunk(self, file: File, start_offset: int) -> ValidChunk | None:
        if start_offset % self.ALIGNMENT:
            raise InvalidInputFormat("marker not on an erase-block boundary")
        file.seek(start_offset + 4)
        end = start_offset + 4
        while block := file.read(self.ALIGNMENT):
            erased = len(block) - len(block.lstrip(b"\xff"))
            end += erased
            if erased < len(block):
                break
        if end < min(start_offset + self.ALIGNMENT, file.size()):
            raise InvalidInputFormat("marker not followed by erased flash up to the end of its block")
        return ValidChunk(start_offset=start_offset, end_offset=end)


HEADER_HANDLERS = (TPLinkHandler, UImageHandler, JFFS2PlaceholderHandler)
