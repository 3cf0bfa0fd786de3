"""The kernel's own exports, from what the firmware carries, tried in this order:

1. a ``Module.symvers`` (the build's own list, with each export's type);
2. a ``vmlinux`` ELF: its ``__ksymtab*`` sections (``__kflagstab`` in the newer layout);
3. a raw kernel image: the tables located through kallsyms, which ``vmlinux-to-elf`` recovers
   (an optional tool, GPL-3.0-or-later: linkgraph runs it as a program, see kallsyms_tool, and
   does not depend on it); without it, or
   without kallsyms in the image, the tables found by their shape (``ksymtab_scan``); the
   reasons are recorded.

Each returns a :class:`KernelExports` whose ``detail`` says what was found or why nothing was.
"""

from __future__ import annotations

import io
import lzma
import struct
from pathlib import Path

import pyzstd
from elftools.elf.elffile import ELFFile

from ..elf.facts import is_elf
from ..unpack.streams import open_stream
from . import kallsyms_tool
from .ksymtab import CORRUPT, FLAGS, KSYM_FLAG_GPL_ONLY, STRINGS, TABLES
from .ksymtab_image import Reader, Strings, decode_table
from .ksymtab_scan import recover
from .model import ExportKind, KernelExports, KernelSource
from .symvers import kernel_exports, read_symvers

MAX_KERNEL_BYTES = 512 << 20  # a decompressed allyesconfig vmlinux is a few hundred MiB
# The search by shape reads every word of the image (about 2 s for 4 MiB); kernels this large
# are built with kallsyms in practice.
MAX_SHAPE_BYTES = 32 << 20
MAX_DECOMPRESSED_BYTES = 256 << 20  # a self-decompressing image's kernel, decompressed
# the streams vmlinux-to-elf decompresses whose size is checked first (its LZ4 and LZO are not)
_STREAM_MAGIC = (
    (b"\x1f\x8b\x08", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"]\x00\x00", "lzma"),
    (b"\x6d\x00\x00", "lzma"),
    (b"BZh", "bzip2"),
    (b"(\xb5/\xfd", "zstd"),
)
MAX_CANDIDATES = 64  # streams tried per magic in an image without a banner
_BANNER = b"Linux version "
STRINGS_SEARCH = 4 << 20  # bytes after the tables where the names are looked for (Debian's: 200 KiB)


def from_symvers(path: Path, shown: str) -> KernelExports:
    try:
        entries, bad = read_symvers(path)
    except (OSError, ValueError) as exc:
        return KernelExports(KernelSource.NONE, path=shown, detail=f"Module.symvers unreadable: {exc}")
    exports = kernel_exports(entries)
    detail = f"{len(exports)} vmlinux exports of {len(entries)} entries"
    if bad:
        detail += f"; {len(bad)} lines not understood"
    return KernelExports(KernelSource.SYMVERS, exports, shown, detail)


def _tables(read: Reader, bounds: dict[str, tuple[int, int]], little: bool, word: int) -> dict[str, ExportKind]:
    """Decode the tables whose [start, stop) addresses are in ``bounds`` (keyed by section name)."""
    if STRINGS not in bounds:
        raise ValueError(f"no {STRINGS}")
    s_start, s_stop = bounds[STRINGS]
    raw = read(s_start, s_stop - s_start)
    if raw is None:
        raise ValueError(f"{STRINGS} is not in the image")
    strings = Strings(s_start, raw)
    exports: dict[str, ExportKind] = {}
    flagged = FLAGS in bounds
    for name, kind in TABLES.items():
        if name not in bounds:
            continue
        start, stop = bounds[name]
        table = read(start, stop - start)
        if table is None:
            raise ValueError(f"{name} is not in the image")
        names = decode_table(table, start, strings, little, word) if table else []
        if flagged and name == "__ksymtab":
            f_start, f_stop = bounds[FLAGS]
            flags = read(f_start, f_stop - f_start)
            if flags is None or len(flags) != len(names):
                raise ValueError(f"{FLAGS} does not match __ksymtab")
            for sym, flag in zip(names, flags, strict=True):
                exports.setdefault(sym, ExportKind.GPL if flag & KSYM_FLAG_GPL_ONLY else ExportKind.PLAIN)
        else:
            for sym in names:
                exports.setdefault(sym, kind)
    return exports


def _elf_exports(data: bytes) -> dict[str, ExportKind]:
    elf = ELFFile(io.BytesIO(data))
    bounds: dict[str, tuple[int, int]] = {}
    spans: list[tuple[int, int, int]] = []  # address, size, file offset
    for sec in elf.iter_sections():
        h = sec.header
        if h["sh_type"] == "SHT_PROGBITS" and h["sh_addr"] and h["sh_offset"] + h["sh_size"] <= len(data):
            spans.append((h["sh_addr"], h["sh_size"], h["sh_offset"]))
            if sec.name in TABLES or sec.name in (STRINGS, FLAGS):
                bounds[sec.name] = (h["sh_addr"], h["sh_addr"] + h["sh_size"])

    def read(address: int, size: int) -> bytes | None:
        for start, length, offset in spans:
            if start <= address and address + size <= start + length:
                return data[offset + address - start : offset + address - start + size]
        return None

    return _tables(read, bounds, elf.little_endian, elf.elfclass // 8)


def from_vmlinux_bytes(data: bytes, shown: str, source: KernelSource = KernelSource.VMLINUX) -> KernelExports:
    try:
        exports = _elf_exports(data)
    except CORRUPT as exc:
        reason = str(exc) or type(exc).__name__
        return KernelExports(KernelSource.NONE, path=shown, detail=f"vmlinux export tables unreadable: {reason}")
    return KernelExports(source, exports, shown, f"{len(exports)} exports from its __ksymtab sections")


def _decompresses_within(data: bytes, offset: int, limit: int) -> bool:
    """Whether the stream at ``offset`` (gzip, xz, lzma, bzip2, zstd) decompresses to at most
    ``limit`` bytes: read through in chunks, the output dropped. vmlinux-to-elf decompresses a
    stream whole, whatever its size: a few MiB of gzip would become gigabytes."""
    fmt = next((f for magic, f in _STREAM_MAGIC if data.startswith(magic, offset)), None)
    if fmt is None:
        return True
    total = 0
    source = io.BytesIO(data)  # shares the bytes (no copy)
    source.seek(offset)
    try:
        with open_stream(fmt, source) as stream:
            while chunk := stream.read(1 << 20):
                total += len(chunk)
                if total > limit:
                    return False
    except (OSError, EOFError, ValueError, lzma.LZMAError, pyzstd.ZstdError):
        pass  # what the tool makes of a broken stream is its own (its output is bounded by it)
    return True


def _candidate_streams(data: bytes) -> list[int]:
    """The offsets where vmlinux-to-elf's unpacker would try a stream: the start, the words of the
    last 80 bytes, and, in an image without a version banner, where a stream's magic is (the
    first ``MAX_CANDIDATES`` of each)."""
    offsets = {0}
    for order in "<>":
        offsets |= set(struct.unpack(f"{order}20I", data[-80:])) if len(data) >= 80 else set()
    if _BANNER not in data:
        for magic, _ in _STREAM_MAGIC:
            at = data.find(magic)
            for _ in range(MAX_CANDIDATES):
                if at < 0:
                    break
                offsets.add(at)
                at = data.find(magic, at + 1)
    return sorted(o for o in offsets if o < len(data))


def _refused_stream(data: bytes) -> int | None:
    """The first stream the unpacker would try that decompresses past the bound."""
    return next(
        (o for o in _candidate_streams(data) if not _decompresses_within(data, o, MAX_DECOMPRESSED_BYTES)), None
    )


def from_image(data: bytes, shown: str) -> KernelExports:
    """A raw (possibly self-decompressing) kernel image, through vmlinux-to-elf run as a program."""
    if not kallsyms_tool.installed():
        return _by_shape(data, shown, "vmlinux-to-elf is not installed")
    refused = _refused_stream(data)
    if refused is not None:
        limit = f"decompresses to more than {MAX_DECOMPRESSED_BYTES >> 20} MiB, not decompressed"
        return _by_shape(data, shown, f"the stream at {refused:#x} {limit}")
    try:
        raw = kallsyms_tool.decompress(data)
    except kallsyms_tool.ToolError:
        raw = data  # the bytes are then taken as they are
    if is_elf(raw):
        return from_vmlinux_bytes(raw, shown, KernelSource.IMAGE)
    try:
        kernel = kallsyms_tool.symbolize(raw)
    except kallsyms_tool.ToolError as exc:
        return _by_shape(raw, shown, f"no kallsyms recovered by vmlinux-to-elf ({exc})")
    symbols, spans = kernel.symbols, kernel.spans
    bounds = {
        name: (symbols[f"__start_{name}"], symbols[f"__stop_{name}"])
        for name in (*TABLES, FLAGS)
        if f"__start_{name}" in symbols and f"__stop_{name}" in symbols
    }
    # __ksymtab_strings has no symbols of its own (include/asm-generic/vmlinux.lds.h): it follows
    # the last of the export and CRC tables; the names are looked for in the bytes after it
    ends = [symbols[f"__stop_{n}"] for n in (*TABLES, FLAGS, "__kcrctab", "__kcrctab_gpl") if f"__stop_{n}" in symbols]
    if ends:
        bounds[STRINGS] = (max(ends), max(ends) + STRINGS_SEARCH)

    def read(address: int, size: int) -> bytes | None:
        for start, content in spans:
            at = address - start
            if 0 <= at <= len(content) and size >= 0:
                return content[at : at + size]
        return None

    try:
        exports = _tables(read, bounds, kernel.little, kernel.word)
    except ValueError as exc:
        return _by_shape(raw, shown, f"kallsyms recovered, export tables not read through it ({exc})")
    return KernelExports(
        KernelSource.IMAGE, exports, shown, f"{len(exports)} exports via kallsyms ({len(symbols)} symbols)"
    )


def _by_shape(raw: bytes, shown: str, why: str) -> KernelExports:
    """The tables found by their shape (``ksymtab_scan``), in an image small enough to search."""
    if len(raw) > MAX_SHAPE_BYTES:
        return KernelExports(KernelSource.NONE, path=shown, detail=f"{why}; too large to search by shape")
    found = recover(raw)
    if found is None:
        return KernelExports(KernelSource.NONE, path=shown, detail=f"{why}; no export table found by shape")
    return KernelExports(KernelSource.IMAGE, found.exports, shown, f"{why}; {found.detail}")


def find_kernel_exports(
    root: Path, symvers: list[str], vmlinux: list[str], images: list[Path] | None = None
) -> KernelExports:
    """The kernel's exports for the modules of ``root``, from the first source that has them:
    ``symvers`` and ``vmlinux`` are device paths of candidate files in the root, ``images`` host
    paths of kernel images found beside it."""
    reasons: list[str] = []
    for device in symvers:
        found = from_symvers(root / device.lstrip("/"), device)
        if found.source is not KernelSource.NONE:
            return found
        reasons.append(found.detail)
    for device in vmlinux:
        data = _read_bounded(root / device.lstrip("/"))
        if data is None or not is_elf(data):
            continue
        found = from_vmlinux_bytes(data, device)
        if found.source is not KernelSource.NONE:
            return found
        reasons.append(f"{device}: {found.detail}")
    for path in images or []:
        data = _read_bounded(path)
        if data is None:
            continue
        found = from_image(data, path.name)
        if found.source is not KernelSource.NONE:
            return found
        reasons.append(found.detail)
    detail = "; ".join(reasons) or "no Module.symvers, vmlinux or kernel image in the firmware"
    return KernelExports(KernelSource.NONE, detail=detail)


def _read_bounded(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_KERNEL_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_KERNEL_BYTES else None
