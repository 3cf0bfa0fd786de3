"""Licence facts without package data, against the package data itself (leave-one-out).

On the LEDE image (opkg) and the Debian armhf root (dpkg status and DEP-5 copyright files) the
truth is each userland module's declared fact from the firmware's package data; a copy of the root
without that data is scanned again (tests/support/identify_truth.py) and must give the same class:
recall of the gpl and lgpl modules at least 0.95 (LEDE) and 0.90 (Debian), and no module put in
another known class. The copy is judged by a name table harvested without the root's own
distribution (OpenWrt's recipes for LEDE, Debian's packages for Debian: identify_truth's
``name_table_without``). bench/identify.py prints the same comparison on every root, with the modules
missed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from linkgraph.loader.unpack import unpack
from support.debian_roots import cached_debian_root
from support.identify_truth import (
    MEASURED,
    PACKAGE_SOURCES,
    LeaveOneOut,
    leave_one_out,
    scan,
    source_kind,
    userland,
    without_package_data,
)
from support.images import LEDE

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


def check(loo: LeaveOneOut, goal: float) -> None:
    # the measure is real: package data was removed, and the truth has modules of both classes
    assert loo.removed, "no package data found to remove"
    assert all(len(loo.truth(cls)) >= 3 for cls in MEASURED), loo.record()["truth_by_class"]
    missed = [f"{o.path} ({o.truth}, {o.package}): {o.found or 'unknown'}" for o in loo.missed()]
    wrong = [f"{o.path} ({o.truth}, {o.package}): {o.found} from {o.found_source}" for o in loo.wrong()]
    recall = {cls.value: loo.recall(cls) for cls in MEASURED}
    assert all(r is not None and r >= goal for r in recall.values()), (recall, missed)
    assert wrong == [], wrong


def test_lede_without_opkg_data(tmp_path: Path) -> None:
    assert LEDE.is_file(), f"{LEDE} is missing: the shared firmware folder is part of the workplace"
    root = unpack(LEDE, tmp_path / "unpacked").roots[0].path
    # judged by tables harvested without OpenWrt's own recipes
    loo = leave_one_out("lede", root, tmp_path, frozenset({"openwrt", "openwrt-packages"}))
    assert {"usr/lib/opkg", "etc/opkg.conf"} <= set(loo.removed)
    assert set(loo.sources()) == {"opkg"}
    check(loo, 0.95)


def test_debian_armhf_without_dpkg_data(tmp_path: Path) -> None:
    root = cached_debian_root("armhf")
    # judged by tables harvested without Debian's packages
    loo = leave_one_out("debian-armhf", root, tmp_path, frozenset({"debian"}))
    assert "var/lib/dpkg" in loo.removed and any(r.endswith("/copyright") for r in loo.removed)
    assert "dpkg-copyright" in loo.sources()
    check(loo, 0.90)


def test_the_copy_has_no_package_data(tmp_path: Path) -> None:
    """What the comparison relies on: a scan of the copy finds no fact from package data."""
    root = unpack(LEDE, tmp_path / "unpacked").roots[0].path
    removed = without_package_data(root, tmp_path / "copy")
    assert removed
    result = scan(tmp_path / "copy", "lede without package data")
    facts = [result.licences[p] for p in userland(result)]
    assert facts and not [f for f in facts if source_kind(f.source) in PACKAGE_SOURCES]
    # the original keeps its package data
    assert (root / "usr/lib/opkg").is_dir()
