"""Sizes a hostile root claims cost no memory: huge sparse files where the loader reads its
configuration and its interpreter, ELF files past the size limit, entry sizes of gigabytes,
version chains that would be walked 2**30 times, and a library with millions of symbols.

Each case runs the real ``linkgraph scan`` and measures that process alone (tests/support/measured.py): it
must finish with exit 0 or 1, the right problem, under 1 GiB peak and 30 s.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from array import array
from pathlib import Path

from conftest import linkgraph
from linkgraph.loader.elf.facts import read_elf_facts
from support.fixture_root import MULTIARCH, Root, two_library_root
from support.measured import run_measured

PROG = "/usr/bin/prog"
GIB = 1 << 30


def measured_scan(root: Path, db: Path) -> tuple[int, int, float]:
    """Exit code, peak RSS (bytes) and wall time of ``linkgraph scan ROOT`` (tests/support/measured.py)."""
    run = run_measured("scan", str(root), "--db", str(db), "-q")
    assert "Traceback" not in run.stderr
    return run.rc, run.max_rss, run.seconds


def sparse(path: Path, head: bytes, size: int) -> None:
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        out.write(head)
        out.truncate(size)


def report(db: Path) -> dict:
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)


def problems(db: Path) -> list[dict]:
    return report(db)["problems"]


def bindings(db: Path) -> set[tuple[str, str, str | None, str]]:
    return {(b["module"], b["symbol"], b["version"], b["provider"]) for b in report(db)["bindings"]}


def test_two_gib_sparse_ld_so_cache(tmp_path: Path) -> None:
    root = two_library_root(tmp_path / "root")
    sparse(root.host("/etc/ld.so.cache"), b"glibc-ld.so.cache1.1", 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB ld.so.cache: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert ("/etc/ld.so.cache", "config-too-large") in codes


def test_two_gib_sparse_interpreter(tmp_path: Path) -> None:
    root = two_library_root(tmp_path / "root")
    ldso = root.host(f"{MULTIARCH}/ld-linux-x86-64.so.2")
    sparse(ldso, ldso.read_bytes(), 2 * GIB)
    rc, peak, seconds = measured_scan(root.path, tmp_path / "db.lbdb")
    print(f"2 GiB interpreter: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(tmp_path / "db.lbdb")}
    assert (f"{MULTIARCH}/ld-linux-x86-64.so.2", "too-large") in codes
    assert (PROG, "default-dirs-guessed") in codes


def _rename(path: Path, old: bytes, new: bytes) -> None:
    """Overwrite every NUL-terminated ``old`` string in the file with ``new`` (NUL padded)."""
    assert len(new) <= len(old)
    data = path.read_bytes()
    assert b"\0" + old + b"\0" in data, (path, old)
    path.write_bytes(data.replace(b"\0" + old + b"\0", b"\0" + new.ljust(len(old), b"\0") + b"\0"))


def test_raw_byte_and_escaped_names_stay_distinct(tmp_path: Path) -> None:
    """``libq\\xff.so`` (a raw byte) and ``libq\\\\xff.so`` (a literal backslash) display alike, as do
    two such symbol names: they stay two libraries and two symbols, and the scan stores them all."""
    root = Root(tmp_path / "root")
    root.install_glibc()
    names = {b"libqaaaaaaaa.so": b"libq\xff.so", b"libqbbbbbbbb.so": b"libq\\xff.so"}
    syms = {b"symqaaaaaaaa": b"symq\xff", b"symqbbbbbbbb": b"symq\\xff"}
    for lib, sym in zip(names, syms, strict=True):
        root.lib(f"/usr/lib/{lib.decode()}", ["loader_rules/onefn.c"], cflags=[f"-DFN={sym.decode()}"])
    root.exe(PROG, ["collide/main.c"], needs=[f"/usr/lib/{n.decode()}" for n in names])
    for old, new in names.items():
        host = root.host(f"/usr/lib/{old.decode()}")
        _rename(host, old, new)
        for sym_old, sym_new in syms.items():
            if sym_old[4:5] == old[4:5]:
                _rename(host, sym_old, sym_new)
        os.rename(host, os.path.join(os.fsencode(host.parent), new))
    for old, new in (*names.items(), *syms.items()):
        _rename(root.host(PROG), old, new)
    db = tmp_path / "db.lbdb"
    rc, peak, seconds = measured_scan(root.path, db)
    assert rc in (0, 1) and peak < GIB and seconds < 30
    report = json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)
    libs = [m["path"] for m in report["modules"] if m["path"].startswith("/usr/lib/libq")]
    assert sorted(libs) == ["/usr/lib/libq\\xff.so", "/usr/lib/libq\\xff.so"]  # two modules, shown alike
    edges = [e for e in report["dependencies"] if e["from"] == PROG and e["soname"].startswith("libq")]
    assert len(edges) == 2 and all(e["status"] == "used" for e in edges), edges
    bound = [b for b in report["bindings"] if b["module"] == PROG and b["symbol"].startswith("symq")]
    assert len(bound) == 2, bound


def test_facts_outlive_the_map() -> None:
    """The scan parses each file through a read-only map and closes it: the facts keep no
    reference to it (closing does not fail) and read what the file's bytes give."""
    path = os.path.realpath(f"{MULTIARCH}/libc.so.6")
    with open(path, "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    with data:
        mapped = read_elf_facts(data, path)
    assert data.closed
    assert mapped == read_elf_facts(Path(path).read_bytes(), path)
    assert len(mapped.symbols) > 1000 and all(sym.name for sym in mapped.symbols[1:])


# ---------------------------------------------------------------- hostile ELF64 little-endian files

DT_NULL, DT_SYMENT, DT_RELENT, DT_RELAENT = 0, 11, 19, 9
DT_VERNEED, DT_VERNEEDNUM = 0x6FFFFFFE, 0x6FFFFFFF
PT_LOAD, PT_DYNAMIC = 1, 2


def program_headers(data: bytes | bytearray) -> list[tuple[int, list[int]]]:
    """(file offset, [type, flags, offset, vaddr, paddr, filesz, memsz, align]) of each program header."""
    phoff, phentsize, phnum = struct.unpack_from("<Q14xHH", data, 0x20)
    return [
        (at, list(struct.unpack_from("<IIQQQQQQ", data, at)))
        for at in range(phoff, phoff + phnum * phentsize, phentsize)
    ]


def set_dynamic(data: bytearray, tag: int, value: int) -> None:
    """Give ``tag`` the value ``value`` in the dynamic array: in its entry, or in the first DT_NULL when
    a spare DT_NULL follows it (ld leaves some), so that the array stays terminated."""
    offset = next(ph[2] for _, ph in program_headers(data) if ph[0] == PT_DYNAMIC)
    at = offset
    while (entry := struct.unpack_from("<QQ", data, at))[0] not in (tag, DT_NULL):
        at += 16
    if entry[0] == DT_NULL:
        assert struct.unpack_from("<Q", data, at + 16)[0] == DT_NULL, "no spare DT_NULL"
    struct.pack_into("<QQ", data, at, tag, value)


def map_appended(data: bytearray, blob: bytes) -> int:
    """Append ``blob`` (16-byte aligned) and grow the last PT_LOAD over it; returns its address."""
    at, ph = max((p for p in program_headers(data) if p[1][0] == PT_LOAD), key=lambda p: p[1][3])
    data.extend(bytes(-len(data) % 16))
    start = len(data)
    data.extend(blob)
    ph[5] = len(data) - ph[2]
    ph[6] = max(ph[6], ph[5])
    struct.pack_into("<IIQQQQQQ", data, at, *ph)
    return ph[3] + start - ph[2]


def test_entry_sizes_of_gigabytes(tmp_path: Path) -> None:
    """DT_SYMENT, DT_RELENT and DT_RELAENT of a program and a library set to 8 GiB, 2 GiB - 1 and
    6 GiB: read with the ABI's record sizes, as the loaders read them, and reported."""
    root = two_library_root(tmp_path / "root")
    before = tmp_path / "before.lbdb"
    assert measured_scan(root.path, before)[0] in (0, 1)
    for device in (PROG, "/usr/lib/libalpha.so"):
        data = bytearray(root.host(device).read_bytes())
        for tag, value in ((DT_SYMENT, 1 << 33), (DT_RELENT, 0x7FFF_FFFF), (DT_RELAENT, 6 * GIB)):
            set_dynamic(data, tag, value)
        root.host(device).write_bytes(data)
    db = tmp_path / "db.lbdb"
    rc, peak, seconds = measured_scan(root.path, db)
    print(f"entry sizes of gigabytes: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    codes = {(p["path"], p["code"]) for p in problems(db)}
    assert {(PROG, "entry-size-mismatch"), ("/usr/lib/libalpha.so", "entry-size-mismatch")} <= codes
    assert bindings(db) == bindings(before)
    assert (PROG, "x_fn", None, "/usr/lib/libalpha.so") in bindings(db)


def test_version_chain_walked_once(tmp_path: Path) -> None:
    """A library whose DT_VERNEED chain is 1 MiB of records valid both as Elf_Verneed and as
    Elf_Vernaux, each pointing 16 bytes on, with DT_VERNEEDNUM and vn_cnt at their maximum: a walk
    of every chain as the loader walks them takes 2**30 steps; each record is read once."""
    root = two_library_root(tmp_path / "root")
    lib = root.host("/usr/lib/libalpha.so")
    data = bytearray(lib.read_bytes())
    records = struct.pack("<HHIII", 1, 0xFFFF, 0, 16, 16) * 65536  # vn_version, vn_cnt, vn_file, vn_aux, vn_next
    set_dynamic(data, DT_VERNEED, map_appended(data, records))
    set_dynamic(data, DT_VERNEEDNUM, (1 << 64) - 1)
    lib.write_bytes(data)
    db = tmp_path / "db.lbdb"
    rc, peak, seconds = measured_scan(root.path, db)
    print(f"version chain of 1 MiB: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    assert ("/usr/lib/libalpha.so", "version-chain-overlap") in {(p["path"], p["code"]) for p in problems(db)}
    assert {
        (PROG, "x_fn", None, "/usr/lib/libalpha.so"),
        ("/usr/lib/libalpha.so", "v_fn", None, "/usr/lib/libbeta.so"),
    } <= bindings(db)


def many_symbols_library(soname: bytes, wanted: bytes, count: int) -> bytes:
    """An x86-64 library exporting ``count`` functions, ``wanted`` halfway, with a valid DT_HASH
    (one bucket; its chain visits every symbol). Built a column at a time, in linear time.

    The other names share their bytes: each string-table entry ``PREFIXZabcd`` (the last five bytes
    unique) is the tail of 16 distinct names, one per start from its first byte to its ``Z``."""
    prefix = b"huge_export_nam"
    per_entry = len(prefix) + 1
    head = b"\0" + soname + b"\0" + wanted + b"\0"
    entries = -(-count // per_entry)
    letters = b"abcdefghijklmnopqrstuvwxyz"
    strtab = head + b"".join(
        prefix + b"Z" + bytes(letters[n // 26**k % 26] for k in range(4)) + b"\0" for n in range(entries)
    )
    names = array("I", (len(head) + n * (per_entry + 5) + j for n in range(entries) for j in range(per_entry)))
    del names[count:]
    names[0], names[count // 2] = 0, len(soname) + 2
    symtab_at = 64 + 2 * 56 + len(strtab) + (-len(strtab) % 8)
    symtab = bytearray(24 * count)  # Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size
    for k, byte in enumerate(names.tobytes()[i::4] for i in range(4)):
        symtab[k::24] = byte
    symtab[4::24] = b"\x12" * count  # STB_GLOBAL, STT_FUNC
    symtab[6::24] = b"\x07" * count  # a section index: defined
    values = array("Q", range(0x1000, 0x1000 + count)).tobytes()
    for k in range(8):
        symtab[8 + k :: 24] = values[k::8]
    symtab[:24] = bytes(24)
    hash_at = symtab_at + len(symtab)
    hashtab = array("I", [1, count, count - 1, 0, *range(count - 1)])  # nbucket, nchain, bucket, chain
    hashtab.extend([0] * (len(hashtab) % 2))
    dyn_at = hash_at + 4 * len(hashtab)
    dynamic = struct.pack("<14Q", 14, 1, 5, 64 + 2 * 56, 10, len(strtab), 6, symtab_at, 11, 24, 4, hash_at, 0, 0)
    end = dyn_at + len(dynamic)
    ident = b"\x7fELF\x02\x01\x01" + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", PT_LOAD, 5, 0, 0, 0, end, end, 0x1000)
    dyn = struct.pack("<IIQQQQQQ", PT_DYNAMIC, 6, dyn_at, dyn_at, dyn_at, len(dynamic), len(dynamic), 8)
    return b"".join((header, load, dyn, strtab, bytes(-len(strtab) % 8), symtab, hashtab.tobytes(), dynamic))


def test_library_with_millions_of_symbols(tmp_path: Path) -> None:
    """A library of 70 MB with 2.5 million exported functions, one of which the program and another
    library call: the binding is found, and memory follows the symbols the root references."""
    root = two_library_root(tmp_path / "root")
    data = many_symbols_library(b"libbeta.so", b"v_fn", 2_500_000)
    assert len(data) > 64 << 20
    root.host("/usr/lib/libbeta.so").write_bytes(data)
    db = tmp_path / "db.lbdb"
    rc, peak, seconds = measured_scan(root.path, db)
    print(f"library of {len(data) >> 20} MiB, 2.5 million symbols: exit {rc}, peak {peak >> 20} MiB, {seconds:.1f} s")
    assert rc in (0, 1) and peak < GIB and seconds < 30
    assert not [p for p in problems(db) if p["path"] == "/usr/lib/libbeta.so"]
    expected = {
        (PROG, "v_fn", None, "/usr/lib/libbeta.so"),
        ("/usr/lib/libalpha.so", "v_fn", None, "/usr/lib/libbeta.so"),
    }
    assert expected <= bindings(db)
