"""The unpacking fuzz targets: one squashfs's bytes through both squashfs readers (``squashfs``:
``unsquashfs`` after its listing, and TP-Link's LZMA variant), and one file's bytes through the
whole unpacking walk (``unpack``: nested streams and archives, unblob for the rest).

The seeds are built from scratch: a squashfs of a small tree (folders, files, a symbolic link, a
hard link) as mksquashfs writes it (gzip), and the same tree stored uncompressed with the
superblock's compression id set to LZMA, which the variant reader walks whole (its metadata
blocks need no decompressor), and that tree as TP-Link writes it (an LZMA block ``unsquashfs``
refuses: the variant reader's decompressor is fuzzed too); for ``unpack``, a tar in a gzip stream
holding a cpio in an xz stream, a zstd stream holding a tar, and a tar holding a bzip2 stream. Every input runs under a
scan budget of its own (``loader/budget.py``): a reader must end with a tree or its refusal,
within the harness's time and memory per input (tests/fuzz/fuzz_harness.py), and never write
more entries than the budget allows.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import struct
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

import pyzstd
from fuzz_harness import ALARM_SECONDS, SCAN_HANG_SECONDS, Finding, Stats, measured
from linkgraph.loader.budget import Budget, Kind, in_force
from linkgraph.loader.unpack import unpack
from linkgraph.loader.unpack.squashfs import Unsquashfs, _tplink_lzma  # pyright: ignore[reportPrivateUsage]
from linkgraph.loader.unpack.unblob_run import _unblob  # pyright: ignore[reportPrivateUsage]
from support.lzma_variant import as_variant, stored_squashfs
from unblob.models import ExtractError

TARGETS = ("squashfs", "unpack")
LZMA_ID = 2
COMPRESSION_AT = 20  # the superblock's compression id (u16)
ENTRIES = 64  # the entries budget of one input: a mutant may list more, never write more


def _tree(top: Path) -> Path:
    (top / "bin").mkdir(parents=True)
    (top / "lib").mkdir()
    (top / "bin/busybox").write_bytes(b"\x7fELF" + bytes(60) + b"BusyBox v1.36.1" * 50)
    (top / "lib/libc.so").write_bytes(b"musl libc" * 1000)
    (top / "bin/sh").symlink_to("busybox")
    (top / "bin/ash").hardlink_to(top / "bin/busybox")
    return top


def _squashfs(extra: tuple[str, ...]) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        image = Path(folder) / "fs.sqfs"
        command = ["mksquashfs", str(_tree(Path(folder) / "t")), str(image), "-noappend", "-quiet", "-no-progress"]
        subprocess.run([*command, *extra], check=True, stdout=subprocess.DEVNULL)
        return image.read_bytes()


def _lzma_variant() -> bytes:
    data = bytearray(_squashfs(("-noI", "-noD", "-noF", "-noX")))
    struct.pack_into("<H", data, COMPRESSION_AT, LZMA_ID)
    return bytes(data)


def _tplink_variant() -> bytes:
    """The small tree and 40 folders of their own owners as TP-Link writes it: its id table an LZMA
    block without the size field (tests/support/lzma_variant.py), which ``unsquashfs`` refuses and
    the variant reader decompresses; every time stamp 0, owner and mode set, so the bytes are the
    same on every machine."""
    with tempfile.TemporaryDirectory() as folder:
        top = Path(folder)
        pseudo = top / "owners.pseudo"
        same = "bin m 755 0 0\nlib m 755 0 0\nbin/busybox m 755 0 0\nlib/libc.so m 644 0 0\nbin/sh m 777 0 0\n"
        pseudo.write_text(same + "".join(f"o{i:02d} d 755 {1000 + i} 0\n" for i in range(40)))
        image = top / "fs.sqfs"
        stored_squashfs(
            _tree(top / "t"),
            image,
            pseudo,
            ("-all-time", "0", "-mkfs-time", "0", "-root-mode", "755", "-root-uid", "0", "-root-gid", "0"),
        )
        return as_variant(image).read_bytes()


def _tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _cpio(members: dict[str, bytes]) -> bytes:
    out = b""
    for ino, (name, data) in enumerate([*members.items(), ("TRAILER!!!", b"")], 1):
        raw = name.encode() + b"\0"
        fields = (ino, 0o100644 if data or name != "TRAILER!!!" else 0, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw), 0)
        head = b"070701" + b"".join(b"%08X" % f for f in fields) + raw
        out += head + bytes(-len(head) % 4) + data + bytes(-len(data) % 4)
    return out


SEEDS: dict[str, Callable[[], bytes]] = {
    "squashfs-gzip": lambda: _squashfs(()),
    "squashfs-lzma-variant": _lzma_variant,
    "squashfs-lzma-tplink": _tplink_variant,
    "unpack-tar-gz-cpio-xz": lambda: gzip.compress(
        _tar({"rootfs.cpio.xz": lzma.compress(_cpio({"bin/busybox": b"\x7fELF" + bytes(200)}))})
    ),
    "unpack-zstd-tar": lambda: pyzstd.compress(_tar({"etc/passwd": b"root:x:0:0\n", "lib/libc.so": b"x" * 5000})),
    "unpack-tar-bzip2": lambda: _tar({"blob.bz2": bz2.compress(b"\x7fELF" + bytes(3000))}),
}


def unpack_seeds(target: str) -> dict[str, bytes]:
    """The seeds of ``target`` (``squashfs`` or ``unpack``) by name."""
    return {f"synthetic:{name}": build() for name, build in SEEDS.items() if name.startswith(target + "-")}


def fields(data: bytes) -> list[tuple[int, int]]:
    """(offset, width) of the words a reader reads: the squashfs superblock's fields, then every
    fourth word of the first 64 KiB (a stream's or archive's headers and tables)."""
    superblock = [(o, 4) for o in range(0, 96, 4)] if data[:4] in (b"hsqs", b"sqsh") else []
    return superblock + [(o, 4) for o in range(96 if superblock else 0, min(len(data), 1 << 16) - 4, 16)]


def _entries(top: Path) -> int:
    return sum(len(dirs) + len(files) for _folder, dirs, files in os.walk(top))


def check_squashfs(data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> str:
    """Both squashfs readers on one input: what each gave (a tree, or refused)."""
    _unblob()  # unblob's logging set up as the scan sets it up (quiet)
    with tempfile.TemporaryDirectory() as folder:
        image = Path(folder) / "fs.sqfs"
        image.write_bytes(data)
        outcomes = []
        for name, read in (
            ("unsquashfs", lambda out: Unsquashfs(None).extract(image, out)),  # pyright: ignore[reportArgumentType]
            ("variant", lambda out: _tplink_lzma(image, out, ExtractError())),
        ):
            out = Path(folder) / name
            out.mkdir()
            budget = Budget.for_input(len(data), {Kind.ENTRIES: ENTRIES, Kind.WRITTEN: 16 << 20})
            with in_force(budget):
                done = measured(lambda r=read, o=out: r(o), stats, name, alarm, (ExtractError,), SCAN_HANG_SECONDS)
            written = _entries(out)
            if written > ENTRIES + 1:  # the member past the limit is the one refused
                raise Finding("bound", f"{name}: {written} entries written, the budget allows {ENTRIES}")
            outcomes.append(f"{name}:{'refused' if done is None and written == 0 else 'tree'}")
            shutil.rmtree(out, ignore_errors=True)
        return ",".join(outcomes)


def check_unpack(data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> str:
    """The unpacking walk on one input: how many roots it found (it never raises)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "input.bin"
        target.write_bytes(data)
        budget = Budget.for_input(len(data), {Kind.ENTRIES: ENTRIES * 4, Kind.WRITTEN: 16 << 20})
        with in_force(budget):
            found = measured(
                lambda: unpack(target, Path(folder) / "work"), stats, "unpack", alarm, (), SCAN_HANG_SECONDS
            )
        written = _entries(Path(folder) / "work")
        if written > ENTRIES * 4 + 64:  # unblob's own folders and carved chunks beside the budget's entries
            raise Finding("bound", f"unpack: {written} entries written, the budget allows {ENTRIES * 4}")
        return f"roots:{len(found.roots) if found is not None else 0}"


CHECKS: dict[str, Callable[[bytes, Stats, float | None], object]] = {
    "squashfs": check_squashfs,
    "unpack": check_unpack,
}
