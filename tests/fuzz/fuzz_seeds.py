"""The seeds of the fuzz runs: real ELF files under stable names, and small roots to scan.

Seed names say where the bytes come from:

* ``synthetic:NAME``: built here with ``build_elf`` (tests/support/elf_builder.py); the same bytes everywhere.
* ``vendor:ROOT:PATH``: a file of a stock vendor root, ``../shared/firmware/roots/ROOT.tar.xz``
  extracted once into the test cache (``test_vendor_roots.extracted_root``).
* ``image:PREFIX:PATH``: a file of the root of the OpenWrt-family image ``PREFIX*.bin``
  (``strace_oracle.extracted_image``, linkgraph's own unpacker, cached the same way).
* ``fixture:PATH``: compiled by gcc from tests/fixtures into a :class:`fixture_root.Root`.
* ``host:PATH``: a file of this machine.
* ``text:TARGET-NAME``: a text seed of a text target (tests/fuzz/fuzz_text.py), written there.

The first three and text seeds give the same bytes on every machine, so recorded crashes name only those
(:data:`STABLE`); the replay checks the seed's sha256. Nothing is copied into the repository.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import fuzz_text
from support import strace_oracle, vendor_roots
from support.elf_builder import BASE, DT_MIPS_GOTSYM, DT_MIPS_SYMTABNO, EM_MIPS, MIPS_SYMS, build_elf
from support.fixture_root import Root, two_library_root

STABLE = ("synthetic", "vendor", "image", "text")
DT_NEEDED, DT_SONAME, DT_VERSYM, DT_VERNEED, DT_VERNEEDNUM = 1, 14, 0x6FFFFFF0, 0x6FFFFFFE, 0x6FFFFFFF
EM_ARM = 40
SYMS = [("f", 1, 2, 0, 5, 0x100), ("g", 1, 2, 0, 0, 0), ("d", 1, 1, 0, 5, 0x200), ("w", 2, 2, 0, 0, 0)]


def _versioned() -> bytes:
    """An x86-64 library with DT_VERSYM and one verneed record (file "f", version "f" as index 2)."""
    syms = [("f", 1, 2, 0, 1, 0x1000)]
    probe = len(build_elf(symbols=syms, tags=[(DT_VERSYM, 0), (DT_VERNEED, 0), (DT_VERNEEDNUM, 1)]))
    versym = BASE + probe + (-probe % 8)
    data = bytearray(build_elf(symbols=syms, tags=[(DT_VERSYM, versym), (DT_VERNEED, versym + 8), (DT_VERNEEDNUM, 1)]))
    data += bytes(-probe % 8) + struct.pack("<4H", 0, 2, 0, 0)
    data += struct.pack("<HHIII", 1, 1, 1, 16, 0) + struct.pack("<IHHII", 0, 0, 2, 1, 0)
    struct.pack_into("<QQ", data, 64 + 32, len(data), len(data))  # the PT_LOAD covers the tables
    return bytes(data)


SYNTHETIC: dict[str, Callable[[], bytes]] = {
    "x86_64-rela": lambda: build_elf(symbols=SYMS, relocs=[(2, 6), (3, 1)], jmprel=[(2, 7)],
                                     tags=[(DT_NEEDED, 1), (DT_SONAME, 3)]),
    "x86_64-gnu-hash": lambda: build_elf(symbols=SYMS, relocs=[(2, 6)], gnu_hash=True, tags=[(DT_NEEDED, 1)]),
    "x86_64-versioned": _versioned,
    "mips64-be": lambda: build_elf(little=False, machine=EM_MIPS, symbols=MIPS_SYMS, rela=False,
                                   relocs=[(1, 126), (3, 3), (4, 3)], jmprel=[(2, 127)], mips64_info=True,
                                   tags=[(DT_MIPS_GOTSYM, 4), (DT_MIPS_SYMTABNO, 7), (DT_SONAME, 1)]),
    "mips32-be-rel": lambda: build_elf(is64=False, little=False, machine=EM_MIPS, symbols=SYMS, rela=False,
                                       relocs=[(2, 2), (3, 2)], tags=[(DT_MIPS_GOTSYM, 2), (DT_NEEDED, 1)]),
    "arm32-rel": lambda: build_elf(is64=False, machine=EM_ARM, symbols=SYMS, rela=False, relocs=[(2, 21)],
                                   jmprel=[(4, 22)], tags=[(DT_NEEDED, 1)]),
}  # fmt: skip

# Small files of four roots: uClibc MIPS LE, uClibc ARM, glibc ARM (symbol versions), musl MIPS LE
# and (the image) musl MIPS BE; programs, libraries and kernel modules.
FIRMWARE = (
    "vendor:hilink_hlk-rm04:/bin/mii_mgr",
    "vendor:hilink_hlk-rm04:/lib/libutil-0.9.28.so",
    "vendor:hilink_hlk-rm04:/lib/ld-uClibc-0.9.28.so",
    "vendor:hilink_hlk-rm04:/lib/modules/2.6.21/kernel/drivers/char/hw_random/rng-core.ko",
    "vendor:dlink_dir880l:/usr/sbin/nvram",
    "vendor:dlink_dir880l:/lib/libnvram.so",
    "vendor:dlink_dir880l:/lib/modules/ip6t_CTFILTER.ko",
    "vendor:jiofi2_m2:/usr/lib/libiptc.so.0",
    "vendor:jiofi2_m2:/usr/bin/mesg.sysvinit",
    "vendor:alt_xiaomi_r4a:/sbin/mount_root",
    "vendor:alt_xiaomi_r4a:/lib/libubox.so",
    "image:lede:/sbin/uci",
    "image:lede:/lib/libuci.so",
    "image:lede:/lib/libgcc_s.so.1",
    "image:lede:/lib/modules/4.4.92/xt_comment.ko",
)
HOST = ("host:/bin/true",)

# Small roots for the scan: a program and the libraries it loads, copied (links as links).
SMALL_ROOTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hilink": ("vendor:hilink_hlk-rm04", ("/bin/mii_mgr", "/lib/ld-uClibc-0.9.28.so", "/lib/ld-uClibc.so.0",
                                          "/lib/libuClibc-0.9.28.so", "/lib/libc.so.0", "/lib/libutil-0.9.28.so",
                                          "/lib/libutil.so.0")),
    "lede": ("image:lede", ("/sbin/uci", "/lib/libc.so", "/lib/ld-musl-mips-sf.so.1", "/lib/libuci.so",
                            "/lib/libubox.so", "/lib/libgcc_s.so.1")),
}  # fmt: skip
FIXTURE_ROOT = "fixture"  # two_library_root: glibc, a program, two libraries
SCAN_ROOTS = (FIXTURE_ROOT, *SMALL_ROOTS)


def firmware_root(source: str) -> Path:
    """The host folder of ``vendor:ROOT`` or ``image:PREFIX`` (extracted into the test cache once)."""
    kind, _, which = source.partition(":")
    if kind == "vendor":
        return vendor_roots.extracted_root(which)[0]
    if kind == "image":
        return strace_oracle.extracted_image(which)[0]
    raise ValueError(f"not a firmware source: {source!r}")


def seed_bytes(name: str, fixtures: Path | None = None) -> bytes:
    """The bytes of the seed ``name`` (``fixtures``: a folder :func:`fixture_seeds` built into)."""
    kind, _, rest = name.partition(":")
    if kind == "synthetic":
        import fuzz_kernel  # the kernel and unpacking targets' seeds (they import linkgraph: not at the top,
        import fuzz_unpack  # see bench/fuzz.py)

        return (SYNTHETIC.get(rest) or {**fuzz_kernel.SYNTHETIC, **fuzz_unpack.SEEDS}[rest])()
    if kind in ("vendor", "image"):
        which, _, path = rest.partition(":")
        host = Path(str(firmware_root(f"{kind}:{which}")) + path)
        if host.is_symlink() or not host.is_file():
            raise FileNotFoundError(f"seed {name}: {host} is not a regular file")
        return host.read_bytes()
    if kind == "host":
        return Path(rest).read_bytes()
    if kind == "text":
        return fuzz_text.seed_bytes(rest)
    if kind == "fixture" and fixtures is not None:
        return Path(str(fixtures) + rest).read_bytes()
    raise ValueError(f"unknown seed {name!r}")


def fixture_root(dest: Path) -> Root:
    """two_library_root with a versioned library (two version nodes) and a program that needs it."""
    root = two_library_root(dest)
    rules = "loader_rules/"
    root.lib("/usr/lib/libver.so.1", [rules + "ver_final.c"], version_script=rules + "ver_final.map")
    root.exe("/usr/bin/verprog", [rules + "ver_prog.c"], needs=["/usr/lib/libver.so.1"])
    return root


def elf_seeds(work: Path) -> dict[str, bytes]:
    """Every seed by name (sorted): synthetic, firmware, host and gcc-built fixture files."""
    root = fixture_root(work / "seed-root")
    seeds = {f"synthetic:{name}": build() for name, build in SYNTHETIC.items()}
    seeds.update({name: seed_bytes(name) for name in (*FIRMWARE, *HOST)})
    seeds.update({f"fixture:{path}": root.host(path).read_bytes() for path in root.built})
    return dict(sorted(seeds.items()))


def small_root(name: str, dest: Path) -> Path:
    """The small root ``name`` (:data:`SMALL_ROOTS` or :data:`FIXTURE_ROOT`) built afresh at ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    if name == FIXTURE_ROOT:
        return fixture_root(dest).path
    source, paths = SMALL_ROOTS[name]
    src = firmware_root(source)
    for path in paths:
        host, out = Path(str(src) + path), Path(str(dest) + path)
        out.parent.mkdir(parents=True, exist_ok=True)
        if host.is_symlink():
            os.symlink(os.readlink(host), out)
        else:
            shutil.copy2(host, out)
    return dest


def root_files(root: Path) -> list[str]:
    """Device paths of the regular ELF files of a small root, sorted: the files a mutant replaces."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            host = Path(dirpath) / name
            if not host.is_symlink() and host.read_bytes()[:4] == b"\x7fELF":
                out.append("/" + str(host.relative_to(root)))
    return sorted(out)


def scan_pairs(roots: dict[str, Path]) -> list[tuple[str, str]]:
    """(root name, device path) of every file a scan mutant may replace, in a fixed order."""
    return [(name, path) for name in SCAN_ROOTS for path in root_files(roots[name])]


def root_seed_name(root: str, path: str) -> str:
    """The seed name of a small root's file (the source root's file: the copies keep their paths)."""
    return f"fixture:{path}" if root == FIXTURE_ROOT else f"{SMALL_ROOTS[root][0]}:{path}"
