"""glibc's prelinked start (loader/ldso/prelink.py), judged by the process's memory and by readelf.

On the stock JioFi 2 root (glibc 2.21, ARM) 161 programs carry ``DT_GNU_LIBLIST``, and the device's
glibc starts each of them prelinked: no lookups, every slot keeps what prelink wrote into the files,
plus the program's ``DT_GNU_CONFLICT`` entries.  For two of them that differs from the lookups'
answer (libperl.so.5's ``connect`` and 25 more bound to libpthread or libm, libxml2's
``__signbit`` to libm, where a lookup in the program's scope finds libc).  The judge is the runtime
oracle (tests/support/runtime_oracle.py: the program run to its entry point under qemu-user, each slot
read from memory); glibc's trace mode is not, since it exits before the prelink check.

* every JioFi program with ``DT_GNU_LIBLIST``: linkgraph's cross-object bindings equal the
  oracle's exactly (copy relocations left out: memory does not show their source), and the
  oracle finds each one prelinked;
* a derived root whose libperl.so.5 has another ``DT_CHECKSUM``: the check fails, glibc relocates
  perl by lookups, and linkgraph must say so too (libc's ``connect`` again);
* the check's conditions one by one on the real facts (checksum, time stamp, name, order, count);
* the prelink tables as linkgraph reads them equal what binutils' ``readelf`` prints.

A missing qemu-arm-static, gdb-multiarch or readelf fails the tests; nothing is skipped.
"""

from __future__ import annotations

import copy
import datetime
import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import scan_and_report
from linkgraph.loader.elf.facts import read_elf_facts
from linkgraph.loader.ldso import prelink
from linkgraph.loader.scan.root import scan_root
from support import runtime_oracle as ro
from support.vendor_roots import extracted_root

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

PERL, XMLCATALOG = "/usr/bin/perl5.20.0", "/usr/bin/xmlcatalog"
LIBPERL, LIBXML2 = "/usr/lib/libperl.so.5", "/usr/lib/libxml2.so.2"
LIBC, LIBM, LIBPTHREAD = "/lib/libc.so.6", "/lib/libm.so.6", "/lib/libpthread.so.0"
PRELINKED_PROGRAMS = 161  # JioFi programs with DT_GNU_LIBLIST (measured)
DT_CHECKSUM = 0x6FFFFDF8


def test_tools_are_installed() -> None:
    missing = [tool for tool in (ro.GDB, "qemu-arm-static", "chroot", "readelf") if shutil.which(tool) is None]
    assert not missing, f"missing {missing}: apt-get install gdb-multiarch qemu-user-static binutils"


@dataclass
class Jiofi:
    root: Path
    programs: list[str]  # the programs with DT_GNU_LIBLIST
    ours: dict[str, set[tuple]]  # cross-object bindings per program
    runtime: dict[str, ro.RuntimeTrace]


def liblist_programs(root: Path) -> list[str]:
    """Programs carrying DT_GNU_LIBLIST, read by the oracle's own ELF reader."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            host = Path(dirpath) / name
            if host.is_symlink() or not host.is_file() or host.read_bytes()[:4] != b"\x7fELF":
                continue
            try:
                elf = ro.DynElf(host)
            except (ro.ElfFormatError, ValueError, struct.error):
                continue
            if ro.DT_GNU_LIBLIST in elf.tags:
                out.append("/" + str(host.relative_to(root)))
    return sorted(out)


def cross_object(report: dict) -> dict[str, set[tuple]]:
    ours: dict[str, set[tuple]] = {}
    for b in report["bindings"]:
        if b["module"] != b["provider"]:
            ours.setdefault(b["executable"], set()).add((b["module"], b["symbol"], b["version"], b["provider"]))
    return ours


def aligned(ours: set[tuple], trace: ro.RuntimeTrace) -> set[tuple]:
    """Ours without the copy relocations (the oracle sees no provider for them)."""
    copies = {(c[0], c[1]) for c in trace.copies}
    return {b for b in ours if (b[0], b[1]) not in copies}


@pytest.fixture(scope="module")
def jiofi(tmp_path_factory: pytest.TempPathFactory) -> Jiofi:
    root = extracted_root("jiofi2_m2")[0]
    programs = liblist_programs(root)
    report = scan_and_report(root, tmp_path_factory.mktemp("jiofi") / "graph.lbdb")
    return Jiofi(root, programs, cross_object(report), ro.runtime_bindings(root, programs, jobs=2))


def test_prelinked_programs_equal_runtime(jiofi: Jiofi) -> None:
    assert len(jiofi.programs) == PRELINKED_PROGRAMS and {PERL, XMLCATALOG} <= set(jiofi.programs)
    diffs = {}
    for exe in jiofi.programs:
        trace = jiofi.runtime[exe]
        assert trace.covered, f"{exe}: {trace.reason}"
        assert trace.prelinked, exe
        ours = aligned(jiofi.ours.get(exe, set()), trace)
        if ours != trace.bindings:
            diffs[exe] = (sorted(ours - trace.bindings)[:10], sorted(trace.bindings - ours)[:10])
    assert not diffs, diffs


def test_prelinked_bindings_are_prelinks(jiofi: Jiofi) -> None:
    """The bindings where prelink's answer is not the lookup's."""
    perl, xml = jiofi.ours[PERL], jiofi.ours[XMLCATALOG]
    for name in ("connect", "accept", "__errno_location", "fork", "write"):
        assert (LIBPERL, name, "GLIBC_2.4", LIBPTHREAD) in perl, name
        assert (LIBPERL, name, "GLIBC_2.4", LIBC) not in perl, name
    for name in ("ldexp", "modf", "frexp"):
        assert (LIBPERL, name, "GLIBC_2.4", LIBM) in perl, name
    assert (LIBXML2, "__signbit", "GLIBC_2.4", LIBM) in xml
    assert (LIBXML2, "__signbit", "GLIBC_2.4", LIBC) not in xml
    for key in [(LIBPERL, "connect", "GLIBC_2.4", LIBPTHREAD), (LIBXML2, "__signbit", "GLIBC_2.4", LIBM)]:
        assert key in jiofi.runtime[PERL if key[0] == LIBPERL else XMLCATALOG].bindings


def _with_checksum(data: bytes, new: int) -> bytes:
    """``data`` (a 32-bit little-endian ELF file) with the value of its DT_CHECKSUM entry replaced."""
    phoff, phentsize, phnum = struct.unpack_from("<I", data, 28)[0], *struct.unpack_from("<HH", data, 42)
    for i in range(phnum):
        p_type, p_offset, _v, _p, p_filesz = struct.unpack_from("<5I", data, phoff + i * phentsize)
        if p_type == 2:  # PT_DYNAMIC
            for pos in range(p_offset, p_offset + p_filesz, 8):
                if struct.unpack_from("<I", data, pos)[0] == DT_CHECKSUM:
                    return data[: pos + 4] + struct.pack("<I", new) + data[pos + 8 :]
    raise AssertionError("no DT_CHECKSUM")


def test_failed_check_means_lookups(jiofi: Jiofi, tmp_path: Path) -> None:
    """libperl.so.5 with another DT_CHECKSUM: glibc's check fails, perl is relocated by lookups."""
    derived = tmp_path / "rootfs"
    subprocess.run(["cp", "-al", str(jiofi.root), str(derived)], check=True)
    lib = derived / LIBPERL.lstrip("/")
    data = lib.read_bytes()
    lib.unlink()  # a new inode: the cached root keeps its file
    lib.write_bytes(_with_checksum(data, 0x12345678))
    lib.chmod(0o755)
    trace = ro.runtime_bindings(derived, [PERL], jobs=1, cache=False)[PERL]
    assert trace.covered, trace.reason
    assert (LIBPERL, "connect", "GLIBC_2.4", LIBC) in trace.bindings
    ours = aligned(cross_object(scan_and_report(derived, tmp_path / "graph.lbdb")).get(PERL, set()), trace)
    assert ours == trace.bindings, (sorted(ours - trace.bindings)[:10], sorted(trace.bindings - ours)[:10])


# --------------------------------------------------------------------------- the check's conditions


def test_check_conditions(jiofi: Jiofi) -> None:
    result = scan_root(str(jiofi.root))
    facts = {m.path: m.facts for m in result.modules}
    link_map = next(lm for lm in result.resolution.link_maps if lm.executable == PERL)
    objects = [facts[p] for p in link_map.objects]
    assert prelink.check(link_map, objects)

    def variant(change) -> bool:
        objs = copy.deepcopy(objects)
        change(objs)
        return prelink.check(link_map, objs)

    def set_lib(index: int, **fields):
        def change(objs):
            name, stamp, checksum = objs[0].prelink.liblist[index]
            new = {"name": name, "stamp": stamp, "checksum": checksum, **fields}
            objs[0].prelink.liblist[index] = (new["name"], new["stamp"], new["checksum"])

        return change

    assert not variant(set_lib(0, checksum=1))  # DT_CHECKSUM differs
    assert not variant(set_lib(1, stamp=1))  # DT_GNU_PRELINKED differs
    assert not variant(set_lib(0, name="libperl.so"))  # _dl_name_match_p fails
    assert variant(set_lib(0, name=LIBPERL))  # the path it was opened under matches
    assert not variant(lambda objs: objs[0].prelink.liblist.pop())  # the lists do not end together
    assert not variant(lambda objs: objs[0].prelink.liblist.reverse())  # another order
    assert not variant(lambda objs: setattr(objs[1], "prelink", None))  # libperl not prelinked
    assert not variant(lambda objs: setattr(objs[0], "elf_type", "ET_DYN"))  # a PIE: no load bias

    def at_zero(objs):  # libperl linked at 0: glibc maps it elsewhere (l_addr != 0)
        objs[1].prelink.loads = [(v - objs[1].prelink.loads[0][0], size) for v, size in objs[1].prelink.loads]

    assert not variant(at_zero)


# --------------------------------------------------------------------------- reading, against readelf


def _readelf(*args: str) -> str:
    return subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, check=True).stdout


def test_prelink_tables_equal_readelf(jiofi: Jiofi) -> None:
    host = jiofi.root / PERL.lstrip("/")
    info = read_elf_facts(host.read_bytes(), PERL).prelink
    assert info is not None and info.checksum is None and info.timestamp is None
    rows = re.findall(r"^ *\d+: (\S+) +(\S+) +(0x[0-9a-f]+) +\d+ +\d+ *$", _readelf("-a", str(host)), re.M)
    expected = [
        (name, int(datetime.datetime.fromisoformat(stamp).replace(tzinfo=datetime.UTC).timestamp()), int(cs, 16))
        for name, stamp, cs in rows
    ]
    assert info.liblist == expected and len(expected) == 7
    section = _readelf("-r", str(host)).split("'.gnu.conflict'")[1]
    conflicts = [
        (int(off, 16), int(r_info, 16) & 0xFF, int(addend, 16))
        for off, r_info, addend in re.findall(r"^([0-9a-f]{8}) +([0-9a-f]{8}) R_ARM_\w+ +([0-9a-f]+)$", section, re.M)
    ]
    assert info.conflicts == conflicts and len(conflicts) == 41

    lib = jiofi.root / LIBPERL.lstrip("/")
    info = read_elf_facts(lib.read_bytes(), LIBPERL).prelink
    dynamic = _readelf("-d", str(lib))
    assert info.checksum == int(re.search(r"\(CHECKSUM\)\s+(0x[0-9a-f]+)", dynamic).group(1), 16)
    stamp = re.search(r"\(GNU_PRELINKED\)\s+(\S+)", dynamic).group(1)
    assert info.timestamp == int(datetime.datetime.fromisoformat(stamp).replace(tzinfo=datetime.UTC).timestamp())
    named = re.findall(r"^([0-9a-f]{8}) +[0-9a-f]{8} R_ARM_\w+ +[0-9a-f]{8} +\S", _readelf("-r", str(lib)), re.M)
    assert sorted(r_offset for _sym, r_offset, _t, _v, _a in info.slots) == sorted(int(o, 16) for o in named)
    data = lib.read_bytes()
    loads = [
        (int(off, 16), int(vaddr, 16), int(filesz, 16))
        for off, vaddr, filesz in re.findall(
            r"^\s*LOAD\s+(0x\S+) (0x\S+) 0x\S+ (0x\S+)", _readelf("-l", str(lib)), re.M
        )
    ]
    for _sym, r_offset, _type, value, addend in info.slots:
        off = next(o + r_offset - v for o, v, size in loads if v <= r_offset < v + size)
        assert (value, addend) == (struct.unpack_from("<I", data, off)[0], 0), hex(r_offset)


def test_read_prelink_bounded_by_the_file() -> None:
    """Hand-built 32-bit image: sizes claiming more than the file are cut to the records present;
    a slot past the file bytes reads as the zero fill; an unreadable table gives no prelink data."""
    from linkgraph.loader.elf.image import Image, Strings
    from linkgraph.loader.elf.prelink import (
        DT_GNU_CONFLICT,
        DT_GNU_CONFLICTSZ,
        DT_GNU_LIBLIST,
        DT_GNU_LIBLISTSZ,
        DT_GNU_PRELINKED,
        read_prelink,
    )
    from linkgraph.loader.elf.tables import DT_REL, DT_RELSZ

    strtab = b"\0libc.so.6\0libm.so.6\0"
    liblist = struct.pack("<5I", 1, 111, 0xAAAA, 0, 0) + struct.pack("<5I", 11, 222, 0xBBBB, 0, 0)
    conflicts = struct.pack("<IIi", 0x1080, 21, 0x7000)
    rel = struct.pack("<II", 0x1080, 1 << 8 | 21) + struct.pack("<II", 0x1200, 2 << 8 | 2)  # 0x1200: in the bss
    data = bytearray(0x100)
    data[0xD8:0x100] = liblist  # the last bytes of the segment's file part
    data[0x40 : 0x40 + len(conflicts)] = conflicts
    data[0x60 : 0x60 + len(rel)] = rel
    data[0x80:0x84] = struct.pack("<I", 0x5000)
    img = Image(bytes(data), "<", False, [(0x1000, 0x100, 0, 0x300)])
    tags = {DT_GNU_LIBLIST: 0x10D8, DT_GNU_LIBLISTSZ: 20 * 1000, DT_GNU_CONFLICT: 0x1040, DT_GNU_CONFLICTSZ: 12,
            DT_REL: 0x1060, DT_RELSZ: 16, DT_GNU_PRELINKED: 333}  # fmt: skip
    info = read_prelink(img, tags, Strings(strtab))
    assert info is not None
    assert info.liblist == [("libc.so.6", 111, 0xAAAA), ("libm.so.6", 222, 0xBBBB)]  # not 1000 records
    assert info.conflicts == [(0x1080, 21, 0x7000)] and info.timestamp == 333 and info.checksum is None
    assert info.slots == [(1, 0x1080, 21, 0x5000, 0), (2, 0x1200, 2, 0, 0)] and info.loads == [(0x1000, 0x300)]
    assert read_prelink(img, {**tags, DT_GNU_CONFLICT: 0x9000}, Strings(strtab)) is None  # not mapped
