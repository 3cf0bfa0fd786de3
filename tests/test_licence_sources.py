"""Licence sources on real package data: DEP-5 paragraphs of the source folder, knowledge-base
names that other projects share, mbed TLS by version, and OpenWrt's lists of per-part licences.

The Debian files come from a small arm64 Debian 12 root built from the archive's packages
(``support.debian_roots``, cached outside the repository); the OpenWrt files from the Xiaomi
vendor root and the LEDE image of the shared firmware folder.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import linkgraph, scan_and_report
from linkgraph.loader.licences import NO_FACT, licence_facts, normalise
from linkgraph.loader.licences.knowledge import recognise
from linkgraph.loader.licences.spdx import listed_parts
from linkgraph.loader.model import Certainty, Flavour, Kind, LicenceFact, Module
from linkgraph.loader.rootfs import RootFS
from support.images import LEDE, unpacked_root
from test_licences import module

# mbed TLS 2.x: two editions of the same code, which no file tells apart
EDITIONS = "Apache-2.0 OR GPL-2.0-or-later"
# util-linux's libraries, NSS and NSPR, nss-mdns, systemd's NSS module, mbed TLS 2.28
LICENCE_PACKAGES = [
    "libc-bin",
    "libuuid1",
    "libmount1",
    "libblkid1",
    "libsmartcols1",
    "libfdisk1",
    "libnss3",
    "libnss-mdns",
    "libnss-systemd",
    "libmbedcrypto7",
    "libmbedtls14",
    "libmbedx509-1",
]
LIB = "/usr/lib/aarch64-linux-gnu"
MBED_FILES = ("libmbed*", "libpolarssl.so*")


@pytest.fixture(scope="module")
def debian_root() -> Path:
    from support import debian_roots

    return debian_roots.cached_debian_root("arm64", LICENCE_PACKAGES)


@pytest.fixture(scope="module")
def debian_report(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    report = scan_and_report(debian_root, tmp_path_factory.mktemp("deb") / "deb.lbdb")
    return {m["path"]: m for m in report["modules"]}


@pytest.fixture(scope="module")
def knowledge_report(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The same root without its package data: the knowledge base speaks (the identification,
    which comes before it, is left out: tests/test_identify_*.py)."""
    bare = tmp_path_factory.mktemp("bare") / "root"
    shutil.copytree(debian_root, bare, symlinks=True, ignore=shutil.ignore_patterns("dpkg", "doc"))
    assert not (bare / "var/lib/dpkg").exists() and not (bare / "usr/share/doc").exists()
    report = scan_and_report(bare, bare.parent / "bare.lbdb", "--no-identify")
    return {m["path"]: m for m in report["modules"]}


def paragraph_licence(copyright_file: Path, glob: str) -> str | None:
    """The normalised License of the paragraph whose Files field names ``glob`` (read plainly)."""
    for para in copyright_file.read_text().split("\n\n"):
        files = re.search(r"^Files:(.*(?:\n[ \t].*)*)", para, re.M)
        if files and glob in files.group(1).split():
            licence = re.search(r"^License:\s*(\S.*)$", para, re.M)
            return normalise(licence.group(1)).expression if licence else None
    return None


def one(mods: dict[str, dict], prefix: str) -> dict:
    found = [m for p, m in mods.items() if p.startswith(prefix)]
    assert len(found) == 1, (prefix, [m["path"] for m in found])
    return found[0]


# --------------------------------------------------------------------------- DEP-5 paragraphs


@pytest.mark.slow
def test_dep5_paragraph_of_the_library_source_folder(debian_root: Path, debian_report: dict[str, dict]) -> None:
    """util-linux's copyright: Files: * GPL-2+, but libuuid/* BSD-3-clause, libblkid/* ... LGPL-2.1+."""
    doc = debian_root / "usr/share/doc"
    decided_by_folder = {}
    for stem, package in (
        ("libuuid", "libuuid1"),
        ("libblkid", "libblkid1"),
        ("libmount", "libmount1"),
        ("libsmartcols", "libsmartcols1"),
        ("libfdisk", "libfdisk1"),
    ):
        m = one(debian_report, f"{LIB}/{stem}.so.1.")
        copyright_file = doc / package / "copyright"
        expected = paragraph_licence(copyright_file, f"{stem}/*")
        assert expected is not None and expected != paragraph_licence(copyright_file, "*"), stem
        source = f"dpkg-copyright:/usr/share/doc/{package}/copyright (Files: {stem}/*)"
        assert (m["licence"], m["licence_source"], m["licence_certainty"]) == (expected, source, "declared"), stem
        decided_by_folder[m["path"]] = expected
    assert decided_by_folder[one(debian_report, f"{LIB}/libuuid.so.1.")["path"]] == "BSD-3-Clause"
    assert one(debian_report, f"{LIB}/libmount.so.1.")["licence"] == "LGPL-2.1-or-later"  # not libmount/python/*
    # util-linux's programs stay with Files: * (GPL-2+), the folder paragraphs are the libraries'
    mount = debian_report["/usr/bin/mount"]
    assert (mount["licence"], mount["licence_source"]) == (
        "GPL-2.0-or-later",
        "dpkg-copyright:/usr/share/doc/mount/copyright (Files: *)",
    )
    # every other module decided by a DEP-5 file: Files: *, except AppArmor's library (libraries/libapparmor/*)
    others = {
        p: m["licence_source"]
        for p, m in debian_report.items()
        if m["licence_source"].startswith("dpkg-copyright:")
        and "(Files: *)" not in m["licence_source"]
        and "(free text)" not in m["licence_source"]
        and p not in decided_by_folder
    }
    apparmor = one(debian_report, f"{LIB}/libapparmor.so.1.")
    assert others == {
        apparmor["path"]: "dpkg-copyright:/usr/share/doc/libapparmor1/copyright (Files: libraries/libapparmor/*)"
    }
    assert apparmor["licence"] == paragraph_licence(doc / "libapparmor1/copyright", "libraries/libapparmor/*")
    assert apparmor["licence"] != paragraph_licence(doc / "libapparmor1/copyright", "*")


# --------------------------------------------------------------------------- knowledge base names


# where the knowledge base knows better than the Debian copyright file's summary (components.yaml says why)
KNOWN_DIFFERENCES = {
    "libnss_mdns": ("LGPL-2.1-or-later", "LGPL-2.0-or-later"),  # upstream's newer files say 2.1 or later
    "libsqlite3": ("blessing", "LicenseRef-public-domain"),  # SPDX's name for SQLite's blessing
    "libmbed": (EDITIONS, "Apache-2.0"),
    # PCRE2's licence names its binary-distribution exception; Debian's License field does not
    "libpcre2": (
        "BSD-3-Clause WITH PCRE2-exception",
        "BSD-3-Clause",
    ),  # two editions of the same code; Debian ships the Apache one
}


@pytest.mark.slow
def test_knowledge_base_names_other_projects_share(
    debian_report: dict[str, dict], knowledge_report: dict[str, dict]
) -> None:
    """Without package data, the knowledge base says what Debian's copyright files say."""
    components = {}
    for path, m in knowledge_report.items():
        if not m["licence_source"].startswith("knowledge-base:"):
            continue
        components[path] = m["licence_source"].split(":", 1)[1].split(" ", 1)[0]
        debian = debian_report[path]["licence"]
        differs = [v for k, v in KNOWN_DIFFERENCES.items() if path.rsplit("/", 1)[1].startswith(k)]
        assert (m["licence"], debian) == (differs[0] if differs else (debian, debian)), path
    expected = {
        f"{LIB}/libssl3.so": "nss",  # Mozilla NSS, not OpenSSL 3
        f"{LIB}/libnss3.so": "nss",
        f"{LIB}/libsmime3.so": "nss",
        f"{LIB}/libnspr4.so": "nspr",
        f"{LIB}/libplds4.so": "nspr",
        f"{LIB}/libssl.so.3": "openssl-3",
        f"{LIB}/libnss_files.so.2": "glibc",
        f"{LIB}/libnss_dns.so.2": "glibc",
        f"{LIB}/libnss_mdns4_minimal.so.2": "nss-mdns",
        f"{LIB}/libnss_mdns.so.2": "nss-mdns",
        f"{LIB}/libnss_systemd.so.2": "systemd-nss",
    }
    assert {p: components.get(p) for p in expected} == expected
    assert knowledge_report[f"{LIB}/libssl3.so"]["licence"] == "MPL-2.0"


def named(name: str) -> Module:
    return module(f"/usr/lib/{name}", Kind.LIBRARY, soname=name)


@pytest.mark.parametrize(
    ("soname", "component", "licence"),
    [
        ("libnss_files.so.2", "glibc", "LGPL-2.1-or-later"),
        ("libnss_compat.so.2", "glibc", "LGPL-2.1-or-later"),
        ("libnss_nis.so.2", "glibc", "LGPL-2.1-or-later"),
        ("libnss_myhostname.so.2", "systemd-nss", "LGPL-2.1-or-later"),
        ("libnss_resolve.so.2", "systemd-nss", "LGPL-2.1-or-later"),
        ("libnss_mymachines.so.2", "systemd-nss", "LGPL-2.1-or-later"),
        ("libnss_winbind.so.2", "samba-nss-winbind", "LGPL-3.0-or-later"),
        ("libnss_wins.so.2", "samba-nss-wins", "GPL-3.0-or-later"),
        ("libnss_mdns6_minimal.so.2", "nss-mdns", "LGPL-2.1-or-later"),
        ("libsoftokn3.so", "nss", "MPL-2.0"),
        ("libplc4.so", "nspr", "MPL-2.0"),
        ("libssl3.so", "nss", "MPL-2.0"),
        ("libnss_ldap.so.2", None, None),  # nss_ldap or nss-pam-ldapd: not glibc's
        ("libnss_sss.so.2", None, None),  # SSSD: not glibc's
    ],
)
def test_nss_module_names(soname: str, component: str | None, licence: str | None) -> None:
    found = recognise(named(soname), Flavour.GLIBC, lambda: None)
    assert ((found.name, found.licence) if found else (None, None)) == (component, licence)


# --------------------------------------------------------------------------- mbed TLS by version


def mbed_root(src: Path, dest: Path) -> Path:
    """The mbed TLS / PolarSSL files of ``src``'s /usr/lib (links kept), without package data."""
    lib = dest / "usr/lib"
    lib.mkdir(parents=True)
    for pattern in MBED_FILES:
        for f in (src / "usr/lib").glob(pattern):
            shutil.copy2(f, lib / f.name, follow_symlinks=False)
    return dest


def facts(report: dict) -> dict[str, tuple]:
    return {m["path"]: (m["licence"], m["licence_source"], m["licence_certainty"]) for m in report["modules"]}


@pytest.mark.slow
def test_mbedtls_licence_by_version_and_package_data_first(tmp_path: Path) -> None:
    from support.vendor_roots import extracted_root

    xiaomi, _sha = extracted_root("alt_xiaomi_r4a")  # PolarSSL 1.3.16 and mbed TLS 2.16.3, musl
    edition = (
        "knowledge-base:mbedtls-2 (mbed TLS 2.x: released as an Apache-2.0 and a GPL-2.0-or-later edition"
        " of the same code, which the file does not tell apart)"
    )
    got = facts(scan_and_report(mbed_root(xiaomi, tmp_path / "a"), tmp_path / "a.lbdb", "--no-identify"))
    assert got == {
        "/usr/lib/libmbedtls.so.1.3.16": ("GPL-2.0-or-later", "knowledge-base:mbedtls-1.3", "inferred"),
        "/usr/lib/libmbedtls.so.2.16.3": (EDITIONS, edition, "inferred"),
        "/usr/lib/libmbedcrypto.so.2.16.3": (EDITIONS, edition, "inferred"),
        "/usr/lib/libmbedx509.so.2.16.3": (EDITIONS, edition, "inferred"),
    }
    # no version in the name: libmbedcrypto's bytes say "mbed TLS 2.16.3", libmbedtls.so.9 is 1.3's
    # soname, libmbedtls 2.x holds no version string: no fact rather than a guess
    assert b"mbed TLS 2.16.3" in (xiaomi / "usr/lib/libmbedcrypto.so.2.16.3").read_bytes()
    assert b"mbed TLS 2" not in (xiaomi / "usr/lib/libmbedtls.so.2.16.3").read_bytes()
    renamed = tmp_path / "b/usr/lib"
    renamed.mkdir(parents=True)
    for old, new in (
        ("libmbedcrypto.so.2.16.3", "libmbedcrypto.so.3"),
        ("libmbedtls.so.1.3.16", "libmbedtls.so.9"),
        ("libmbedtls.so.2.16.3", "libmbedtls.so.12"),
    ):
        shutil.copy2(xiaomi / "usr/lib" / old, renamed / new)
    got = facts(scan_and_report(tmp_path / "b", tmp_path / "b.lbdb", "--no-identify"))
    assert got["/usr/lib/libmbedcrypto.so.3"] == (EDITIONS, edition, "inferred")
    assert got["/usr/lib/libmbedtls.so.9"] == ("GPL-2.0-or-later", "knowledge-base:mbedtls-1.3", "inferred")
    assert got["/usr/lib/libmbedtls.so.12"] == (None, NO_FACT, None)
    # the firmware's own package data wins: OpenWrt packaged both as GPL-2.0+
    opkg = tmp_path / "c/usr/lib/opkg"
    mbed_root(xiaomi, tmp_path / "c")
    shutil.copytree(xiaomi / "usr/lib/opkg", opkg, symlinks=True)
    got = facts(scan_and_report(tmp_path / "c", tmp_path / "c.lbdb"))
    for path, package in (
        ("/usr/lib/libmbedtls.so.1.3.16", "libpolarssl"),
        ("/usr/lib/libmbedtls.so.2.16.3", "libmbedtls"),
        ("/usr/lib/libmbedcrypto.so.2.16.3", "libmbedtls"),
    ):
        source = f"opkg:/usr/lib/opkg/info/{package}.control (package {package})"
        assert got[path] == ("GPL-2.0-or-later", source, "declared"), path
    # the identification, before the knowledge base, reads the same versions and says the same
    got = facts(scan_and_report(mbed_root(xiaomi, tmp_path / "d"), tmp_path / "d.lbdb"))
    assert got == {
        "/usr/lib/libmbedtls.so.1.3.16": ("GPL-2.0-or-later", "identified:mbedtls 1.3.16", "identified"),
        "/usr/lib/libmbedtls.so.2.16.3": (EDITIONS, "identified:mbedtls 2.16.3", "identified"),
        "/usr/lib/libmbedcrypto.so.2.16.3": (EDITIONS, "identified:mbedtls 2.16.3", "identified"),
        "/usr/lib/libmbedx509.so.2.16.3": (EDITIONS, "identified:mbedtls 2.16.3", "identified"),
    }


@pytest.mark.slow
def test_mbedtls_of_debian(knowledge_report: dict[str, dict], debian_report: dict[str, dict]) -> None:
    """Debian's mbed TLS 2.28.3: the Apache-2.0 edition, as its copyright file says; one of the two
    editions the knowledge base offers."""
    for stem in ("libmbedcrypto", "libmbedtls", "libmbedx509"):
        path = f"{LIB}/{stem}.so.2.28.3"
        assert knowledge_report[path]["licence_source"].startswith("knowledge-base:mbedtls-2 ("), path
        assert knowledge_report[path]["licence"] == EDITIONS, path
        assert debian_report[path]["licence"] == "Apache-2.0", path


# --------------------------------------------------------------------------- OpenWrt's listed parts


@pytest.mark.parametrize(
    ("written", "parts"),
    [
        ("LGPL-2.1 GPL-2.0", ["LGPL-2.1-only", "GPL-2.0-only"]),  # libattr of the Xiaomi root
        ("GPL-2.0 GPL-2.0+", ["GPL-2.0-only", "GPL-2.0-or-later"]),  # uboot-envtools of LEDE 17.01
        ("GPLv2 LGPLv2.1", ["GPL-2.0-only", "LGPL-2.1-only"]),
        ("GPL-2.0", None),
        ("GPL v2", None),  # one name in two words
        ("GPL-2.0 or later", None),
        ("GPL-2.0 AND MIT", None),  # an expression
        ("GPL-2.0 GPL-2.0", None),  # one licence twice
        ("GPL-2.0 FooLicence", None),  # an unknown name: normalisation says so
    ],
)
def test_listed_parts(written: str, parts: list[str] | None) -> None:
    assert listed_parts(written) == parts


def test_listed_parts_by_kind_of_file(tmp_path: Path) -> None:
    """A library takes the one LGPL part of "GPL-2.0 LGPL-2.1", a program the one GPL part; a kernel
    module cannot be told (its .modinfo decides)."""
    info = tmp_path / "usr/lib/opkg/info"
    info.mkdir(parents=True)
    (tmp_path / "usr/lib/opkg/status").write_text("Package: tool\nVersion: 1\nStatus: install user installed\n\n")
    (info / "tool.control").write_text("Package: tool\nVersion: 1\nLicense: GPL-2.0 LGPL-2.1\n")
    (info / "tool.list").write_text("/usr/bin/tool\n/usr/lib/libtool.so.1\n/lib/modules/tool.ko\n")
    mods = [
        module("/usr/bin/tool", Kind.EXECUTABLE),
        module("/usr/lib/libtool.so.1", Kind.LIBRARY),
        module("/lib/modules/tool.ko", Kind.KERNEL_MODULE, modinfo={"license": "Dual MIT/GPL"}),
    ]
    for m in mods:
        (tmp_path / m.path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / m.path.lstrip("/")).write_bytes(b"\x7fELF")
    got = licence_facts(RootFS(str(tmp_path)), mods, [], None, Flavour.MUSL)
    listed = "opkg:/usr/lib/opkg/info/tool.control (package tool; License lists parts: GPL-2.0-only, LGPL-2.1-only)"
    assert got["/usr/bin/tool"] == LicenceFact("GPL-2.0-only", listed, Certainty.INFERRED, "tool 1")
    assert got["/usr/lib/libtool.so.1"] == LicenceFact("LGPL-2.1-only", listed, Certainty.INFERRED, "tool 1")
    assert got["/lib/modules/tool.ko"] == LicenceFact("MIT OR GPL-2.0-only", "modinfo", Certainty.DECLARED, "tool 1")


@pytest.mark.slow
def test_listed_parts_of_openwrt_packages(tmp_path: Path) -> None:
    """libattr (Xiaomi, "LGPL-2.1 GPL-2.0"): its library takes the LGPL part; uboot-envtools (LEDE,
    "GPL-2.0 GPL-2.0+"): which of two GPL parts its programs are under cannot be told."""
    from support.vendor_roots import extracted_root

    xiaomi, _sha = extracted_root("alt_xiaomi_r4a")
    root = tmp_path / "x"
    (root / "usr/lib").mkdir(parents=True)
    for name in ("libattr.so.1.1.2448", "libattr.so.1", "libattr.so"):
        shutil.copy2(xiaomi / "usr/lib" / name, root / "usr/lib" / name, follow_symlinks=False)
    info = root / "usr/lib/opkg/info"
    info.mkdir(parents=True)
    for name in ("libattr.control", "libattr.list"):
        shutil.copy2(xiaomi / "usr/lib/opkg/info" / name, info / name)
    assert "License: LGPL-2.1 GPL-2.0\n" in (info / "libattr.control").read_text()
    got = facts(scan_and_report(root, tmp_path / "x.lbdb"))
    assert got["/usr/lib/libattr.so.1.1.2448"] == (
        "LGPL-2.1-only",
        "opkg:/usr/lib/opkg/info/libattr.control (package libattr; License lists parts: LGPL-2.1-only, GPL-2.0-only)",
        "inferred",
    )
    work = tmp_path / "lede"
    # the opkg rule alone: the identification knows fw_printenv by its messages (tests/test_licences.py)
    linkgraph(
        "scan", str(LEDE), "--db", str(tmp_path / "lede.lbdb"), "--workdir", str(work), "--quiet", "--no-identify"
    )
    report = json.loads(linkgraph("report", "--db", str(tmp_path / "lede.lbdb")).stdout)
    control = (unpacked_root(work) / "usr/lib/opkg/info/uboot-envtools.control").read_text()
    assert "License: GPL-2.0 GPL-2.0+\n" in control
    programs = {p: f for p, f in facts(report).items() if p.startswith("/usr/sbin/fw_")}
    assert programs, "uboot-envtools installs fw_printenv"
    listed = (
        "opkg:/usr/lib/opkg/info/uboot-envtools.control"
        " (package uboot-envtools; License lists parts: GPL-2.0-only, GPL-2.0-or-later)"
    )
    for path, fact in programs.items():
        assert fact == (None, f"{NO_FACT}; {listed}: which part applies to this executable cannot be told", None), path
