"""Licence facts per module: each source on small written files, then whole scans through the CLI.

Unit tests write the metadata files (opkg, dpkg, DEP-5 copyright, Buildroot, Yocto, overrides)
into a folder and run ``licence_facts`` on stand-in modules. End to end: kernel modules built with
gcc -c (their .modinfo as MODULE_LICENSE writes it), the article's busybox root with an opkg
database and an override file, the real LEDE image (opkg data of OpenWrt), and a real Debian
armhf root with its packages' dpkg data and copyright files.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, linkgraph, scan_and_report
from linkgraph.loader.licences import NO_FACT, OverridesError, licence_facts, load_overrides, normalise
from linkgraph.loader.licences.copyright import free_text_licence
from linkgraph.loader.licences.knowledge import components
from linkgraph.loader.licences.spdx import names_data, normalise_modinfo
from linkgraph.loader.model import Certainty, ElfFacts, Flavour, Kind, LicenceFact, Module
from linkgraph.loader.problems import Problem
from linkgraph.loader.rootfs import RootFS
from support.images import FFULM, LEDE

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "licences"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


# --------------------------------------------------------------------------- helpers


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for device, content in files.items():
        host = root / device.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            host.write_bytes(content)
        else:
            host.write_text(content)


def module(
    path: str,
    kind: Kind = Kind.LIBRARY,
    soname: str | None = None,
    aliases: tuple[str, ...] = (),
    modinfo: dict[str, str] | None = None,
) -> Module:
    facts = ElfFacts(
        path=path,
        size=0,
        sha256="0" * 64,
        kind=kind,
        elf_class=32,
        endian="big",
        machine="EM_MIPS",
        osabi="ELFOSABI_SYSV",
        elf_type="ET_REL" if kind is Kind.KERNEL_MODULE else "ET_DYN",
        soname=soname,
        modinfo=dict(modinfo or {}),
    )
    return Module(facts, "/", list(aliases))


def facts_of(
    root: Path, modules: list[Module], overrides: Path | None = None, flavour: Flavour | None = Flavour.MUSL
) -> tuple[dict[str, LicenceFact], list[Problem]]:
    for m in modules:  # the module files exist (package lists are resolved inside the root)
        host = root / m.path.lstrip("/")
        if not host.exists():
            write(root, {m.path: b"\x7fELF"})
    problems: list[Problem] = []
    found = licence_facts(
        RootFS(str(root)), modules, problems, load_overrides(overrides) if overrides else None, flavour
    )
    return found, problems


def fact(licence: str | None, source: str, certainty: str | None, package: str | None) -> LicenceFact:
    return LicenceFact(licence, source, Certainty(certainty) if certainty else None, package)


# --------------------------------------------------------------------------- SPDX


@pytest.mark.parametrize(
    ("written", "spdx"),
    [
        ("GPL-2.0", "GPL-2.0-only"),
        ("GPLv2", "GPL-2.0-only"),
        ("GPL-2.0+", "GPL-2.0-or-later"),
        ("GPL-2+", "GPL-2.0-or-later"),
        ("LGPL-2.1+", "LGPL-2.1-or-later"),
        ("LGPL-2.1", "LGPL-2.1-only"),
        ("BSD-3c", "BSD-3-Clause"),
        ("MIT/X11", "MIT"),
        ("Expat", "MIT"),
        ("public-domain", "LicenseRef-public-domain"),
        ("gpl-2.0 AND mit", "GPL-2.0-only AND MIT"),
        ("  GPLv2   or\tMIT ", "GPL-2.0-only OR MIT"),
        ("GPL-2.0 GPL-2.0+", "GPL-2.0-only AND GPL-2.0-or-later"),  # as one expression all apply (opkg: parts)
        ("GPL-3.0-with-GCC-exception", "GPL-3.0-or-later WITH GCC-exception-3.1"),
        ("GPL-2+ or Artistic-2.0, and BSD-3-clause", "(GPL-2.0-or-later OR Artistic-2.0) AND BSD-3-Clause"),  # DEP-5
        ("GPL-2.0-only & (MIT | BSD-2-Clause)", "GPL-2.0-only AND (MIT OR BSD-2-Clause)"),  # Yocto
        ("GPL-2.0+, LGPL-2.1+", "GPL-2.0-or-later AND LGPL-2.1-or-later"),  # Buildroot
        ("LGPL-2.1 or later", "LGPL-2.1-or-later"),
        ("GPLv2 or any later version", "GPL-2.0-or-later"),
        ("GPL-2.0/BSD-3-Clause", "GPL-2.0-only OR BSD-3-Clause"),
        ("Apache License 2.0", "Apache-2.0"),
        ("gpl-2.0 with linux-syscall-note", "GPL-2.0-only WITH Linux-syscall-note"),
        ("LicenseRef-Proprietary", "LicenseRef-Proprietary"),
        ("Proprietary", "LicenseRef-Proprietary"),
        ("CLOSED", "LicenseRef-Proprietary"),
    ],
)
def test_spdx_normalisation(written: str, spdx: str) -> None:
    assert normalise(written).expression == spdx


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("Foo Bar", "unknown name 'Foo'"),
        ("BSD", "unknown name 'BSD'"),  # which BSD? unknown stays unknown
        ("MIT WITH GPL-2.0", "unknown exception 'GPL-2.0'"),
        ("(MIT", "not an SPDX expression"),
        ("MIT and", "not an SPDX expression"),
        ("NOASSERTION", "stated as 'NOASSERTION'"),
        ("", "empty"),
    ],
)
def test_spdx_unknown_stays_unknown(written: str, why: str) -> None:
    found = normalise(written)
    assert found.expression is None and why in (found.why or "")


@pytest.mark.parametrize(
    ("written", "spdx"),
    [
        ("GPL", "GPL-2.0-only"),
        ("GPL v2", "GPL-2.0-only"),
        ("GPL and additional rights", "GPL-2.0-only"),
        ("Dual BSD/GPL", "BSD-3-Clause OR GPL-2.0-only"),
        ("Dual MIT/GPL", "MIT OR GPL-2.0-only"),
        ("Dual MPL/GPL", "MPL-1.1 OR GPL-2.0-only"),
        ("Proprietary", "LicenseRef-Proprietary"),
        ("GPLv2", "GPL-2.0-only"),
    ],
)
def test_modinfo_strings_of_the_kernel(written: str, spdx: str) -> None:
    assert normalise_modinfo(written).expression == spdx


def test_the_data_files_are_valid() -> None:
    tables = names_data()
    for table in ("names", "modinfo"):
        for name, value in tables[table].items():
            assert normalise(value).expression, f"{table}: {name}: {value}"
    assert len(components()) > 40  # every licence in it parsed, or components() raises
    names = {c.name for c in components()}
    assert {
        "busybox",
        "glibc",
        "uclibc",
        "musl",
        "libgcc",
        "openssl-3",
        "openssl-1",
        "zlib",
        "libnl",
        "iptables",
        "dnsmasq",
        "dropbear",
        "hostapd",
        "libjson-c",
        "libubox",
        "mbedtls-1.3",
        "mbedtls-2",
        "mbedtls-3",
        "nss",
        "nspr",
        "libpcre",
        "curl",
    } <= names


# --------------------------------------------------------------------------- opkg

OPKG_STATUS = """\
Package: busybox
Version: 1.25.1-4
Depends: libc
Status: install user installed
Architecture: mips_24kc

Package: vendor-libs
Version: 2.1
Status: install user installed
Architecture: mips_24kc

Package: libc
Version: 1.1.16-1
Status: install hold installed
Architecture: mips_24kc

Package: removed
Version: 1
Status: deinstall user not-installed
"""


def opkg_root(root: Path) -> None:
    write(
        root,
        {
            "/usr/lib/opkg/status": OPKG_STATUS,
            "/usr/lib/opkg/info/busybox.control": "Package: busybox\nVersion: 1.25.1-4\nLicense: GPL-2.0\n"
            "Description: The Swiss Army Knife.\n \n More text.\n",
            "/usr/lib/opkg/info/busybox.list": "/bin/busybox\n/bin/sh\n",
            "/usr/lib/opkg/info/vendor-libs.list": "/lib/libapcfg.so\n/lib/libnvram.so\t100644\n",
            "/usr/lib/opkg/info/libc.control": "Package: libc\nSource: package/libs/toolchain\n"
            "License: GPL-3.0-with-GCC-exception\n",
            "/usr/lib/opkg/info/libc.list": "/lib/libc.so\n/lib/ld-musl-mips-sf.so.1\n",
            "/usr/lib/opkg/info/iw.control": "Package: iw\nVersion: 4.9-1\nLicense: Frobnitz Licence\n",
            "/usr/lib/opkg/info/iw.list": "/usr/sbin/iw\n",
            "/usr/lib/opkg/info/removed.list": "/usr/bin/gone\n",
        },
    )


def test_opkg_status_control_and_list(tmp_path: Path) -> None:
    opkg_root(tmp_path)
    mods = [
        module("/bin/busybox", Kind.EXECUTABLE, aliases=("/bin/sh",)),
        module("/lib/libapcfg.so", soname="libapcfg.so"),
        module("/lib/libnvram.so"),
        module("/lib/libc.so", aliases=("/lib/ld-musl-mips-sf.so.1",)),
        module("/usr/sbin/iw", Kind.EXECUTABLE),
        module("/usr/bin/gone", Kind.EXECUTABLE),
    ]
    found, problems = facts_of(tmp_path, mods)
    assert found["/bin/busybox"] == fact(
        "GPL-2.0-only", "opkg:/usr/lib/opkg/info/busybox.control (package busybox)", "declared", "busybox 1.25.1-4"
    )
    for lib in ("/lib/libapcfg.so", "/lib/libnvram.so"):
        assert found[lib] == fact(
            None,
            f"{NO_FACT}; opkg:/usr/lib/opkg/status (package vendor-libs): no License field",
            None,
            "vendor-libs 2.1",
        )
    # OpenWrt's toolchain packages declare the toolchain's licence: the knowledge base knows musl
    assert found["/lib/libc.so"] == fact("MIT", "knowledge-base:musl", "inferred", "libc 1.1.16-1")
    # a licence that is no SPDX expression: a warning, then the next source (the knowledge base: iw is ISC)
    assert found["/usr/sbin/iw"] == fact("ISC", "knowledge-base:iw", "inferred", "iw 4.9-1")
    assert [(p.path, p.severity.value) for p in problems] == [("/usr/lib/opkg/info/iw.control", "warning")]
    assert "Frobnitz" in problems[0].message
    assert found["/usr/bin/gone"] == fact(None, NO_FACT, None, None)  # its package is not installed


def test_opkg_broken_files_are_warnings(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "/usr/lib/opkg/status": b"Package: busybox\nthis is not a field\n\xffbad\nLicense: GPL-2.0\n",
            "/usr/lib/opkg/info/busybox.list": b"/bin/busybox\n\xff\xfe\n",
        },
    )
    found, problems = facts_of(tmp_path, [module("/bin/busybox", Kind.EXECUTABLE)])
    assert found["/bin/busybox"].licence == "GPL-2.0-only"
    messages = sorted(p.message for p in problems)
    assert all(p.severity.value == "warning" for p in problems)
    assert any("not valid UTF-8" in m for m in messages) and any("malformed line" in m for m in messages)


# --------------------------------------------------------------------------- dpkg

DPKG_STATUS = """\
Package: busybox
Status: install ok installed
Architecture: armhf
Version: 1:1.35.0-4
Description: Tiny utilities

Package: libfoo1
Status: install ok installed
Architecture: armhf
Multi-Arch: same
Source: foo
Version: 2.0-1

Package: vendor-blob
Status: install ok installed
Architecture: armhf
Version: 3
License: LicenseRef-Vendor-EULA
"""

FOO_COPYRIGHT = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: foo
License: MIT

Files: *
Copyright: 2020 Foo
License: LGPL-2.1+
 This library is free software; you can redistribute it ...

Files: usr/bin/foo-tool
 usr/lib/*/foo/plugins/*
Copyright: 2020 Foo
License: GPL-2+ or Artistic-2.0

Files: debian/*
License: GPL-2+

License: GPL-2+
 On Debian systems, the full text is in /usr/share/common-licenses/GPL-2.
"""

BUSYBOX_COPYRIGHT = """\
This package was debianized by someone.

License:

   This package is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation; version 2 dated June, 1991.

On Debian GNU/Linux systems, the complete text of the GNU General
Public License can be found in `/usr/share/common-licenses/GPL-2'.
"""


def dpkg_root(root: Path) -> None:
    write(
        root,
        {
            "/var/lib/dpkg/status": DPKG_STATUS,
            "/var/lib/dpkg/info/busybox.list": "/.\n/bin\n/bin/busybox\n/usr/share/doc/busybox/copyright\n",
            "/var/lib/dpkg/info/libfoo1:armhf.list": "/.\n/usr/lib/arm-linux-gnueabihf/libfoo.so.1.2\n"
            "/usr/lib/arm-linux-gnueabihf/libfoo.so.1\n/usr/bin/foo-tool\n"
            "/usr/lib/arm-linux-gnueabihf/foo/plugins/p.so\n",
            "/var/lib/dpkg/info/vendor-blob.list": "/usr/lib/libblob.so\n",
            "/usr/share/doc/busybox/copyright": BUSYBOX_COPYRIGHT,
            "/usr/share/doc/libfoo1/copyright": FOO_COPYRIGHT,
        },
    )
    (root / "usr/bin").mkdir(parents=True, exist_ok=True)
    (root / "bin").symlink_to("usr/bin")  # merged /usr: the list says /bin/busybox, the file is /usr/bin/busybox


def test_dpkg_status_lists_and_dep5_copyright(tmp_path: Path) -> None:
    dpkg_root(tmp_path)
    triplet = "/usr/lib/arm-linux-gnueabihf"
    mods = [
        module("/usr/bin/busybox", Kind.EXECUTABLE),
        module(f"{triplet}/libfoo.so.1.2", soname="libfoo.so.1", aliases=(f"{triplet}/libfoo.so.1",)),
        module("/usr/bin/foo-tool", Kind.EXECUTABLE),
        module(f"{triplet}/foo/plugins/p.so"),
        module("/usr/lib/libblob.so"),
    ]
    found, problems = facts_of(tmp_path, mods, flavour=Flavour.GLIBC)
    assert problems == []
    assert found["/usr/bin/busybox"] == fact(
        "GPL-2.0-only", "dpkg-copyright:/usr/share/doc/busybox/copyright (free text)", "inferred", "busybox 1:1.35.0-4"
    )
    copyright_ = "dpkg-copyright:/usr/share/doc/libfoo1/copyright"
    assert found[f"{triplet}/libfoo.so.1.2"] == fact(
        "LGPL-2.1-or-later", f"{copyright_} (Files: *)", "declared", "libfoo1 2.0-1"
    )
    for path, pattern in (
        ("/usr/bin/foo-tool", "usr/bin/foo-tool"),
        (f"{triplet}/foo/plugins/p.so", "usr/lib/*/foo/plugins/*"),
    ):
        assert found[path] == fact(
            "GPL-2.0-or-later OR Artistic-2.0", f"{copyright_} (Files: {pattern})", "declared", "libfoo1 2.0-1"
        )
    assert found["/usr/lib/libblob.so"] == fact(
        "LicenseRef-Vendor-EULA", "dpkg:/var/lib/dpkg/status (package vendor-blob)", "declared", "vendor-blob 3"
    )


def test_copyright_that_is_not_utf8_or_broken(tmp_path: Path) -> None:
    dpkg_root(tmp_path)
    (tmp_path / "usr/share/doc/libfoo1/copyright").write_bytes(
        FOO_COPYRIGHT.encode()
        .replace(b"2020 Foo\nLicense: LGPL", b"2020 F\xf6\xf6\nLicense: LGPL")
        .replace(b"Files: debian/*", b"Files debian/* with no colon")
    )
    lib = "/usr/lib/arm-linux-gnueabihf/libfoo.so.1.2"
    found, problems = facts_of(tmp_path, [module(lib)], flavour=Flavour.GLIBC)
    assert found[lib].licence == "LGPL-2.1-or-later"
    assert {p.path for p in problems} == {"/usr/share/doc/libfoo1/copyright"}
    messages = sorted(p.message for p in problems)
    assert messages[0].startswith("copyright file is not valid UTF-8") and "malformed line" in messages[1]


@pytest.mark.parametrize(
    ("text", "spdx"),
    [
        (BUSYBOX_COPYRIGHT, "GPL-2.0-only"),
        (
            "GNU C Library.\n\n    version 2.1 of the License, or (at your option) any later version.\n"
            "  Lesser General Public License can be found in `/usr/share/common-licenses/LGPL-2.1'.\n",
            "LGPL-2.1-or-later",
        ),
        (
            "Two licences.\n\nThe programs are in `/usr/share/common-licenses/GPL-2' and the library is in\n"
            "`/usr/share/common-licenses/LGPL-2.1'.\n",
            None,
        ),  # one paragraph naming two: ambiguous
        ("Unversioned: `/usr/share/common-licenses/GPL'.\n", None),
        ("x" * 4000 + "\n\n/usr/share/common-licenses/GPL-2\n", None),  # stated far down: one file's licence
    ],
)
def test_free_text_copyright_is_read_only_when_plain(text: str, spdx: str | None) -> None:
    assert free_text_licence(text) == spdx


# --------------------------------------------------------------------------- Buildroot, Yocto

BUILDROOT_MANIFEST = """\
"PACKAGE","VERSION","LICENSE","LICENSE FILES","SOURCE ARCHIVE","SOURCE SITE","DEPENDENCIES WITH LICENSES"
"busybox","1.36.1","GPL-2.0, bzip2-1.0.4 (libbb/bz)","LICENSE","busybox-1.36.1.tar.bz2","http://www.busybox.net",""
"zlib","1.3","Zlib","README","zlib-1.3.tar.xz","https://zlib.net",""
"vendorapp","2.0","Proprietary","","","",""
"""

YOCTO_MANIFEST = """\
PACKAGE NAME: busybox
PACKAGE VERSION: 1.35.0
RECIPE NAME: busybox
LICENSE: GPL-2.0-only & bzip2-1.0.4

PACKAGE NAME: libz1
PACKAGE VERSION: 1.2.13
RECIPE NAME: zlib
LICENSE: Zlib

PACKAGE NAME: kernel-module-xt-tcpudp-6.1.38-yocto-standard
PACKAGE VERSION: 6.1.38
RECIPE NAME: linux-yocto
LICENSE: GPL-2.0-only

PACKAGE NAME: libweird1
PACKAGE VERSION: 1
RECIPE NAME: weird
LICENSE: Weird-Licence
"""


def test_buildroot_manifest(tmp_path: Path) -> None:
    write(tmp_path, {"/usr/share/legal-info/manifest.csv": BUILDROOT_MANIFEST})
    mods = [
        module("/bin/busybox", Kind.EXECUTABLE),
        module("/usr/lib/libz.so.1.3", soname="libz.so.1"),
        module("/usr/bin/vendorapp", Kind.EXECUTABLE),
        module("/usr/bin/other", Kind.EXECUTABLE),
    ]
    found, problems = facts_of(tmp_path, mods)
    source = "buildroot:/usr/share/legal-info/manifest.csv"
    assert found["/bin/busybox"] == fact(
        "GPL-2.0-only AND bzip2-1.0.6", f"{source} (package busybox)", "declared", "busybox 1.36.1"
    )  # the note "(libbb/bz)" dropped
    assert found["/usr/lib/libz.so.1.3"] == fact("Zlib", f"{source} (package zlib)", "inferred", "zlib 1.3")
    assert found["/usr/bin/vendorapp"] == fact(
        "LicenseRef-Proprietary", f"{source} (package vendorapp)", "declared", "vendorapp 2.0"
    )
    assert found["/usr/bin/other"] == fact(None, NO_FACT, None, None)
    assert problems == []


def test_yocto_manifest(tmp_path: Path) -> None:
    write(tmp_path, {"/usr/share/common-licenses/license.manifest": YOCTO_MANIFEST})
    mods = [
        module("/bin/busybox.nosuid", Kind.EXECUTABLE, aliases=("/bin/busybox",)),
        module("/lib/libz.so.1.2.13", soname="libz.so.1"),
        module(
            "/lib/modules/6.1.38-yocto-standard/kernel/net/netfilter/xt_tcpudp.ko",
            Kind.KERNEL_MODULE,
            modinfo={"license": "GPL"},
        ),
        module("/usr/lib/libweird.so.1", soname="libweird.so.1"),
    ]
    found, problems = facts_of(tmp_path, mods, flavour=Flavour.GLIBC)
    source = "yocto:/usr/share/common-licenses/license.manifest"
    assert found["/bin/busybox.nosuid"] == fact(
        "GPL-2.0-only AND bzip2-1.0.6", f"{source} (package busybox)", "declared", "busybox 1.35.0"
    )
    assert found["/lib/libz.so.1.2.13"] == fact("Zlib", f"{source} (package libz1)", "inferred", "libz1 1.2.13")
    ko = "/lib/modules/6.1.38-yocto-standard/kernel/net/netfilter/xt_tcpudp.ko"
    assert found[ko] == fact(
        "GPL-2.0-only",
        f"{source} (package kernel-module-xt-tcpudp-6.1.38-yocto-standard)",
        "declared",
        "kernel-module-xt-tcpudp-6.1.38-yocto-standard 6.1.38",
    )
    assert found["/usr/lib/libweird.so.1"] == fact(
        None,
        f"{NO_FACT}; {source} (package libweird1): licence 'Weird-Licence' is not an SPDX expression "
        "(unknown name 'Weird-Licence')",
        None,
        "libweird1 1",
    )
    assert [p.path for p in problems] == ["/usr/share/common-licenses/license.manifest"]


# util-linux's list as a firmware held it: no parenthesis, 43 characters
LISTED = "Public-Domain LGPL-2.1+ GPL-2.0+ GPL-3.0+"


def test_a_blank_separated_list_with_a_licence_ref_is_no_parse_error(tmp_path: Path) -> None:
    """As an expression (a Yocto manifest) every part applies; as OpenWrt's list a part per file."""
    write(
        tmp_path,
        {
            "/usr/share/common-licenses/license.manifest": f"PACKAGE NAME: libblkid1\nPACKAGE VERSION: 2.39\n"
            f"RECIPE NAME: util-linux\nLICENSE: {LISTED}\n",
            "/usr/lib/opkg/info/libfdisk.control": f"Package: libfdisk\nVersion: 2.29\nLicense: {LISTED}\n",
            "/usr/lib/opkg/info/libfdisk.list": "/usr/lib/libfdisk.so.1\n",
        },
    )
    found, problems = facts_of(
        tmp_path, [module("/lib/libblkid.so.1.1.0", soname="libblkid.so.1")], flavour=Flavour.GLIBC
    )
    assert problems == []
    assert found["/lib/libblkid.so.1.1.0"].licence == (
        "LicenseRef-public-domain AND LGPL-2.1-or-later AND GPL-2.0-or-later AND GPL-3.0-or-later"
    )
    (tmp_path / "usr/share/common-licenses/license.manifest").unlink()
    found, problems = facts_of(tmp_path, [module("/usr/lib/libfdisk.so.1", soname="libfdisk.so.1")])
    assert problems == []
    assert found["/usr/lib/libfdisk.so.1"].licence == "LGPL-2.1-or-later"  # the list's one LGPL part


@pytest.mark.parametrize("written", ["Public-Domain (GPL-2.0+", "Public-Domain GPL-2.0+)", "GPLv2 and or MIT"])
def test_a_parse_error_speaks_of_the_text_itself(written: str) -> None:
    """license-expression counts its positions in the rewritten expression (names resolved), which
    the user never sees: the reason quotes the text and names no position in another one."""
    found = normalise(written)
    assert found.expression is None and found.why is not None
    assert found.why.startswith(f"licence '{written}' is not an SPDX expression") and "position" not in found.why


# --------------------------------------------------------------------------- modinfo, knowledge base, overrides


def test_modinfo_of_kernel_modules(tmp_path: Path) -> None:
    mods = [
        module("/lib/modules/6.1/extra/blob.ko", Kind.KERNEL_MODULE, modinfo={"license": "Proprietary"}),
        module("/lib/modules/6.1/kernel/ath.ko", Kind.KERNEL_MODULE, modinfo={"license": "Dual BSD/GPL"}),
        module("/lib/modules/6.1/extra/none.ko", Kind.KERNEL_MODULE, modinfo={"vermagic": "6.1"}),
        module("/lib/modules/6.1/extra/odd.ko", Kind.KERNEL_MODULE, modinfo={"license": "GPL\udcff"}),
    ]
    found, problems = facts_of(tmp_path, mods)
    assert found["/lib/modules/6.1/extra/blob.ko"] == fact("LicenseRef-Proprietary", "modinfo", "declared", None)
    assert found["/lib/modules/6.1/kernel/ath.ko"] == fact("BSD-3-Clause OR GPL-2.0-only", "modinfo", "declared", None)
    assert found["/lib/modules/6.1/extra/none.ko"] == fact(
        None, f"{NO_FACT}; modinfo: no license= in .modinfo", None, None
    )
    assert found["/lib/modules/6.1/extra/odd.ko"].licence is None
    assert [p.path for p in problems] == ["/lib/modules/6.1/extra/odd.ko"]
    assert "'GPL\\xff'" in problems[0].message  # not UTF-8: shown escaped


def test_knowledge_base_by_soname_version_string_and_c_library(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "/usr/lib/libcrypto.so": b"\x7fELF....OpenSSL 3.0.2 15 Mar 2022\0",
            "/opt/old/libcrypto.so": b"\x7fELF....OpenSSL 1.1.1w  11 Sep 2023\0",
            "/opt/what/libcrypto.so": b"\x7fELF.... no version here\0",
        },
    )
    mods = [
        module("/usr/lib/libssl.so.3", soname="libssl.so.3"),
        module("/usr/lib/libssl.so.1.1", soname="libssl.so.1.1"),
        module("/usr/lib/libcrypto.so", soname="libcrypto.so"),
        module("/opt/old/libcrypto.so", soname="libcrypto.so"),
        module("/opt/what/libcrypto.so", soname="libcrypto.so"),
        module("/lib/libpthread.so.0", soname="libpthread.so.0"),
        module("/bin/busybox", Kind.EXECUTABLE),
        module("/lib/libgcc_s.so.1", soname="libgcc_s.so.1"),
        module("/usr/lib/libz.so.1.2.11", soname="libz.so.1"),
    ]
    expected = {
        "/usr/lib/libssl.so.3": ("Apache-2.0", "openssl-3"),
        "/usr/lib/libssl.so.1.1": ("OpenSSL", "openssl-1"),
        "/usr/lib/libcrypto.so": ("Apache-2.0", "openssl-3"),
        "/opt/old/libcrypto.so": ("OpenSSL", "openssl-1"),
        "/bin/busybox": ("GPL-2.0-only", "busybox"),
        "/usr/lib/libz.so.1.2.11": ("Zlib", "zlib"),
        "/lib/libgcc_s.so.1": ("GPL-3.0-or-later WITH GCC-exception-3.1", "libgcc"),
    }
    for libc, pthread in ((Flavour.GLIBC, "glibc"), (Flavour.UCLIBC, "uclibc"), (Flavour.MUSL, None)):
        found, _ = facts_of(tmp_path, mods, flavour=libc)
        for path, (licence, name) in expected.items():
            assert found[path] == fact(licence, f"knowledge-base:{name}", "inferred", None), path
        assert found["/opt/what/libcrypto.so"].licence is None  # no version string: no guess
        assert found["/lib/libpthread.so.0"].source == (f"knowledge-base:{pthread}" if pthread else NO_FACT)


OVERRIDES_YAML = """\
# vendor code
/lib/libapcfg.so: LicenseRef-Proprietary
"libnvram.so*": LicenseRef-Proprietary
/opt/*: MIT
"""


@pytest.mark.parametrize("kind", ["yaml-mapping", "yaml-list", "csv"])
def test_overrides_win_over_everything(kind: str, tmp_path: Path) -> None:
    opkg_root(tmp_path / "root")
    files = {
        "yaml-mapping": ("overrides.yaml", OVERRIDES_YAML),
        "yaml-list": (
            "overrides.yml",
            "- match: /lib/libapcfg.so\n  licence: Proprietary\n  package: sdk 4.2\n"
            "- {match: 'libnvram.so*', license: LicenseRef-Proprietary}\n"
            "- {pattern: '/opt/*', licence: MIT}\n",
        ),
        "csv": (
            "overrides.csv",
            "pattern,licence,package\n/lib/libapcfg.so,LicenseRef-Proprietary,sdk 4.2\n"
            "# a comment\nlibnvram.so*,LicenseRef-Proprietary\n/opt/*,MIT\n",
        ),
    }
    name, text = files[kind]
    (tmp_path / name).write_text(text)
    mods = [
        module("/lib/libapcfg.so", soname="libapcfg.so"),
        module("/lib/libnvram.so", soname="libnvram.so.1"),
        module("/opt/bin/tool", Kind.EXECUTABLE),
        module("/bin/busybox", Kind.EXECUTABLE),
    ]
    found, _ = facts_of(tmp_path / "root", mods, overrides=tmp_path / name)
    over = f"override:{tmp_path / name}"
    apcfg_package = "vendor-libs 2.1" if kind == "yaml-mapping" else "sdk 4.2"
    assert found["/lib/libapcfg.so"] == fact(
        "LicenseRef-Proprietary", f"{over}:/lib/libapcfg.so", "declared", apcfg_package
    )
    assert found["/lib/libnvram.so"] == fact(
        "LicenseRef-Proprietary", f"{over}:libnvram.so*", "declared", "vendor-libs 2.1"
    )
    assert found["/opt/bin/tool"] == fact("MIT", f"{over}:/opt/*", "declared", None)
    assert found["/bin/busybox"].source.startswith("opkg:")  # no rule for it


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("o.yaml", "/lib/x.so: [unclosed", "not YAML"),
        ("o.yaml", "/lib/x.so: Nonsense Licence", "unknown name 'Nonsense'"),
        ("o.yaml", "- just a string\n", "rule 1: expected"),
        ("o.yaml", "42\n", "expected a mapping"),
        ("o.csv", "/lib/x.so,MIT\n,GPL-2.0\n", "line 2: the pattern must be a non-empty string"),
        ("o.csv", b"/lib/x.so,\xff\n", "not UTF-8"),
    ],
)
def test_bad_overrides_stop_before_the_scan(name: str, text: str | bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(OverridesError, match="--licences"):
        load_overrides(path)
    with pytest.raises(OverridesError) as caught:
        load_overrides(path)
    assert message in str(caught.value)
    proc = linkgraph(
        "scan", str(tmp_path), "--db", str(tmp_path / "db"), "--licences", str(path), "--quiet", check=False
    )
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_precedence(tmp_path: Path) -> None:
    """override > package metadata > modinfo > knowledge base, each only when it has a licence."""
    write(
        tmp_path,
        {
            "/usr/lib/opkg/status": "Package: kmod-x\nVersion: 1\nStatus: install ok installed\nLicense: GPL-2.0+\n\n"
            "Package: kmod-y\nVersion: 1\nStatus: install ok installed\n\n"
            "Package: bb\nVersion: 1\nStatus: install ok installed\nLicense: MIT\n",
            "/usr/lib/opkg/info/kmod-x.list": "/lib/modules/4.4/x.ko\n",
            "/usr/lib/opkg/info/kmod-y.list": "/lib/modules/4.4/y.ko\n",
            "/usr/lib/opkg/info/bb.list": "/bin/busybox\n",
            "/overrides.yaml": "y.ko: LicenseRef-Proprietary\n",
        },
    )
    mods = [
        module("/lib/modules/4.4/x.ko", Kind.KERNEL_MODULE, modinfo={"license": "GPL"}),
        module("/lib/modules/4.4/y.ko", Kind.KERNEL_MODULE, modinfo={"license": "GPL"}),
        module("/lib/modules/4.4/z.ko", Kind.KERNEL_MODULE, modinfo={"license": "Dual MIT/GPL"}),
        module("/bin/busybox", Kind.EXECUTABLE),
    ]
    found, _ = facts_of(tmp_path, mods)
    assert found["/lib/modules/4.4/x.ko"].source == "opkg:/usr/lib/opkg/status (package kmod-x)"
    assert found["/lib/modules/4.4/x.ko"].licence == "GPL-2.0-or-later"
    assert found["/lib/modules/4.4/z.ko"] == fact("MIT OR GPL-2.0-only", "modinfo", "declared", None)
    assert found["/bin/busybox"] == fact("MIT", "opkg:/usr/lib/opkg/status (package bb)", "declared", "bb 1")  # not KB
    found, _ = facts_of(tmp_path, mods, overrides=tmp_path / "overrides.yaml")
    assert found["/lib/modules/4.4/y.ko"] == fact(
        "LicenseRef-Proprietary", f"override:{tmp_path}/overrides.yaml:y.ko", "declared", "kmod-y 1"
    )


def test_metadata_outside_the_root_is_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(
        outside,
        {
            "/status": "Package: busybox\nStatus: install ok installed\nLicense: MIT\n",
            "/busybox.list": "/bin/busybox\n",
        },
    )
    root = tmp_path / "root"
    (root / "usr/lib/opkg/info").mkdir(parents=True)
    (root / "usr/lib/opkg/status").symlink_to(outside / "status")  # absolute: means ROOT/<outside>/status
    (root / "usr/lib/opkg/info/busybox.list").symlink_to("../../../../../../../../busybox.list")
    found, _problems = facts_of(root, [module("/bin/busybox", Kind.EXECUTABLE)])
    assert found["/bin/busybox"] == fact("GPL-2.0-only", "knowledge-base:busybox", "inferred", None)


# --------------------------------------------------------------------------- end to end: kernel modules


def build_kmod(root: Path, device: str, licence: str, name: str) -> None:
    out = root / device.lstrip("/")
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["gcc", "-c", "-O0", f'-DLICENSE="{licence}"', f'-DNAME="{name}"', str(FIXTURES / "kmod.c"), "-o", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def test_proprietary_and_gpl_kernel_modules(tmp_path: Path) -> None:
    root = tmp_path / "root"
    build_kmod(root, "/lib/modules/6.1.0-18-amd64/extra/vendor_wifi.ko", "Proprietary", "vendor_wifi")
    build_kmod(root, "/lib/modules/6.1.0-18-amd64/kernel/net/gpl_net.ko", "GPL", "gpl_net")
    build_kmod(root, "/lib/modules/6.1.0-18-amd64/kernel/drivers/dual.ko", "Dual BSD/GPL", "dual")
    report = scan_and_report(root, tmp_path / "db")
    _validate(report)
    mods = {m["path"]: m for m in report["modules"]}
    expected = {
        "/lib/modules/6.1.0-18-amd64/extra/vendor_wifi.ko": "LicenseRef-Proprietary",
        "/lib/modules/6.1.0-18-amd64/kernel/net/gpl_net.ko": "GPL-2.0-only",
        "/lib/modules/6.1.0-18-amd64/kernel/drivers/dual.ko": "BSD-3-Clause OR GPL-2.0-only",
    }
    assert set(mods) == set(expected)
    for path, licence in expected.items():
        assert mods[path]["kind"] == "kernel-module"
        assert (
            mods[path]["licence"],
            mods[path]["licence_source"],
            mods[path]["licence_certainty"],
            mods[path]["package"],
        ) == (licence, "modinfo", "declared", None)
    listing = json.loads(linkgraph("query", "licences", "--db", str(tmp_path / "db"), "--json").stdout)
    assert {r["path"]: r["licence"] for r in listing} == expected


def _validate(report: dict) -> None:
    import jsonschema

    jsonschema.validate(report, SCHEMA)


# --------------------------------------------------------------------------- end to end: the article root, OpenWrt

ARTICLE_STATUS = """\
Package: busybox
Version: 1.25.1-4
Status: install user installed
Architecture: x86_64

Package: vendor-libs
Version: 3.0.2
Status: install user installed
Architecture: x86_64
"""

VENDOR = ["/lib/libutility.so", "/lib/libnvram.so", "/lib/libapcfg.so", "/lib/libaplog.so"]


@pytest.fixture(scope="module")
def article_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from support.article import build_article_root

    root = build_article_root(tmp_path_factory.mktemp("licences") / "root").path
    write(
        root,
        {
            "/usr/lib/opkg/status": ARTICLE_STATUS,
            "/usr/lib/opkg/info/busybox.control": "Package: busybox\nVersion: 1.25.1-4\nLicense: GPL-2.0\n",
            "/usr/lib/opkg/info/busybox.list": "/bin/busybox\n/bin/sh\n/sbin/init\n",
            "/usr/lib/opkg/info/vendor-libs.control": "Package: vendor-libs\nVersion: 3.0.2\n",
            "/usr/lib/opkg/info/vendor-libs.list": "".join(v + "\n" for v in VENDOR),
        },
    )
    return root


def test_article_root_with_opkg_and_overrides(article_root: Path, tmp_path: Path) -> None:
    plain = scan_and_report(article_root, tmp_path / "plain.lbdb")
    _validate(plain)
    mods = {m["path"]: m for m in plain["modules"]}
    assert (
        mods["/bin/busybox"]["licence"],
        mods["/bin/busybox"]["licence_source"],
        mods["/bin/busybox"]["licence_certainty"],
        mods["/bin/busybox"]["package"],
    ) == ("GPL-2.0-only", "opkg:/usr/lib/opkg/info/busybox.control (package busybox)", "declared", "busybox 1.25.1-4")
    for lib in VENDOR:
        assert (mods[lib]["licence"], mods[lib]["licence_certainty"], mods[lib]["package"]) == (
            None,
            None,
            "vendor-libs 3.0.2",
        )
        assert mods[lib]["licence_source"] == (
            f"{NO_FACT}; opkg:/usr/lib/opkg/info/vendor-libs.control (package vendor-libs): no License field"
        )
    libc = mods["/lib/x86_64-linux-gnu/libc.so.6"]
    # its banner names it, with the version the running C library reports of itself
    version = os.confstr("CS_GNU_LIBC_VERSION").split()[1]  # type: ignore[union-attr]
    assert (libc["licence"], libc["licence_source"], libc["licence_certainty"]) == (
        "LGPL-2.1-or-later",
        f"identified:glibc {version}",
        "identified",
    )
    assert mods["/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"]["licence_source"] == "knowledge-base:glibc"
    assert mods["/lib/libgcc_s.so.1"]["licence_source"] == "knowledge-base:libgcc"  # the soname is all it knows
    assert mods["/lib/libcrypt.so.0"]["licence_source"] == NO_FACT  # uClibc's soname, but this is a glibc root
    assert "licence_overrides" not in plain["firmware"]["source"]

    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(
        "# the vendor's own code\n/lib/libutility.so: LicenseRef-Proprietary\n"
        "libnvram.so: LicenseRef-Proprietary\n/lib/libap*.so: LicenseRef-Proprietary\n"
    )
    linkgraph("scan", str(article_root), "--db", str(tmp_path / "over.lbdb"), "--licences", str(overrides), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(tmp_path / "over.lbdb")).stdout)
    _validate(report)
    mods = {m["path"]: m for m in report["modules"]}
    patterns = {
        "/lib/libutility.so": "/lib/libutility.so",
        "/lib/libnvram.so": "libnvram.so",
        "/lib/libapcfg.so": "/lib/libap*.so",
        "/lib/libaplog.so": "/lib/libap*.so",
    }
    for lib, pattern in patterns.items():
        assert (
            mods[lib]["licence"],
            mods[lib]["licence_source"],
            mods[lib]["licence_certainty"],
            mods[lib]["package"],
        ) == ("LicenseRef-Proprietary", f"override:{overrides}:{pattern}", "declared", "vendor-libs 3.0.2")
    assert mods["/bin/busybox"]["licence_source"].startswith("opkg:")
    recorded = report["firmware"]["source"]["licence_overrides"]
    assert recorded["file"] == str(overrides) and recorded["content"] == overrides.read_text()
    assert recorded["rules"] == 3 and len(recorded["sha256"]) == 64
    # licences change nothing else: the same graph
    for key in ("dependencies", "link_maps", "bindings", "unresolved", "duplicates"):
        assert report[key] == plain[key], key
    assert [m["path"] for m in report["modules"]] == [m["path"] for m in plain["modules"]]


# --------------------------------------------------------------------------- end to end: the LEDE image


@pytest.mark.slow
def test_lede_image_licences_from_opkg(tmp_path: Path) -> None:
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    linkgraph("scan", str(LEDE), "--db", str(tmp_path / "fw.lbdb"), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(tmp_path / "fw.lbdb")).stdout)
    _validate(report)
    mods = {m["path"]: m for m in report["modules"]}
    assert not [p for p in report["problems"] if "opkg" in p["path"]]
    # every ELF file of this image belongs to an opkg package
    assert all(m["package"] for m in mods.values()), [p for p, m in mods.items() if not m["package"]]
    seen = {(m["licence_source"].split(":")[0], m["licence_certainty"]) for m in mods.values()}
    assert seen == {
        ("opkg", "declared"),
        ("modinfo", "declared"),
        # musl, libgcc_s, fwtool and LuCI's programs (their packages state no licence), by their signatures
        ("identified", "identified"),
    }
    hand_checked = {  # path: (licence, source, package)
        "/bin/busybox": (
            "GPL-2.0-only",
            "opkg:/usr/lib/opkg/info/busybox.control (package busybox)",
            "busybox 1.25.1-4",
        ),
        # OpenWrt's libc package declares the toolchain's GPL-3.0-with-GCC-exception: ignored, musl is MIT
        "/lib/libc.so": ("MIT", "identified:musl", "libc 1.1.16-1"),
        "/lib/libgcc_s.so.1": ("GPL-3.0-or-later WITH GCC-exception-3.1", "identified:libgcc", "libgcc 5.4.0-1"),
        "/lib/libubox.so": (
            "ISC",
            "opkg:/usr/lib/opkg/info/libubox.control (package libubox)",
            "libubox 2017-02-24-96305a3c-1",
        ),
        "/lib/libubus.so": (
            "LGPL-2.1-only",
            "opkg:/usr/lib/opkg/info/libubus.control (package libubus)",
            "libubus 2017-02-18-34c6e818-1",
        ),
        "/usr/sbin/dropbear": (
            "MIT",
            "opkg:/usr/lib/opkg/info/dropbear.control (package dropbear)",
            "dropbear 2017.75-2",
        ),
        "/usr/sbin/dnsmasq": (
            "GPL-2.0-only",
            "opkg:/usr/lib/opkg/info/dnsmasq.control (package dnsmasq)",
            "dnsmasq 2.78-1",
        ),
        "/usr/lib/libnl-tiny.so": (
            "LGPL-2.1-only",
            "opkg:/usr/lib/opkg/info/libnl-tiny.control (package libnl-tiny)",
            "libnl-tiny 0.1-5",
        ),
        "/usr/sbin/wpad": (
            "BSD-3-Clause",
            "opkg:/usr/lib/opkg/info/wpad-mini.control (package wpad-mini)",
            "wpad-mini 2016-12-19-ad02e79d-6",
        ),
        # "License: GPL-2.0 GPL-2.0+" lists the licences of the package's parts; the program's own
        # messages identify U-Boot's fw_env.c, whose header says GPL-2.0+
        "/usr/sbin/fw_printenv": ("GPL-2.0-or-later", "identified:u-boot-envtools", "uboot-envtools 2015.10-1"),
        "/usr/lib/libxtables.so.10.0.0": (
            "GPL-2.0-only",  # "License: GPL-2.0"
            "opkg:/usr/lib/opkg/info/libxtables.control (package libxtables)",
            "libxtables 1.4.21-2",
        ),
        # kmod-ath has no License field: the module's own MODULE_LICENSE("Dual BSD/GPL")
        "/lib/modules/4.4.92/ath9k.ko": ("BSD-3-Clause OR GPL-2.0-only", "modinfo", "kmod-ath9k 4.4.92+2017-01-31-3"),
        "/lib/modules/4.4.92/mac80211.ko": ("GPL-2.0-only", "modinfo", "kmod-mac80211 4.4.92+2017-01-31-3"),
        # kmod-ipt-core says "GPLv2"
        "/lib/modules/4.4.92/x_tables.ko": (
            "GPL-2.0-only",
            "opkg:/usr/lib/opkg/info/kmod-nf-ipt.control (package kmod-nf-ipt)",
            "kmod-nf-ipt 4.4.92-1",
        ),
        # fwtool's package has no License field: its usage text identifies it
        "/usr/bin/fwtool": ("GPL-2.0-only", "identified:fwtool", "fwtool 1"),
    }
    for path, expected in hand_checked.items():
        m = mods[path]
        assert (m["licence"], m["licence_source"], m["package"]) == expected, path
    certainties = ("declared", "identified", "inferred", None)
    counts = {c: sum(1 for m in mods.values() if m["licence_certainty"] == c) for c in certainties}
    assert counts == {"declared": 114, "identified": 9, "inferred": 0, None: 0}


@pytest.mark.slow
def test_ffulm_image_uclibc_from_the_knowledge_base(tmp_path: Path) -> None:
    """OpenWrt with uClibc: the toolchain packages' licence is ignored, the knowledge base knows uClibc."""
    assert FFULM.is_file(), f"{FFULM} is missing: the shared firmware folder is part of the workplace"
    linkgraph("scan", str(FFULM), "--db", str(tmp_path / "fw.lbdb"), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(tmp_path / "fw.lbdb")).stdout)
    _validate(report)
    mods = {m["path"]: m for m in report["modules"]}
    assert all(m["package"] for m in mods.values())
    for name, package in (
        ("libuClibc", "libc"),
        ("ld-uClibc", "libc"),
        ("libpthread", "libpthread"),
        ("libm", "libc"),
        ("librt", "librt"),
    ):
        m = mods[f"/lib/{name}-0.9.33.2.so"]
        assert (m["licence"], m["licence_source"], m["licence_certainty"], m["package"]) == (
            "LGPL-2.1-or-later",
            "knowledge-base:uclibc",
            "inferred",
            f"{package} 0.9.33.2-1",
        ), name
    sources = {m["licence_source"].split(":")[0] for m in mods.values() if m["licence"]}
    assert sources == {"opkg", "modinfo", "knowledge-base", "identified"}  # identified: libgcc_s
    assert sum(1 for m in mods.values() if m["licence_source"].startswith("opkg:")) > 150


# --------------------------------------------------------------------------- end to end: a real Debian root


@pytest.mark.slow
def test_debian_armhf_root_from_dpkg_and_copyright_files(tmp_path: Path) -> None:
    from support import debian_roots

    root = debian_roots.cached_debian_root("armhf")
    assert (root / "var/lib/dpkg/status").is_file() and (root / "var/lib/dpkg/info/busybox.list").is_file()
    report = scan_and_report(root, tmp_path / "deb.lbdb")
    _validate(report)
    mods = {m["path"]: m for m in report["modules"]}
    assert all(m["package"] for m in mods.values()), [p for p, m in mods.items() if not m["package"]]
    triplet = "/usr/lib/arm-linux-gnueabihf"
    doc = "dpkg-copyright:/usr/share/doc"

    def upstream(path: str) -> str:  # the upstream version of the file's Debian package: 1:1.35.0-4 -> 1.35.0
        return mods[path]["package"].split(" ", 1)[1].split(":")[-1].rsplit("-", 1)[0]

    # busybox's and glibc's copyright files are free text, yet their banners identify them (with the version)
    busybox, libc = "/usr/bin/busybox", f"{triplet}/libc.so.6"
    expected = {  # path: (licence, source, certainty, package name)
        busybox: ("GPL-2.0-only", f"identified:busybox {upstream(busybox)}", "identified", "busybox"),
        libc: ("LGPL-2.1-or-later", f"identified:glibc {upstream(libc)}", "identified", "libc6"),
        # the loader is libc6's, though libc-bin ships the /usr/bin/ld.so link to it
        f"{triplet}/ld-linux-armhf.so.3": (
            "LGPL-2.1-or-later",
            f"{doc}/libc6/copyright (free text)",
            "inferred",
            "libc6",
        ),
        f"{triplet}/libssl.so.3": ("Apache-2.0", f"{doc}/libssl3/copyright (Files: *)", "declared", "libssl3"),
        "/usr/bin/openssl": ("Apache-2.0", f"{doc}/openssl/copyright (Files: *)", "declared", "openssl"),
        "/usr/bin/curl": ("curl", f"{doc}/curl/copyright (Files: *)", "declared", "curl"),
        "/usr/sbin/dropbear": ("MIT", f"{doc}/dropbear-bin/copyright (Files: *)", "declared", "dropbear-bin"),
        "/usr/sbin/xtables-legacy-multi": (
            "GPL-2.0-only",
            f"{doc}/iptables/copyright (Files: *)",
            "declared",
            "iptables",
        ),
        f"{triplet}/libxtables.so.12.7.0": (
            "GPL-2.0-only",
            f"{doc}/libxtables12/copyright (Files: *)",
            "declared",
            "libxtables12",
        ),
        # gcc's copyright file is free text naming many licences: the exported unwinder API decides
        f"{triplet}/libgcc_s.so.1": (
            "GPL-3.0-or-later WITH GCC-exception-3.1",
            "identified:libgcc",
            "identified",
            "libgcc-s1",
        ),
    }
    zlib = [p for p in mods if p.startswith(f"{triplet}/libz.so.1.")]
    expected[zlib[0]] = ("Zlib", f"{doc}/zlib1g/copyright (Files: *)", "declared", "zlib1g")
    for path, (licence, source, certainty, package) in expected.items():
        m = mods[path]
        assert (m["licence"], m["licence_source"], m["licence_certainty"]) == (licence, source, certainty), path
        assert m["package"].split(" ")[0] == package, path
        assert m["package"].split(" ", 1)[1], path  # a version
    assert not [p for p in report["problems"] if "/usr/share/doc/" in p["path"] or "dpkg" in p["path"]]
