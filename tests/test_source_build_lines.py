"""Which build-file lines of a release link libraries (docs/sources.md): Makefiles and a package's
own build script give link lines; an example script deeper in a package (busybox 1.01's
``examples/bootfloppy/mkrootfs.sh`` copies ``libcrypt.so*``) and the shell's ``-lt``/``-le``
comparisons do not. The release is built here; the expected lines are the ones the test wrote."""

from __future__ import annotations

from pathlib import Path

from linkgraph.loader.sources.index import index_release
from support.archive_bytes import tar_bytes

MAKEFILE = b"""all: foo
foo: foo.o
\t$(CC) -o foo foo.o -lcrypt
LIBRARIES += -lmsglog
# LIBRARIES += -lold
check:
\ttest $$(wc -l < out) -lt 3 && test 1 -le 2
"""
BUILD_SH = b"#!/bin/sh\nmake\ncp libfoo.so $ROOT/lib\n"
EXAMPLE_SH = b"#!/bin/sh\ncp -a crypt/libcrypt.so* $BASE_DIR/lib\ncp -a libc.so* $BASE_DIR/lib\n"
TOP_SH = b"#!/bin/sh\ninstall -m 755 libbar.so $ROOT/lib\nif [ $# -lt 1 ]; then exit 1; fi\n"


def test_example_scripts_give_no_link_lines(tmp_path: Path) -> None:
    release = tmp_path / "gpl.tar.gz"
    release.write_bytes(
        tar_bytes(
            [
                ("gpl/apps/foo-1.0/Makefile", MAKEFILE),
                ("gpl/apps/foo-1.0/build.sh", BUILD_SH),
                ("gpl/apps/foo-1.0/examples/bootfloppy/mkrootfs.sh", EXAMPLE_SH),
                ("gpl/apps/foo-1.0/scripts/port/solaris.sh", b"cc -o foo foo.c -lsocket -lnsl\n"),
                ("gpl/build/mkfs.sh", TOP_SH),
            ],
            "w:gz",
        )
    )
    index = index_release(release, "k")
    got = sorted((line.file, line.line, line.libraries) for line in index.link_lines)
    assert got == [
        ("apps/foo-1.0/Makefile", 3, ("crypt",)),
        ("apps/foo-1.0/Makefile", 4, ("msglog",)),
        ("apps/foo-1.0/build.sh", 3, ("foo",)),
        ("build/mkfs.sh", 2, ("bar",)),
    ]
