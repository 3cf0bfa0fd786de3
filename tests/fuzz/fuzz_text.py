"""Fuzz targets of the readers of text from firmware: licence expressions (``licences/spdx``),
control files (``licences/control``: dpkg and opkg status and control files, DEP-5 copyright
files) and dlopen patterns (``dlopen/candidates``).

An input is the text as bytes (read as UTF-8, undecodable bytes kept as escapes, as the scan
keeps file names). A ``dlopen`` input is a pattern on its first line and the paths it is matched
against on the next ones (:data:`PATHS` when there are none). Each must finish without any
exception within the harness's bounds (tests/fuzz/fuzz_harness.py: 2 s of CPU, 256 MiB): these
readers reject nothing, they say what they did not understand. The seeds (:data:`SEEDS`, named
``text:NAME`` as recipe seeds) are written here, the same on every machine.
"""

from __future__ import annotations

from collections.abc import Callable

from fuzz_harness import ALARM_SECONDS, Stats, measured
from linkgraph.loader.dlopen.candidates import PathPattern, is_library_name, pattern_regex
from linkgraph.loader.licences.control import bad_lines_message, parse_paragraphs
from linkgraph.loader.licences.spdx import listed_parts, normalise, normalise_modinfo

MAX_PATHS = 64  # paths one dlopen input is matched against
PATHS = ["/usr/lib/libebt_ip.so", "/a/b/c/d/e/f/g/hxabc.so", "/" + "/".join(f"d{i}" for i in range(120)) + "/xabd.so"]

CONTROL = """\
Package: busybox
Version: 1.36.1-1
Status: install ok installed
License: GPL-2.0-only
Description: tiny utilities
 continued
 .
 after a blank

Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
# a comment
Files: *
Copyright: 2001 someone
License: LGPL-2.1+
 text of the licence
"""

SEEDS: dict[str, dict[str, bytes]] = {
    "licence": {
        "gpl-or-later": b"GPLv2 or (at your option) any later version",
        "choice": b"GPL-2.0+ | BSD-3c, and MIT/X11",
        "with": b"GPL-2.0-only WITH Linux-syscall-note",
        "list": b"GPL-2.0 LGPL-2.1 Apache License 2.0",
        "ref": b"(LicenseRef-vendor & Zlib) or zlib/libpng",
    },
    "control": {"status": CONTROL.encode()},
    "dlopen": {
        "name": b"libebt_%s.so\n/usr/lib/libebt_ip.so\n/usr/lib/libebt_ip6.so",
        "folder": b"/usr/lib/xtables/%s.so\n/usr/lib/xtables/libxt_tcp.so",
        "deep": b"/%s/%s/%s/%s/%s/%s/%s/%sabc.so",
        "numbers": b"libfoo%d.%02x.so.%u\nlibfoo12.0a.so.3",
    },
}
TARGETS = tuple(SEEDS)


def seed_bytes(name: str) -> bytes:
    """The seed ``NAME`` of ``text:NAME`` (``TARGET-SEED``, e.g. ``licence-choice``)."""
    target, _, seed = name.partition("-")
    return SEEDS[target][seed]


def _licence(text: str) -> None:
    normalise.cache_clear()  # every input computed, not taken from an earlier one
    normalise(text)
    listed_parts(text)
    normalise_modinfo(text)


def _control(text: str) -> None:
    parsed = parse_paragraphs(text)
    if parsed.bad_lines:
        bad_lines_message("control file", parsed.bad_lines)
    for paragraph in parsed.paragraphs:
        paragraph.first_line("license")


def _dlopen(text: str) -> None:
    pattern, *paths = text.split("\n")
    is_library_name(pattern)
    base = pattern.rpartition("/")[2]
    compiled = [pattern_regex(pattern), pattern_regex(pattern, strict=False), pattern_regex(base, strict=False)]
    for regex in [r for r in compiled if r is not None]:
        for path in (paths or PATHS)[:MAX_PATHS]:
            regex.fullmatch(path)
            PathPattern("(?:.*/)?" + regex.source).fullmatch(path)


RUN: dict[str, Callable[[str], None]] = {"licence": _licence, "control": _control, "dlopen": _dlopen}


def check_text(target: str, data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> None:
    """Judge one input of a text target (a Finding if it raised, hung or used too much memory)."""
    text = data.decode("utf-8", "surrogateescape")
    measured(lambda: RUN[target](text), stats, f"{target} text of {len(data)} bytes", alarm, expected=())
