"""A root whose modules the identification stage has something to say about (docs/identify.md),
built from C (tests/fixtures/identify) with gcc: a program that names itself (dnsmasq), a vendor
library carrying the wireless-tools API (GPL code copied into proprietary code: finding f), a
statically linked program carrying libavcodec's version tag and a C library banner whose free text
is markup (LGPL components linked statically: finding g), GNU programs and a GNU library known by
gnulib's --version text (project families), and the host's glibc, identified by its banner."""

from __future__ import annotations

from pathlib import Path

from .fixture_root import Root

SRC = "identify/"
# the markup in the static program's C library banner (tests/fixtures/identify/mediatool.c)
BANNER_MARKUP = "<img src=x onerror=alert`6`> \"quoted\" 'x'"
DNSMASQ, VENDOR_WIFI, MEDIATOOL = "/usr/sbin/dnsmasq", "/usr/lib/libvendorwifi.so", "/usr/bin/mediatool"
# a GNU program by gnulib's --version text alone (no signature, no name table entry), a second one
# whose own bytes hold two version strings, and a GNU library whose gnulib text is its tool's
HELLO, HELLO_TWO, LIBIDN2 = "/usr/bin/hello", "/usr/bin/hello-two", "/usr/lib/libidn2.so.0"
# a program naming its project by a copyright holder and a home page (its licence: the name table's
# component of that name), and one that only points to another project
DOCVIEW, POINTER = "/usr/bin/docview", "/usr/bin/pointer"


def overrides_file(path: Path) -> Path:
    """The vendor library's licence, as a vendor's overrides file would state it."""
    path.write_text(f"{VENDOR_WIFI}: LicenseRef-Proprietary\n")
    return path


def build_identify_root(path: Path) -> Root:
    root = Root(path)
    root.install_glibc()
    root.exe(DNSMASQ, [SRC + "dnsmasq.c"])
    root.lib(VENDOR_WIFI, [SRC + "vendorwifi.c"])
    root.exe(MEDIATOOL, [SRC + "mediatool.c"], pie=False, ldflags=["-static"])
    root.exe(HELLO, [SRC + "gnuhello.c"])
    root.exe(HELLO_TWO, [SRC + "gnuhello.c"], cflags=["-DOTHER_VERSION"])
    root.lib(LIBIDN2, [SRC + "gnuhello.c"], cflags=["-DLIBRARY"])
    root.exe(DOCVIEW, [SRC + "projectwords.c"], cflags=["-DOWN_PROJECT"])
    root.exe(POINTER, [SRC + "projectwords.c"])
    return root
