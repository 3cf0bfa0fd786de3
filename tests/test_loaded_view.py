"""Vendor-style ELF damage and loader defaults, each judged by the real glibc loader in the root.

The loaders read an object through its mapped image: PT_DYNAMIC at its p_vaddr up to DT_NULL,
the tables at their addresses; they never look at section headers. Each case damages the
file-level view in one way (with gcc-built objects patched here) and checks that the real
loader's link map and bindings, linkgraph's, and the recorded anomaly agree. The loader's own
defaults (system directories, glibc-hwcaps) are read from the interpreter in the root.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from support import debian_roots, foreign_oracle
from support.fixture_root import (
    HOST_LDSO,
    INTERP,
    MULTIARCH,
    TRACE_ENV,
    Root,
    Scan,
    assert_matches_real_loader,
    real_loader,
    run_in_root,
    scan,
    two_library_root,
)
from support.oracle import parse_trace_list

R = "loader_rules/"
PROG = "/usr/bin/prog"


def _codes(result: Scan, path: str) -> list[str]:
    return sorted(p["code"] for p in result.problems() if p["path"] == path)


def _phdr_fields(data: bytes, p_type: int) -> list[int]:
    """File offsets of the program headers of *p_type* (ELF64 LE)."""
    phoff, phentsize, phnum = struct.unpack_from("<Q14xHH", data, 0x20)
    return [
        phoff + i * phentsize
        for i in range(phnum)
        if struct.unpack_from("<I", data, phoff + i * phentsize)[0] == p_type
    ]


def test_pt_dynamic_filesz_too_small(tmp_path: Path) -> None:
    """sstrip and vendor tools leave a PT_DYNAMIC p_filesz short of the DT_NULL-terminated array."""
    root = two_library_root(tmp_path / "root")
    for device in (PROG, "/usr/lib/libalpha.so"):
        data = bytearray(root.host(device).read_bytes())
        (pos,) = _phdr_fields(data, 2)
        struct.pack_into("<Q", data, pos + 32, 16)  # p_filesz: one entry
        root.host(device).write_bytes(bytes(data))
    trace = real_loader(root, PROG)
    assert trace.objects[:3] == [PROG, "/usr/lib/libalpha.so", "/usr/lib/libbeta.so"]
    result = scan(root, tmp_path / "db")
    assert_matches_real_loader(result, trace)
    assert result.module(PROG)["needed"] == ["libalpha.so", "libbeta.so", "libc.so.6"]
    assert _codes(result, PROG) == ["dynamic-size-mismatch"]
    assert _codes(result, "/usr/lib/libalpha.so") == ["dynamic-size-mismatch"]
    assert not result.problems("error")


def test_section_headers_pointing_to_wrong_tables(tmp_path: Path) -> None:
    """Section headers whose .dynamic / .dynsym addresses are wrong change nothing the loader reads."""
    root = two_library_root(tmp_path / "root")
    for device in (PROG, "/usr/lib/libalpha.so"):
        host = root.host(device)
        out = subprocess.run(["readelf", "-SW", str(host)], capture_output=True, text=True, check=True).stdout
        index = {m.group(2): int(m.group(1)) for m in re.finditer(r"\[\s*(\d+)\]\s+(\.\S+)", out)}
        data = bytearray(host.read_bytes())
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        (shentsize,) = struct.unpack_from("<H", data, 0x3A)
        for name in (".dynamic", ".dynsym"):
            struct.pack_into("<Q", data, shoff + index[name] * shentsize + 16, 0x1000)  # sh_addr
        host.write_bytes(bytes(data))
    trace = real_loader(root, PROG)
    result = scan(root, tmp_path / "db")
    assert_matches_real_loader(result, trace)
    assert _codes(result, PROG) == ["section-headers-disagree"]
    assert _codes(result, "/usr/lib/libalpha.so") == ["section-headers-disagree"]


# --------------------------------------------------------------------------- header checks


def _trace_any(root: Root, exe: str) -> tuple[list[str], str]:
    """The real loader's trace list (objects) and what it printed, whether or not it failed."""
    proc = run_in_root(root, [INTERP, exe], dict(TRACE_ENV))
    lines, _static = parse_trace_list(proc.stdout)
    return [root.canonical(line.path) for line in lines if line.path], proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("label", "make", "loads_good"),
    [
        # open_verify: a wrong class is skipped and the search goes on ...
        ("wrong class", lambda d: d.__setitem__(4, 1), True),
        ("wrong machine", lambda d: struct.pack_into("<H", d, 18, 183), True),
        # ... anything else wrong in the header stops the load
        ("wrong byte order", lambda d: d.__setitem__(5, 2), False),
        ("OS ABI FreeBSD", lambda d: d.__setitem__(7, 9), False),
        ("padding", lambda d: d.__setitem__(12, 1), False),
        ("e_version 2", lambda d: struct.pack_into("<I", d, 20, 2), False),
        ("not ELF", lambda d: d.__setitem__(slice(0, 4), b"INPU"), False),
        ("ET_EXEC", None, False),
    ],
)
def test_glibc_header_checks(tmp_path: Path, label: str, make, loads_good: bool) -> None:
    """A bad candidate for libbeta.so in /lib/x86_64-linux-gnu, searched before the good one in
    /usr/lib: skipped (the good one loads) or fatal (libbeta.so missing), as ld.so decides."""
    root = two_library_root(tmp_path / "root")
    bad = f"{MULTIARCH}/libbeta.so"
    if make is None:
        root.exe(bad, [R + "x_main.c"], pie=False, needs=["/usr/lib/libalpha.so", "/usr/lib/libbeta.so"])
    else:
        data = bytearray(root.host("/usr/lib/libbeta.so").read_bytes())
        make(data)
        root.host(bad).write_bytes(bytes(data))
    objects, stderr = _trace_any(root, PROG)
    result = scan(root, tmp_path / "db")
    link_map = result.link_map(PROG)
    if loads_good:
        assert "/usr/lib/libbeta.so" in objects, stderr
        assert link_map["objects"][:3] == [PROG, "/usr/lib/libalpha.so", "/usr/lib/libbeta.so"]
        assert link_map["missing"] == []
    else:
        assert "/usr/lib/libbeta.so" not in objects and "libbeta.so" in stderr, (objects, stderr)
        assert "libbeta.so" in link_map["missing"], link_map
        assert "/usr/lib/libbeta.so" not in link_map["objects"]


# --------------------------------------------------------------------------- compiled-in defaults


def test_debian_layout_without_cache_or_conf(tmp_path: Path) -> None:
    """/lib64 holds only the interpreter link; the libraries are in /lib; no ld.so.cache, no
    ld.so.conf. Debian's ld.so searches /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib,
    /usr/lib (its SYSTEM_DIRS), which linkgraph reads from it instead of guessing /lib64."""
    root = Root(tmp_path / "root")
    root.install_glibc()
    root.lib("/lib/libbeta.so", [R + "onefn.c"], cflags=["-DFN=v_fn"])
    root.lib("/lib/libalpha.so", [R + "callfn.c"], cflags=["-DFN=x_fn", "-DCALLEE=v_fn"], needs=["/lib/libbeta.so"])
    root.exe(PROG, [R + "x_main.c"], needs=["/lib/libalpha.so", "/lib/libbeta.so"])
    assert not root.host("/etc/ld.so.cache").exists() and not root.host("/etc/ld.so.conf").exists()
    trace = real_loader(root, PROG)
    assert trace.missing == []
    result = scan(root, tmp_path / "db")
    assert_matches_real_loader(result, trace)
    defaults = result.report["firmware"]["source"]["loader_defaults"]
    (glibc,) = [d for key, d in defaults.items() if key.startswith("glibc ")]
    assert glibc["dirs"] == [MULTIARCH, "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"]
    assert glibc["from"] == f"interpreter {MULTIARCH}/ld-linux-x86-64.so.2"


def _patched_ldso(path: Path, old: bytes, new: bytes) -> None:
    """The root's ld.so with its SYSTEM_DIRS string replaced by one of the same layout (glibc also
    keeps the entries' lengths, so each entry keeps its length)."""
    assert [len(x) for x in old.split(b"\0")] == [len(x) for x in new.split(b"\0")]
    data = HOST_LDSO.read_bytes()
    assert old in data
    path.unlink()
    path.write_bytes(data.replace(old, new))
    os.chmod(path, 0o755)


def test_interpreter_with_vendor_system_dirs(tmp_path: Path) -> None:
    """An interpreter built with other system directories: only those are searched."""
    root = Root(tmp_path / "root")
    root.install_glibc()
    old = b"/lib/x86_64-linux-gnu/\0/usr/lib/x86_64-linux-gnu/\0/lib/\0/usr/lib/\0"
    new = b"/vnd/x86_64-linux-gnu/\0/usr/lib/x86_64-linux-gnu/\0/opt/\0/usr/lib/\0"
    _patched_ldso(root.host(f"{MULTIARCH}/ld-linux-x86-64.so.2"), old, new)
    root.host("/opt").mkdir()
    shutil.move(root.host(f"{MULTIARCH}/libc.so.6"), root.host("/opt/libc.so.6"))
    root.lib("/opt/libbeta.so", [R + "onefn.c"], cflags=["-DFN=v_fn"])
    root.lib("/lib/libalpha.so", [R + "callfn.c"], cflags=["-DFN=x_fn", "-DCALLEE=v_fn"], needs=["/opt/libbeta.so"])
    root.exe(PROG, [R + "x_main.c"], needs=["/lib/libalpha.so", "/opt/libbeta.so"])
    objects, stderr = _trace_any(root, PROG)
    assert "/lib/libalpha.so" not in objects and "libalpha.so => not found" in stderr  # /lib is not searched
    root.host("/usr/lib").mkdir(parents=True, exist_ok=True)
    root.host("/lib/libalpha.so").rename(root.host("/usr/lib/libalpha.so"))
    trace = real_loader(root, PROG)
    assert trace.objects[:4] == [PROG, "/usr/lib/libalpha.so", "/opt/libbeta.so", "/opt/libc.so.6"]
    result = scan(root, tmp_path / "db")
    assert_matches_real_loader(result, trace)
    (glibc,) = result.report["firmware"]["source"]["loader_defaults"].values()
    assert glibc["dirs"] == ["/vnd/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/opt", "/usr/lib"]


def _host_hwcaps() -> list[str]:
    """The glibc-hwcaps levels this machine's loader says it supports and searches."""
    out = subprocess.run([str(HOST_LDSO), "--help"], capture_output=True, text=True, check=True).stdout
    section = out.split("Subdirectories of glibc-hwcaps directories", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s+(\S+) \(supported, searched\)", section, re.M)


def test_glibc_hwcaps_subdirectory(tmp_path: Path) -> None:
    """A better libbeta.so in glibc-hwcaps/LEVEL of a system directory is taken for a CPU that
    supports LEVEL (``--cpu``), as the real loader on this machine takes it."""
    levels = _host_hwcaps()
    assert levels, "this machine's ld.so supports no glibc-hwcaps level"
    level = levels[-1]  # the lowest supported one
    root = two_library_root(tmp_path / "root")
    better = f"/usr/lib/glibc-hwcaps/{level}/libbeta.so"
    root.lib(better, [R + "onefn.c"], cflags=["-DFN=v_fn"])
    trace = real_loader(root, PROG)
    assert better in trace.objects
    result = scan(root, tmp_path / "db", extra=["--cpu", levels[0]])
    assert_matches_real_loader(result, trace)
    baseline = scan(root, tmp_path / "db-baseline", "baseline")
    assert "/usr/lib/libbeta.so" in baseline.link_map(PROG)["objects"]  # a baseline CPU: no hwcaps folder


@pytest.mark.slow
def test_glibc_armhf_skips_a_soft_float_library(tmp_path: Path) -> None:
    """glibc's ARM ``elf_machine_matches_host``: a hard-float loader skips a library marked
    soft-float (EF_ARM_ABI_FLOAT_SOFT), from the cache and the default directories alike, so
    curl's libz.so.1 is missing (musl, which never compares e_flags, would load it)."""
    base = debian_roots.cached_debian_root("armhf")
    root = tmp_path / "root"
    subprocess.run(["cp", "-al", str(base), str(root)], check=True)
    lib = root / "usr/lib/arm-linux-gnueabihf/libz.so.1"
    real = lib.resolve()
    data = bytearray(real.read_bytes())
    flags = struct.unpack_from("<I", data, 36)[0]
    assert flags & 0x400, hex(flags)
    struct.pack_into("<I", data, 36, (flags & ~0x400) | 0x200)
    real.unlink()
    real.write_bytes(bytes(data))
    trace = foreign_oracle.foreign_trace("armhf", root, "/usr/bin/curl")
    assert "libz.so.1" in trace.missing
    result = scan(Root(root), tmp_path / "db")
    assert "libz.so.1" in result.link_map("/usr/bin/curl")["missing"]
    assert result.link_map("/usr/bin/curl")["objects"] == trace.objects
