"""A root whose modules the identification stage has something to say about (docs/identify.md),
built from C (tests/fixtures/identify) with gcc: a program that names itself (dnsmasq), a vendor
library carrying the wireless-tools API (GPL code copied into proprietary code: finding f), a
statically linked program carrying libavcodec's version tag and a C library banner whose free text
is markup (LGPL components linked statically: finding g), and the host's glibc, identified by its
banner."""

from __future__ import annotations

from pathlib import Path

from .fixture_root import Root

SRC = "identify/"
# the markup in the static program's C library banner (tests/fixtures/identify/mediatool.c)
BANNER_MARKUP = "<img src=x onerror=alert`6`> \"quoted\" 'x'"
DNSMASQ, VENDOR_WIFI, MEDIATOOL = "/usr/sbin/dnsmasq", "/usr/lib/libvendorwifi.so", "/usr/bin/mediatool"


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
    return root
