"""The upcall root (tests/test_upcall.py), built from C (tests/fixtures/upcall) with gcc.

``/usr/bin/cb_prog`` defines ``host_callback`` and declares libcb and libhost; libcb calls
``host_callback`` (back into the program that loads it) and libgpl's ``gpl_fn``; libhost declares
libback, which calls libhost's ``lib_callback`` (back into the library that loads it); the
program opens libdlplug with ``dlopen``, and the plugin calls ``host_callback`` too.

:data:`LICENCES` makes the program, libhost and libgpl GPL and the other three proprietary, so
that each upcall would be a licence finding (a) if it counted as use; libcb's use of libgpl is
the one true finding.
"""

from __future__ import annotations

from pathlib import Path

from .fixture_root import Root

SRC = "upcall/"
PROG = "/usr/bin/cb_prog"
CB, GPL, HOST, BACK = "/usr/lib/libcb.so", "/usr/lib/libgpl.so", "/usr/lib/libhost.so", "/usr/lib/libback.so"
PLUGIN = "/usr/lib/libdlplug.so"
OUTPUT = ["cb=4 host=31 plugin=202"]  # what cb_prog prints
LICENCES = {
    PROG: "GPL-2.0-only",
    HOST: "GPL-2.0-only",
    GPL: "GPL-2.0-only",
    CB: "LicenseRef-Proprietary",
    BACK: "LicenseRef-Proprietary",
    PLUGIN: "LicenseRef-Proprietary",
}


def build_upcall_root(path: Path) -> Root:
    """The root at *path* (glibc copied from the host)."""
    root = Root(path)
    root.install_glibc()
    gpl = root.lib(GPL, [SRC + "gpl.c"])
    cb = root.lib(CB, [SRC + "cb.c"], needs=[gpl])
    back = root.lib(BACK, [SRC + "back.c"])
    host = root.lib(HOST, [SRC + "host.c"], needs=[back])
    root.lib(PLUGIN, [SRC + "dlplug.c"])
    root.exe(PROG, [SRC + "cb_prog.c"], needs=[cb, host])
    return root


def licence_file(dest: Path) -> Path:
    """The ``--licences`` file of :data:`LICENCES` at *dest*."""
    dest.write_text("".join(f"{path}: {licence}\n" for path, licence in LICENCES.items()))
    return dest
