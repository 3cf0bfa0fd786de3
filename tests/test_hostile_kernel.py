"""Hostile kernel modules and kernel images (issue 29's kernel rows): each input is built here from
scratch at the issue's size or larger and scanned by the real ``linkgraph scan`` into a database
that already holds another firmware (tests/support/measured.py measures the process alone).

Every scan must end with exit 0 or 1, no traceback or internal error, under 30 s and 1 GiB, the
problem record where a limit was reached, and the other firmware's modules and bindings as they
were:

* ``.modinfo``: one key repeated 80,000 times (repeated keys were joined by copying);
* ``.ko`` section flags: a ``SHT_NOBITS`` ``.modinfo`` marked ``SHF_COMPRESSED`` of 1 TiB, and a
  ``SHF_COMPRESSED`` ``.modinfo`` holding 1 GiB of zeros (sections are read as kmod reads them:
  their bytes, never decompressed);
* ``.ko`` relocations: 30 relocation sections over the same 24 MiB (30 M relocations), and one
  of 1 M relocations for a 16-byte table;
* a kernel image of a banner and 300 KB of text without a NUL, beside the root in an archive, and
  (in process) one of 2 GiB of zeros in gzip;
* a ``vmlinux`` whose ``.shstrtab`` offset is 2**64 - 1;
* a ``vmlinux`` whose 1,000 export entries point at 10 MiB of name bytes without a NUL.
"""

from __future__ import annotations

import io
import json
import lzma
import struct
import tarfile
import zlib
from pathlib import Path

import pytest
from conftest import linkgraph
from linkgraph.loader.kmod.kernel_exports import from_image
from linkgraph.loader.kmod.model import KernelSource
from support.fixture_root import two_library_root
from support.ko_builder import (
    BANNER,
    ET_EXEC,
    SHF_ALLOC,
    SHF_COMPRESSED,
    SHT_NOBITS,
    SHT_PROGBITS,
    SHT_RELA,
    Sec,
    elf64,
    module,
)
from support.measured import Run, run_measured

LIMIT_SECONDS = 30
LIMIT_RSS = 1 << 30
MODULES = "/lib/modules/6.1.0/kernel"


def kernel_root(path: Path, modules: dict[str, bytes]) -> Path:
    """A root holding kernel modules (file name -> bytes) and a program of its own."""
    for name, data in modules.items():
        file = path / MODULES.lstrip("/") / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    (path / "etc").mkdir(parents=True, exist_ok=True)
    (path / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    return path


# --------------------------------------------------------------------------- the scans


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The other firmware, built once: glibc, a program and two libraries."""
    return two_library_root(tmp_path_factory.mktemp("other") / "root").path


def report(db: Path, firmware: str) -> dict:
    return json.loads(linkgraph("report", "--db", str(db), "--firmware", firmware, "-q").stdout)


def kept(whole: dict) -> tuple[list, list]:
    return (
        sorted((m["path"], m["kind"]) for m in whole["modules"]),
        sorted(json.dumps(b, sort_keys=True) for b in whole["bindings"]),
    )


def scan_beside(other: Path, target: Path, tmp_path: Path) -> tuple[dict, Run]:
    """Scan ``other`` then ``target`` into one database; the second scan within the limits, the
    first firmware's modules and bindings unchanged; ``target``'s report."""
    db = tmp_path / "db.lbdb"
    first = run_measured("scan", str(other), "--db", str(db), "--name", "other", "-q")
    assert first.rc in (0, 1), first.stderr[-4000:]
    before = kept(report(db, "other"))
    run = run_measured("scan", str(target), "--db", str(db), "--name", "hostile", "-q")
    print(f"{target.name}: exit {run.rc}, peak {run.max_rss >> 20} MiB, {run.seconds:.1f} s")
    assert run.rc in (0, 1), f"exit {run.rc}:\n{run.stderr[-4000:]}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr.lower(), run.stderr[-4000:]
    assert run.seconds < LIMIT_SECONDS and run.max_rss < LIMIT_RSS
    assert kept(report(db, "other")) == before
    return report(db, "hostile"), run


def codes(whole: dict) -> set[tuple[str, str]]:
    return {(p["path"], p["code"]) for p in whole["problems"]}


def kinds(whole: dict) -> dict[str, str]:
    return {m["path"]: m["kind"] for m in whole["modules"]}


def test_modinfo_key_repeated(other: Path, tmp_path: Path) -> None:
    alias = b"alias=usb:v0BDAp8179d*dc*dsc*dp*ic*isc*ip*in*" + b"x" * 200  # 250 bytes
    info = b"license=GPL\0" + (alias + b"\0") * 80_000 + b"license=GPL\0" * 80_000
    data = lzma.compress(module(Sec(".modinfo", SHT_PROGBITS, info)))
    root = kernel_root(tmp_path / "modinfo", {"alias.ko.xz": data})
    whole, _ = scan_beside(other, root, tmp_path)
    path = f"{MODULES}/alias.ko.xz"
    assert kinds(whole).get(path) == "kernel-module"
    assert not {c for p, c in codes(whole) if p == path}
    assert next(m for m in whole["modules"] if m["path"] == path)["licence"] == "GPL-2.0-only"


def _zlib_zeros(size: int) -> bytes:
    """A zlib stream of ``size`` zero bytes (a multiple of 16 MiB), built from one compressed
    block repeated (each ends with a full flush, so none refers back to another)."""
    chunk = 16 << 20
    c = zlib.compressobj(9)
    first = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    assert again == first[2:]
    end = c.flush(zlib.Z_FINISH)[:-4]
    adler = ((size % 65521) << 16) | 1  # adler32 of zeros: a = 1, b = size
    return first + again * (size // chunk - 1) + end + struct.pack(">I", adler)


def test_section_flags(other: Path, tmp_path: Path) -> None:
    nobits = module(Sec(".modinfo", SHT_NOBITS, b"license=GPL\0", flags=SHF_COMPRESSED, size=1 << 40))
    chdr = struct.pack("<IIQQ", 1, 0, 1 << 30, 1)  # ELFCOMPRESS_ZLIB, 1 GiB
    compressed = module(Sec(".modinfo", SHT_PROGBITS, chdr + _zlib_zeros(1 << 30), flags=SHF_COMPRESSED))
    root = kernel_root(tmp_path / "flags", {"nobits.ko": nobits, "zeros.ko.xz": lzma.compress(compressed)})
    whole, _ = scan_beside(other, root, tmp_path)
    assert (f"{MODULES}/nobits.ko", "too-large") in codes(whole)
    # kmod and the module loader read a section's bytes as they are: the module reads, without a licence
    assert kinds(whole).get(f"{MODULES}/zeros.ko.xz") == "kernel-module"
    assert not {c for p, c in codes(whole) if p == f"{MODULES}/zeros.ko.xz"}


def _relocated(relocations: list[Sec]) -> bytes:
    """A module with a 16-byte ``__ksymtab`` (section 5), its strings (6), 24 MiB of zeros in
    ``.junk`` and ``relocations`` for the table."""
    sections = [
        Sec("__ksymtab", SHT_PROGBITS, bytes(16), flags=SHF_ALLOC),
        Sec("__ksymtab_strings", SHT_PROGBITS, b"printk\0", flags=SHF_ALLOC),
        Sec(".junk", SHT_PROGBITS, bytes(24 << 20)),
        *relocations,
    ]
    return module(Sec(".modinfo", SHT_PROGBITS, b"license=GPL\0"), *sections)


def test_relocations(other: Path, tmp_path: Path) -> None:
    rela = {"type": SHT_RELA, "link": 2, "info": 5, "entsize": 24}
    overlapping = _relocated([Sec(f".rela__ksymtab.{i}", **rela, same_as=".junk") for i in range(30)])
    many = _relocated([Sec(".rela__ksymtab", **rela, same_as=".junk")])
    root = kernel_root(
        tmp_path / "relocs", {"overlap.ko.xz": lzma.compress(overlapping), "many.ko.xz": lzma.compress(many)}
    )
    whole, _ = scan_beside(other, root, tmp_path)
    found = codes(whole)
    assert (f"{MODULES}/overlap.ko.xz", "kmod-unreadable") in found
    assert (f"{MODULES}/many.ko.xz", "too-many-entries") in found
    message = next(p["message"] for p in whole["problems"] if p["path"] == f"{MODULES}/overlap.ko.xz")
    assert "overlap" in message


def test_kernel_image_of_text(other: Path, tmp_path: Path) -> None:
    """An archive of a root with one module and, beside it, a "kernel" of a banner and 300 KB of
    text without a NUL: vmlinux-to-elf and the search by shape read it in linear time."""
    root = kernel_root(
        tmp_path / "image" / "rootfs", {"plain.ko": module(Sec(".modinfo", SHT_PROGBITS, b"license=GPL\0"))}
    )
    for folder in ("bin", "usr", "sbin"):
        (root / folder).mkdir()
    (root / "bin" / "sh").write_bytes((other / "usr" / "bin" / "prog").read_bytes())
    text = BANNER + b"\x55\x48\x89\xe5" * 64
    text += (b"ab1_" * 80_000)[:320_000]
    archive = tmp_path / "firmware.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(root, arcname="rootfs")
        member = tarfile.TarInfo("Image")
        member.size = len(text)
        tar.addfile(member, io.BytesIO(text))
    whole, _ = scan_beside(other, archive, tmp_path)
    assert kinds(whole).get(f"{MODULES}/plain.ko") == "kernel-module"
    unknown = [p for p in whole["problems"] if p["code"] == "kernel-exports-unknown"]
    assert unknown and "no export table found by shape" in unknown[0]["message"], unknown


def _gzip_zeros(size: int) -> bytes:
    """A gzip stream of ``size`` zero bytes (a multiple of 16 MiB), one block repeated as in
    :func:`_zlib_zeros`."""
    chunk = 16 << 20
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    header = c.compress(b"")
    first = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    header, block = (header, first) if header else (first[:10], first[10:])
    again = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    assert again == block
    end = c.flush(zlib.Z_FINISH)[:-8]
    crc = 0
    for _ in range(size // chunk):
        crc = zlib.crc32(bytes(chunk), crc)
    return header + block * (size // chunk) + end + struct.pack("<II", crc, size & 0xFFFFFFFF)


def test_kernel_image_decompression_bomb() -> None:
    """A "kernel" of 2 GiB of zeros in gzip (about 2 MiB) with a banner after it: vmlinux-to-elf
    would decompress the whole stream; it is read through up to the bound and not decompressed.
    (In process: a scan of an archive holding it spends its time and memory in the unpacker,
    which extracts the same stream first.)"""
    found = from_image(_gzip_zeros(2 << 30) + BANNER, "zImage")
    assert found.source is KernelSource.NONE
    assert "the stream at 0x0 decompresses to more than 256 MiB, not decompressed" in found.detail, found.detail


def _vmlinux_root(path: Path, vmlinux: bytes) -> Path:
    root = kernel_root(path, {"plain.ko": module(Sec(".modinfo", SHT_PROGBITS, b"license=GPL\0"))})
    (root / "boot").mkdir()
    (root / "boot" / "vmlinux").write_bytes(vmlinux)
    return root


def test_vmlinux_shstrtab_offset(other: Path, tmp_path: Path) -> None:
    data = bytearray(elf64([Sec("__ksymtab", SHT_PROGBITS, bytes(16), flags=SHF_ALLOC, addr=0x1000)], ET_EXEC))
    shoff, shstrndx = struct.unpack_from("<Q", data, 0x28)[0], struct.unpack_from("<H", data, 0x3E)[0]
    struct.pack_into("<Q", data, shoff + 64 * shstrndx + 0x18, (1 << 64) - 1)
    whole, _ = scan_beside(other, _vmlinux_root(tmp_path / "shstrtab", bytes(data)), tmp_path)
    unknown = [p for p in whole["problems"] if p["code"] == "kernel-exports-unknown"]
    assert unknown and "/boot/vmlinux" in unknown[0]["message"] and "unreadable" in unknown[0]["message"], unknown


def test_vmlinux_names_without_nul(other: Path, tmp_path: Path) -> None:
    strings_at, names = 0x100000, b"A" * (10 << 20)
    table = b"".join(struct.pack("<QQ", 0x2000, strings_at + i) for i in range(1000))
    vmlinux = elf64(
        [
            Sec("__ksymtab", SHT_PROGBITS, table, flags=SHF_ALLOC, addr=0x10000),
            Sec("__ksymtab_strings", SHT_PROGBITS, names, flags=SHF_ALLOC, addr=strings_at),
        ],
        ET_EXEC,
    )
    whole, _ = scan_beside(other, _vmlinux_root(tmp_path / "names", vmlinux), tmp_path)
    unknown = [p for p in whole["problems"] if p["code"] == "kernel-exports-unknown"]
    assert unknown and "no known struct kernel_symbol layout" in unknown[0]["message"], unknown
