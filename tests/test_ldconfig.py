"""ld.so.conf / ld.so.cache / musl .path readers, checked against the real ldconfig of this machine."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from linkgraph.loader.errors import LdconfigError
from linkgraph.loader.ldso.ld_cache import (
    HWCAP_EXTENSION,
    NEW_MAGIC,
    OLD_MAGIC,
    CacheEntry,
    LdCache,
    accepted_flags,
    read_ld_so_cache,
)
from linkgraph.loader.ldso.ld_conf import read_ld_so_conf, read_musl_path_file
from linkgraph.loader.rootfs import RootFS

LDCONFIG = shutil.which("ldconfig") or "/sbin/ldconfig"
FORMAT_NAMES = {"new": "glibc-new", "old": "glibc-old", "compat": "glibc-old+new"}


def ldconfig_print(cache: str) -> list[tuple[str, str]]:
    out = subprocess.run([LDCONFIG, "-p", "-C", cache], capture_output=True, text=True, check=True).stdout
    pairs = []
    for line in out.splitlines():
        m = re.match(r"\t(.+) \((.*)\) => (.*)$", line)
        if m:
            pairs.append((m.group(1), m.group(3)))
    return pairs


def supported_formats() -> list[str]:
    text = subprocess.run([LDCONFIG, "--help"], capture_output=True, text=True).stdout
    line = next(ln for ln in text.splitlines() if "--format" in ln)
    return [f for f in ("new", "old", "compat") if re.search(rf"\b{f}\b", line)]


def host_library(soname: str) -> str:
    """A host path for ``soname`` as this machine's own cache lists it (first entry)."""
    for name, path in ldconfig_print("/etc/ld.so.cache"):
        if name == soname:
            return path
    raise AssertionError(f"{soname} not in this machine's ld.so.cache")


@pytest.fixture(scope="module")
def host_abi() -> tuple[int, str, int]:
    with open(host_library("libz.so.1"), "rb") as fh:
        elf = ELFFile(fh)
        return elf.elfclass, elf.header.e_machine, elf.header.e_flags


def other_machine(machine: str) -> str:
    return "EM_AARCH64" if machine != "EM_AARCH64" else "EM_X86_64"


# ---------------------------------------------------------------------------- this machine's cache


def test_ldconfig_is_present() -> None:
    assert os.access(LDCONFIG, os.X_OK), "these tests need the real ldconfig"
    assert "new" in supported_formats()


def test_host_cache_matches_ldconfig_p(host_abi: tuple[int, str, int]) -> None:
    cache = read_ld_so_cache(Path("/etc/ld.so.cache").read_bytes())
    assert cache.format in ("glibc-new", "glibc-old+new")
    assert cache.byteorder == ("little" if struct.pack("=I", 1) == b"\1\0\0\0" else "big")
    expected = ldconfig_print("/etc/ld.so.cache")
    assert len(expected) > 5
    assert [(e.name, e.path) for e in cache.entries] == expected
    elf_class, machine, e_flags = host_abi
    found = cache.lookup("libz.so.1", elf_class, machine, e_flags)
    assert found and found[0] == host_library("libz.so.1")
    assert cache.lookup("libz.so.1", elf_class, machine) == found  # e_flags only ever narrows
    assert cache.lookup("libz.so.1", 64, other_machine(machine)) == []
    assert cache.lookup("libdoes-not-exist.so.7", elf_class, machine) == []


# ------------------------------------------------------------------- caches made by the real ldconfig


@pytest.fixture(scope="module")
def small_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("root")
    for d in ("lib", "usr/lib/glibc-hwcaps/x86-64-v3", "opt/extra", "etc/ld.so.conf.d"):
        (root / d).mkdir(parents=True)
    libz, libc = host_library("libz.so.1"), host_library("libc.so.6")
    for dest in ("lib", "usr/lib", "usr/lib/glibc-hwcaps/x86-64-v3", "opt/extra"):
        shutil.copy(libz, root / dest / "libz.so.1")
    shutil.copy(libc, root / "lib" / "libc.so.6")
    (root / "etc/ld.so.conf").write_text("include /etc/ld.so.conf.d/*.conf\n/usr/lib\n")
    (root / "etc/ld.so.conf.d/extra.conf").write_text("/opt/extra\n")
    return root


def build_cache(root: Path, fmt: str) -> Path:
    name = f"/etc/ld.so.cache.{fmt}"
    subprocess.run(
        [LDCONFIG, "-X", "-r", str(root), "-C", name, "-f", "/etc/ld.so.conf", "-c", fmt],
        check=True,
        capture_output=True,
    )
    return root / name.lstrip("/")


@pytest.mark.parametrize("fmt", ["new", "old", "compat"])
def test_generated_cache(small_root: Path, fmt: str, host_abi: tuple[int, str, int]) -> None:
    if fmt not in supported_formats():
        pytest.fail(f"this ldconfig cannot write -c {fmt}: drop it from the test")
    path = build_cache(small_root, fmt)
    cache = read_ld_so_cache(path.read_bytes())
    assert cache.format == FORMAT_NAMES[fmt]
    assert [(e.name, e.path) for e in cache.entries] == ldconfig_print(str(path))
    hwcaps_path = "/usr/lib/glibc-hwcaps/x86-64-v3/libz.so.1"
    plain = [p for n, p in ldconfig_print(str(path)) if n == "libz.so.1" and p != hwcaps_path]
    assert sorted(plain) == ["/lib/libz.so.1", "/opt/extra/libz.so.1", "/usr/lib/libz.so.1"]
    elf_class, machine, e_flags = host_abi
    found = cache.lookup("libz.so.1", elf_class, machine, e_flags)
    if fmt == "old":
        # The old table has no hwcap field: ld.so reading it would open the glibc-hwcaps copy.
        assert all(e.hwcap is None for e in cache.entries)
        assert found == [hwcaps_path, *plain]
    else:
        hw = [e for e in cache.entries if e.path == hwcaps_path]
        assert len(hw) == 1 and hw[0].hwcaps_subdir == "x86-64-v3" and hw[0].hwcap & HWCAP_EXTENSION
        assert found == plain  # a baseline CPU skips glibc-hwcaps entries
        assert cache.generator and cache.generator.startswith("ldconfig")
    assert cache.lookup("libc.so.6", elf_class, machine) == ["/lib/libc.so.6"]
    assert cache.lookup("libz.so.1", 64, other_machine(machine)) == []


# ------------------------------------------------------------------------------ byte-order swapping


def swap_new(data: bytearray, base: int) -> None:
    nlibs, len_strings = struct.unpack_from("<II", data, base + 20)
    ext = struct.unpack_from("<I", data, base + 32)[0]
    struct.pack_into(">II", data, base + 20, nlibs, len_strings)
    data[base + 28] = 3
    struct.pack_into(">I", data, base + 32, ext)
    for i in range(nlibs):
        at = base + 48 + 24 * i
        struct.pack_into(">iIIIQ", data, at, *struct.unpack_from("<iIIIQ", data, at))
    if ext:
        magic, count = struct.unpack_from("<II", data, ext)
        struct.pack_into(">II", data, ext, magic, count)
        for i in range(count):
            at = ext + 8 + 16 * i
            tag, flags, offset, size = struct.unpack_from("<IIII", data, at)
            struct.pack_into(">IIII", data, at, tag, flags, offset, size)
            if tag == 1:
                for j in range(offset, offset + size, 4):
                    struct.pack_into(">I", data, j, *struct.unpack_from("<I", data, j))


def to_big_endian(data: bytes) -> bytes:
    out = bytearray(data)
    if data.startswith(NEW_MAGIC):
        swap_new(out, 0)
        return bytes(out)
    nlibs = struct.unpack_from("<I", data, 12)[0]
    struct.pack_into(">I", out, 12, nlibs)
    for i in range(nlibs):
        at = 16 + 12 * i
        struct.pack_into(">iII", out, at, *struct.unpack_from("<iII", data, at))
    new_at = (16 + 12 * nlibs + 7) & -8
    if data[new_at : new_at + len(NEW_MAGIC)] == NEW_MAGIC:
        swap_new(out, new_at)
    return bytes(out)


@pytest.mark.parametrize("fmt", ["new", "old", "compat"])
def test_big_endian_cache(small_root: Path, fmt: str) -> None:
    little = build_cache(small_root, fmt).read_bytes()
    big = to_big_endian(little)
    assert big != little
    a, b = read_ld_so_cache(little), read_ld_so_cache(big)
    assert (a.byteorder, b.byteorder) == ("little", "big")
    assert (b.format, b.entries) == (a.format, a.entries)
    if fmt == "new":  # no endianness flag (ldconfig before 2.33): guessed from nlibs
        unknown = bytearray(big)
        unknown[28] = 0
        assert read_ld_so_cache(bytes(unknown)).entries == a.entries


# ------------------------------------------------------------------------------ hand-made caches


def make_new(entries: list[tuple[str, str, int, int]], order: str = "<") -> bytes:
    strings = bytearray()
    table = bytearray()
    start = 48 + 24 * len(entries)
    for name, path, flags, hwcap in entries:
        key = start + len(strings)
        strings += name.encode() + b"\0"
        value = start + len(strings)
        strings += path.encode() + b"\0"
        table += struct.pack(order + "iIIIQ", flags, key, value, 0, hwcap)
    endian = 2 if order == "<" else 3
    head = NEW_MAGIC + struct.pack(order + "II", len(entries), len(strings)) + bytes([endian, 0, 0, 0])
    return head + struct.pack(order + "I12x", 0) + table + strings


def make_old(entries: list[tuple[str, str, int]], order: str = "<") -> bytes:
    strings = bytearray()
    table = bytearray()
    for name, path, flags in entries:
        key = len(strings)
        strings += name.encode() + b"\0"
        table += struct.pack(order + "iII", flags, key, len(strings))
        strings += path.encode() + b"\0"
    return OLD_MAGIC + b"\0" + struct.pack(order + "I", len(entries)) + table + strings


ABI_ENTRIES = [  # sorted as ldconfig sorts them: flags descending
    ("libfoo.so.1", "/lib/riscv-double/libfoo.so.1", 0x1003, 0),
    ("libfoo.so.1", "/lib/riscv-soft/libfoo.so.1", 0x0F03, 0),
    ("libfoo.so.1", "/lib/arm-sf/libfoo.so.1", 0x0B03, 0),
    ("libfoo.so.1", "/lib/aarch64/libfoo.so.1", 0x0A03, 0),
    ("libfoo.so.1", "/lib/arm-hf/libfoo.so.1", 0x0903, 0),
    ("libfoo.so.1", "/lib/x32/libfoo.so.1", 0x0803, 0),
    ("libfoo.so.1", "/lib/mips-n64/libfoo.so.1", 0x0703, 0),
    ("libfoo.so.1", "/lib/mips-n32/libfoo.so.1", 0x0603, 0),
    ("libfoo.so.1", "/lib/ppc64/libfoo.so.1", 0x0503, 0),
    ("libfoo.so.1", "/lib/x86_64/tls/libfoo.so.1", 0x0303, 1 << 63),  # legacy hwcap entry
    ("libfoo.so.1", "/lib/x86_64/libfoo.so.1", 0x0303, 0),
    ("libfoo.so.1", "/lib/libc6/libfoo.so.1", 0x0003, 0),
    ("libfoo.so.1", "/lib/elf/libfoo.so.1", 0x0001, 0),
]


@pytest.mark.parametrize(
    ("elf_class", "machine", "e_flags", "expected"),
    [
        (64, "EM_X86_64", None, ["x86_64"]),
        (32, "EM_X86_64", None, ["x32"]),
        (32, "EM_386", None, ["libc6", "elf"]),
        (64, "EM_AARCH64", None, ["aarch64"]),
        (32, "EM_ARM", None, ["arm-sf", "arm-hf", "libc6"]),
        (32, "EM_ARM", 0x05000400, ["arm-hf", "libc6"]),
        (32, "EM_ARM", 0x05000200, ["arm-sf", "libc6"]),
        (64, "EM_MIPS", None, ["mips-n64"]),
        (32, "EM_MIPS", 0x20, ["mips-n32"]),
        (32, "EM_MIPS", 0x0, ["libc6", "elf"]),
        (32, "EM_MIPS", None, ["mips-n32", "libc6", "elf"]),
        (64, "EM_PPC64", None, ["ppc64"]),
        (32, "EM_PPC", None, ["libc6", "elf"]),
        (64, "EM_RISCV", None, ["riscv-double", "riscv-soft"]),
        (64, "EM_RISCV", 0x5, ["riscv-double"]),
        (64, "EM_RISCV", 0x1, ["riscv-soft"]),
        (2, "EM_X86_64", None, ["x86_64"]),  # ELFCLASS64 given as the e_ident value
    ],
)
def test_lookup_abi_flags(elf_class: int, machine: str, e_flags: int | None, expected: list[str]) -> None:
    cache = read_ld_so_cache(make_new(ABI_ENTRIES))
    assert cache.format == "glibc-new"
    paths = cache.lookup("libfoo.so.1", elf_class, machine, e_flags)
    assert paths == [f"/lib/{d}/libfoo.so.1" for d in expected]


def test_lookup_name_compares_numbers_like_glibc() -> None:
    cache = read_ld_so_cache(make_new(ABI_ENTRIES))
    assert cache.lookup("libfoo.so.01", 64, "EM_X86_64") == ["/lib/x86_64/libfoo.so.1"]
    assert cache.lookup("libfoo.so.10", 64, "EM_X86_64") == []
    assert cache.lookup("libfoo.so", 64, "EM_X86_64") == []


def test_accepted_flags_defaults() -> None:
    assert accepted_flags(64, "EM_X86_64") == {0x303}
    assert accepted_flags(32, "EM_SH") == {1, 3}
    assert accepted_flags(64, "EM_MIPS", 0x400) == {0xE03}
    assert accepted_flags(32, "EM_MIPS", 0x420) == {0xD03}
    assert accepted_flags(32, "EM_MIPS", 0x400) == {0xC03}


@pytest.mark.parametrize("order", ["<", ">"])
def test_uclibc_cache(order: str) -> None:
    data = make_old(
        [
            ("libc.so.0", "/lib/libc.so.0", 4),
            ("libfoo.so.1", "/usr/lib/libfoo.so.1", 4),
            ("libfoo.so.1", "/lib/libfoo.so.1", 1),
            ("libfoo.so.1", "/opt/glibc/libfoo.so.1", 3),  # linked against glibc: uClibc skips it
            ("libfoo.so.1", "/opt/old/libfoo.so.1", 2),
        ],
        order,
    )
    cache = read_ld_so_cache(data)
    assert cache.format == "uclibc"
    assert cache.byteorder == ("little" if order == "<" else "big")
    expected = ["/usr/lib/libfoo.so.1", "/lib/libfoo.so.1", "/opt/old/libfoo.so.1"]
    assert cache.lookup("libfoo.so.1", 32, "EM_MIPS") == expected
    assert cache.lookup("libfoo.so.01", 32, "EM_MIPS") == []  # uClibc compares with strcmp
    assert cache.entries[0] == CacheEntry("libc.so.0", "/lib/libc.so.0", 4, None)


def test_old_glibc_cache_big_endian() -> None:
    entries = [("libfoo.so.1", "/lib/libfoo.so.1", 0x0603), ("libfoo.so.1", "/lib32/libfoo.so.1", 3)]
    data = make_old(entries, ">")
    cache = read_ld_so_cache(data)
    assert (cache.format, cache.byteorder) == ("glibc-old", "big")
    assert cache.lookup("libfoo.so.1", 32, "EM_MIPS", 0x20) == ["/lib/libfoo.so.1"]
    assert cache.lookup("libfoo.so.1", 32, "EM_MIPS", 0) == ["/lib32/libfoo.so.1"]


def test_empty_caches() -> None:
    assert read_ld_so_cache(make_new([])).entries == []
    assert isinstance(read_ld_so_cache(make_old([])), LdCache)


# -------------------------------------------------------------------------------- corrupt caches


@pytest.mark.parametrize("fmt", ["new", "old", "compat"])
def test_truncated_generated_cache(small_root: Path, fmt: str) -> None:
    data = build_cache(small_root, fmt).read_bytes()
    strings_end = len(data)
    if fmt != "old":  # bytes past the string table (extension directory) are optional to ld.so
        base = data.find(NEW_MAGIC)
        nlibs, len_strings = struct.unpack_from("<II", data, base + 20)
        strings_end = base + 48 + 24 * nlibs + len_strings
    for cut in range(strings_end):
        with pytest.raises(LdconfigError):
            read_ld_so_cache(data[:cut])
    read_ld_so_cache(data[:strings_end])


def test_corrupt_caches_raise_clear_errors() -> None:
    good = make_new([("libfoo.so.1", "/lib/libfoo.so.1", 0x303, 0)])
    with pytest.raises(LdconfigError, match="unknown magic"):
        read_ld_so_cache(b"\x7fELF" + good[4:])
    bad_key = bytearray(good)
    struct.pack_into("<I", bad_key, 48 + 4, 0xFFFFFF)
    with pytest.raises(LdconfigError, match="outside"):
        read_ld_so_cache(bytes(bad_key))
    huge = bytearray(good)
    struct.pack_into("<I", huge, 20, 0x7FFFFFFF)
    with pytest.raises(LdconfigError, match="truncated"):
        read_ld_so_cache(bytes(huge))
    invalid = bytearray(good)
    invalid[28] = 1
    with pytest.raises(LdconfigError, match="invalid"):
        read_ld_so_cache(bytes(invalid))
    old = bytearray(make_old([("libfoo.so.1", "/lib/libfoo.so.1", 3)]))
    struct.pack_into("<I", old, 16 + 8, 5000)
    with pytest.raises(LdconfigError, match="outside"):
        read_ld_so_cache(bytes(old))
    with pytest.raises(LdconfigError):
        read_ld_so_cache(b"")


def test_corrupt_bytes_never_escape_as_other_errors(small_root: Path) -> None:
    data = build_cache(small_root, "compat").read_bytes()
    for at in range(0, min(len(data), 200)):
        for value in (0x00, 0x7F, 0xFF):
            mutated = bytearray(data)
            mutated[at] = value
            with contextlib.suppress(LdconfigError):
                read_ld_so_cache(bytes(mutated))


# ------------------------------------------------------------------------------------- ld.so.conf


def write(root: Path, path: str, text: str | bytes) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text)


def test_ld_so_conf(tmp_path: Path) -> None:
    write(
        tmp_path,
        "/etc/ld.so.conf",
        (
            "# system libraries\n"
            "/usr/local/lib   # trailing comment\n"
            "include /etc/ld.so.conf.d/*.conf\n"
            "hwcap 0 nosegneg\n"
            "HWCAP 1 other\n"
            "  /opt/a, /opt/b:/opt/c\t/opt/d/\r\n"
            "/usr/local/lib\n"
            "include /nonexistent/*.conf /etc/none-*.conf\n"
            "include rel.d/*.conf\n"
            "/\n"
            "/opt/typed=libc5\n"
            "includes-are-not-this\n"
        ),
    )
    write(tmp_path, "/etc/ld.so.conf.d/10-b.conf", "/b10\ninclude ../nested/*.conf\n")
    write(tmp_path, "/etc/ld.so.conf.d/02-a.conf", "/a02\n")
    write(tmp_path, "/etc/ld.so.conf.d/Z-upper.conf", "/zupper\n")
    write(tmp_path, "/etc/ld.so.conf.d/.hidden.conf", "/hidden\n")
    write(tmp_path, "/etc/ld.so.conf.d/skip.txt", "/txt\n")
    (tmp_path / "etc/ld.so.conf.d/dir.conf").mkdir()
    write(tmp_path, "/etc/nested/x.conf", "/nested-x\ninclude /etc/ld.so.conf\ninclude /etc/loop*.conf\n")
    write(tmp_path, "/etc/loop-1.conf", "/loop1\ninclude /etc/loop-2.conf\n")
    write(tmp_path, "/etc/loop-2.conf", "/loop2\ninclude /etc/loop-1.conf\ninclude /etc/loop-2.conf\n")
    write(tmp_path, "/etc/rel.d/r.conf", "/relative\n")
    root = RootFS(str(tmp_path))
    assert read_ld_so_conf(root) == [
        "/usr/local/lib",
        "/a02",
        "/b10",
        "/nested-x",
        "/loop1",
        "/loop2",
        "/zupper",
        "/opt/a",
        "/opt/b",
        "/opt/c",
        "/opt/d",
        "/relative",
        "/opt/typed",
        "includes-are-not-this",
    ]


def test_ld_so_conf_stays_inside_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "/evil.conf", "/from-the-host\n")
    root_dir = tmp_path / "root"
    write(root_dir, "/etc/real.conf", "/inside\n")
    write(root_dir, "/etc/ld.so.conf", "include /etc/conf.d/*.conf\ninclude /etc/../../outside/*.conf\n")
    (root_dir / "etc/conf.d").mkdir()
    os.symlink("/etc/real.conf", root_dir / "etc/conf.d/a.conf")  # absolute: resolved in the root
    os.symlink(str(outside / "evil.conf"), root_dir / "etc/conf.d/b.conf")
    assert read_ld_so_conf(RootFS(str(root_dir))) == ["/inside"]


def test_ld_so_conf_missing_or_alternate(tmp_path: Path) -> None:
    assert read_ld_so_conf(RootFS(str(tmp_path))) == []
    write(tmp_path, "/etc/other.conf", "/x\n")
    assert read_ld_so_conf(RootFS(str(tmp_path)), "/etc/other.conf") == ["/x"]


def test_ld_so_conf_matches_real_ldconfig(tmp_path: Path) -> None:
    """The directories ldconfig -v scans (existing ones, not its built-in ones) come in our order."""
    write(tmp_path, "/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/top\n# /opt/commented\n")
    write(tmp_path, "/etc/ld.so.conf.d/b.conf", "/opt/b\ninclude /etc/more/*.conf\n")
    write(tmp_path, "/etc/ld.so.conf.d/A.conf", "/opt/A\n")
    write(tmp_path, "/etc/ld.so.conf.d/a.conf", "/opt/a\nhwcap 1 foo\n")
    write(tmp_path, "/etc/more/m.conf", "/opt/m\n/opt/missing\n")
    for d in ("top", "b", "A", "a", "m", "commented"):
        (tmp_path / "opt" / d).mkdir(parents=True)
    env = dict(os.environ, LC_ALL="C")
    out = subprocess.run(
        [LDCONFIG, "-r", str(tmp_path), "-f", "/etc/ld.so.conf", "-N", "-X", "-v"],
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    scanned = [m.group(1) for m in re.finditer(r"^(/[^:\n]*): \(from (?!<builtin>)", out, re.M)]
    ours = read_ld_so_conf(RootFS(str(tmp_path)))
    assert ours == ["/opt/A", "/opt/a", "/opt/b", "/opt/m", "/opt/missing", "/opt/top"]
    assert scanned == [d for d in ours if (tmp_path / d.lstrip("/")).is_dir()]


# ------------------------------------------------------------------------------------------- musl


def test_musl_path_file(tmp_path: Path) -> None:
    assert read_musl_path_file(RootFS(str(tmp_path)), "mipsel") is None
    write(tmp_path, "/etc/ld-musl-mipsel.path", b"/lib\n/usr/lib:/opt/lib\n\n::/usr/local/lib\n")
    write(tmp_path, "/etc/ld-musl-arm.path", b"/a\0/ignored\n")
    write(tmp_path, "/etc/ld-musl-aarch64.path", b"")
    (tmp_path / "etc/ld-musl-x86_64.path").mkdir()
    os.symlink("/etc/ld-musl-mipsel.path", tmp_path / "etc/ld-musl-mips.path")
    os.symlink("/nowhere", tmp_path / "etc/ld-musl-ppc.path")
    root = RootFS(str(tmp_path))  # RootFS remembers resolutions: a fresh one sees the new files
    assert read_musl_path_file(root, "mipsel") == ["/lib", "/usr/lib", "/opt/lib", "/usr/local/lib"]
    assert read_musl_path_file(root, "mips") == ["/lib", "/usr/lib", "/opt/lib", "/usr/local/lib"]
    assert read_musl_path_file(root, "arm") == ["/a"]
    assert read_musl_path_file(root, "aarch64") == []
    assert read_musl_path_file(root, "x86_64") == []  # exists but unreadable: musl searches nothing
    assert read_musl_path_file(root, "ppc") is None  # dangling symlink: ENOENT, musl's default path
    assert read_musl_path_file(root, "riscv64") is None
