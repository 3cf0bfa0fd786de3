"""Licence sources on real package data: DEP-5 paragraphs of the source folder, knowledge-base
names that other projects share, mbed TLS by version, and OpenWrt's lists of per-part licences.

The Debian files come from a small arm64 Debian 12 root built from the archive's packages
(``support.debian_roots``, cached outside the repository); the OpenWrt files from the Xiaomi
vendor root and the LEDE image of the shared firmware folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import scan_and_report
from linkgraph.loader.licences import normalise

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
    """The same root without its package data: the knowledge base speaks."""
    bare = tmp_path_factory.mktemp("bare") / "root"
    shutil.copytree(debian_root, bare, symlinks=True, ignore=shutil.ignore_patterns("dpkg", "doc"))
    assert not (bare / "var/lib/dpkg").exists() and not (bare / "usr/share/doc").exists()
    report = scan_and_report(bare, bare.parent / "bare.lbdb")
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
