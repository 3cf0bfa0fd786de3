"""The reference case of LWN's "Dynamic linking and derivative works" (2013) as a root: the TEW-636APB
busybox, its vendor libraries and the traps beside it, built from C (tests/fixtures/article) with gcc.

tests/test_article_case.py checks it against the article and the real loader; the viewer, diagram,
report and store tests scan it."""

from __future__ import annotations

from pathlib import Path

from .fixture_root import MULTIARCH, Root

A = "article/"
BUSYBOX = "/bin/busybox"
LIBC = f"{MULTIARCH}/libc.so.6"
LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"  # canonical path of the interpreter
UTIL, NVRAM, APCFG, APLOG = "/lib/libutility.so", "/lib/libnvram.so", "/lib/libapcfg.so", "/lib/libaplog.so"
CRYPT, GCC_S = "/lib/libcrypt.so.0", "/lib/libgcc_s.so.1"
VENDOR = [UTIL, NVRAM, APCFG, APLOG, CRYPT, GCC_S]
BUSYBOX_NEEDED = [
    "libutility.so",
    "libnvram.so",
    "libapcfg.so",
    "libaplog.so",
    "libcrypt.so.0",
    "libgcc_s.so.1",
    "libc.so.6",
]

TRAP_UNDEF, LIB_UNDEF = "/usr/bin/trap_undef", "/lib/libtrapundef.so"
TRAP_DUP, LIB_DUPA, LIB_DUPB = "/usr/bin/trap_dup", "/lib/libdupa.so", "/lib/libdupb.so"
APP, LIB_APP, LIB_APP_DECOY = "/opt/app/bin/app", "/opt/app/lib/libapp.so", "/lib/libapp.so"
TRAP_MISSING = "/usr/bin/trap_missing"
EXECUTABLES = [BUSYBOX, TRAP_UNDEF, TRAP_DUP, APP, TRAP_MISSING]
FIXTURE_LIBS = [*VENDOR, LIB_UNDEF, LIB_DUPA, LIB_DUPB, LIB_APP, LIB_APP_DECOY]


def build_article_root(path: Path) -> Root:
    """The busybox topology plus the traps, as a device root at *path*."""
    root = Root(path)
    root.install_glibc()
    root.lib(UTIL, [A + "utility.c"])
    root.lib(NVRAM, [A + "nvram.c"])
    root.lib(APLOG, [A + "aplog.c"])
    # libapcfg declares libnvram only; util_bar and aplog_write stay undefined in it.
    root.lib(APCFG, [A + "apcfg.c"], needs=[NVRAM], ldflags=["-Wl,-z,undefs"])
    root.lib(CRYPT, [A + "crypt.c"])
    root.lib(GCC_S, [A + "gcc_s.c"])
    root.exe(BUSYBOX, [A + "busybox.c"], needs=[UTIL, NVRAM, APCFG, APLOG, CRYPT, GCC_S])
    root.symlink("/bin/sh", "busybox")
    root.symlink("/sbin/init", "../bin/busybox")

    # Trap 1: a strong reference nothing defines.
    root.lib(LIB_UNDEF, [A + "undef_lib.c"], ldflags=["-Wl,-z,undefs"])
    root.exe(TRAP_UNDEF, [A + "undef_main.c"], needs=[LIB_UNDEF], ldflags=["-Wl,--allow-shlib-undefined"])
    # Trap 2: dup_fn exported by two libraries.
    root.lib(LIB_DUPA, [A + "dup_a.c"])
    root.lib(LIB_DUPB, [A + "dup_b.c"])
    root.exe(TRAP_DUP, [A + "dup_main.c"], needs=[LIB_DUPA, LIB_DUPB])
    # Trap 3: RUNPATH $ORIGIN/../lib beats a decoy with the same soname in a default directory.
    root.lib(LIB_APP, [A + "app_lib.c"], cflags=["-DAPP_VALUE=7"])
    root.lib(LIB_APP_DECOY, [A + "app_lib.c"], cflags=["-DAPP_VALUE=13"])
    root.exe(APP, [A + "app_main.c"], needs=[LIB_APP], runpath="$ORIGIN/../lib", link_dirs=[])
    # Trap 4: libgone.so.1 is declared but not shipped.
    gone = root.stub("libgone.so.1", [A + "gone.c"])
    root.exe(TRAP_MISSING, [A + "gone_main.c"], needs=[gone])
    return root
