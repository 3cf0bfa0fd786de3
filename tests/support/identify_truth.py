"""Leave-one-out measure of the licence facts a root gets without its package data.

The truth is what the firmware's own package data says: every userland module (kernel modules
left out) whose fact from a normal scan is ``declared`` by an opkg/dpkg package, a DEP-5
copyright file or a Buildroot/Yocto manifest. A copy of the root without that data
(:data:`PACKAGE_DATA`) is scanned again, and each truth module's class there is compared with
its truth class (``loader/licences/classes.py``):

* recall of class C (gpl, lgpl): truth modules of class C whose class without package data is
  accepted, over the truth modules of class C that are not disputed (below): where the package
  data is wrong it is no truth to recall;
* wrong: truth modules whose class without package data is known (not ``unknown``) and not
  accepted, whatever the class; except where the component's own sources contradict the package
  data (``DISPUTED``, each with where it is stated) and the scan found what they state: disputed.

Accepted is the truth class, and, when the truth is a conjunction (OpenWrt's blank-separated
``License: GPL-2.0 LGPL-2.1`` lists all the package's parts, normalised to ``AND``; a DEP-5
``Files: *`` paragraph can do the same), the class of any of its parts: which part a module is
cannot be read from the package data either.

Used by bench/identify.py and tests/test_identify_recall.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from linkgraph.loader.identify import names
from linkgraph.loader.licences.classes import LicenceClass, licence_class
from linkgraph.loader.licences.spdx import spdx_licensing
from linkgraph.loader.model import Kind, ScanResult
from linkgraph.loader.scan.root import scan_root

# where package data lives in a root (globs relative to it): opkg's database and configuration,
# dpkg's database and copyright files, Buildroot's and Yocto's licence manifests
PACKAGE_DATA = (
    "usr/lib/opkg",
    "var/lib/opkg",
    "usr/lib/ipkg",
    "etc/opkg*",
    "etc/ipkg*",
    "var/lib/dpkg",
    "usr/share/doc/*/copyright",
    "usr/share/legal-info",
    "legal-info",
    "usr/share/buildroot/manifest.csv",
    "usr/share/common-licenses/license.manifest",
)
# the licence sources (``licence_source`` up to its first colon) that are the firmware's package data
PACKAGE_SOURCES = ("opkg", "dpkg", "dpkg-copyright", "buildroot", "yocto")
MEASURED = (LicenceClass.GPL, LicenceClass.LGPL)
# Package data that the component's own sources contradict: package name -> (the licence they
# state, where). A module of such a package found under that licence's class is *disputed*, not
# wrong; it is still reported, and it never counts as a hit.
DISPUTED = {
    # OpenWrt's iw Makefile says GPL-2.0; iw's COPYING is the ISC licence (Buildroot: ISC)
    "iw": ("ISC", "iw COPYING"),
    # OpenWrt's util-linux packages say GPL-2.0 for all; libuuid's sources are BSD-3-Clause
    # (util-linux README.licensing, libuuid/COPYING; Debian's copyright: Files: libuuid/*)
    "libuuid": ("BSD-3-Clause", "util-linux README.licensing, libuuid/COPYING"),
    # OpenWrt's libtool Makefile says GPL-2.0+; libltdl is LGPL-2.1-or-later (libltdl/COPYING.LIB; Buildroot)
    "libltdl": ("LGPL-2.1-or-later", "libtool libltdl/COPYING.LIB"),
    # OpenWrt's rp-pppoe Makefile says LGPL-2.0+; rp-pppoe's README and sources say GPL-2.0 (Buildroot: GPL-2.0)
    "rp-pppoe-server": ("GPL-2.0-only", "rp-pppoe README"),
    "rp-pppoe-relay": ("GPL-2.0-only", "rp-pppoe README"),
    # OpenWrt's ppp Makefile says BSD-4-Clause for every part; the rp-pppoe plugin's plugin.c says
    # GPL version 2 or later
    # OpenWrt's uci Makefile says LGPL-2.1 for every part; the Lua binding's lua/uci.c says GPL version 2
    "libuci-lua": ("GPL-2.0-only", "uci lua/uci.c header"),
    "ppp-mod-pppoe": ("GPL-2.0-or-later", "ppp pppd/plugins/rp-pppoe/plugin.c header"),
    "ppp-mod-pppol2tp": ("GPL-2.0-or-later", "ppp pppd/plugins/pppol2tp/pppol2tp.c header"),
    "ppp-mod-pptp": ("GPL-2.0-or-later", "ppp pppd/plugins/pptp/pptp.c header"),
    "pppoe-discovery": ("GPL-2.0-or-later", "ppp pppd/plugins/rp-pppoe/pppoe-discovery.c header"),
    # OpenWrt's procd, fstools and ubox Makefiles say GPL-2.0; every source file's header says
    # "GNU Lesser General Public License version 2.1"
    "procd": ("LGPL-2.1-only", "procd file headers (procd.c, state.c, initd/init.c)"),
    "fstools": ("LGPL-2.1-only", "fstools file headers (mount_root.c, libfstools/*.c)"),
    "block-mount": ("LGPL-2.1-only", "fstools file headers (block.c)"),
    "ubox": ("LGPL-2.1-only", "ubox file headers (kmodloader.c, log/logd.c, log/logread.c)"),
    # OpenWrt's procps-ng Makefile says GPL-2.0 for every part; libprocps's proc/*.c and readproc.h
    # say "GNU Library General Public License"
    "procps-ng": ("LGPL-2.0-or-later", "procps-ng proc/readproc.h, proc/*.c headers"),
    "logd": ("LGPL-2.1-only", "ubox file headers (log/logd.c, log/logread.c)"),
}


def source_kind(source: str) -> str:
    """``opkg`` of ``opkg:/usr/lib/opkg/info/busybox.control (package busybox)``."""
    return source.split(":", 1)[0]


def part_classes(expression: str) -> tuple[set[LicenceClass], bool]:
    """The class of the whole expression and, for a conjunction, of each of its parts; whether
    it is a conjunction."""
    from license_expression import AND

    classes = {licence_class(expression)}
    parsed = spdx_licensing().parse(expression)
    if not isinstance(parsed, AND):
        return classes, False
    return classes | {licence_class(str(arg)) for arg in parsed.args}, True


def choice_classes(expression: str | None) -> list[str]:
    """The class of each alternative of a choice (``Apache-2.0 OR GPL-2.0-or-later``), else none."""
    from license_expression import OR

    if not expression:
        return []
    parsed = spdx_licensing().parse(expression)
    return sorted({licence_class(str(arg)).value for arg in parsed.args}) if isinstance(parsed, OR) else []


@dataclass(slots=True)
class Outcome:
    """One truth module: what the package data says and what the scan without it found."""

    path: str
    package: str | None
    truth: str  # the declared SPDX expression
    truth_class: str
    truth_source: str  # opkg, dpkg-copyright, ...
    accepted: list[str]  # classes that count as right
    parts: bool  # the truth is a conjunction (a list of the package's parts)
    found: str | None  # the licence without package data
    found_class: str
    found_choices: list[str]  # for a choice (OR), the class of each alternative
    found_certainty: str | None
    found_source: str

    @property
    def disputed(self) -> str | None:
        """Where the component's own sources contradict the package data, when the scan found that."""
        name = (self.package or "").split(" ")[0]
        if name in DISPUTED and not self.hit and licence_class(DISPUTED[name][0]).value == self.found_class:
            return f"{DISPUTED[name][0]} ({DISPUTED[name][1]})"
        return None

    @property
    def hit(self) -> bool:
        # a choice offering the truth's class agrees with it (mbed TLS 2.x: two editions, same bytes)
        return self.found_class in self.accepted or self.truth_class in self.found_choices

    @property
    def wrong(self) -> bool:
        return self.found_class != LicenceClass.UNKNOWN and not self.hit and self.disputed is None


@dataclass
class LeaveOneOut:
    """The comparison on one root."""

    name: str
    modules: int  # userland modules of the root
    removed: list[str]  # package data removed from the copy (relative paths)
    outcomes: list[Outcome] = field(default_factory=list)
    elapsed: dict[str, dict[str, float]] = field(default_factory=dict)  # "with"/"without" -> stage seconds
    left_out: dict[str, int] = field(default_factory=dict)  # "SOURCE (CERTAINTY)" -> userland modules not in the truth

    def truth(self, cls: LicenceClass) -> list[Outcome]:
        """The modules of that class by the package data; a disputed one is judged apart (``disputed``)."""
        return [o for o in self.outcomes if o.truth_class == cls and o.disputed is None]

    def recall(self, cls: LicenceClass) -> float | None:
        truth = self.truth(cls)
        return sum(o.hit for o in truth) / len(truth) if truth else None

    def wrong(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.wrong]

    def disputed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.disputed is not None]

    def missed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.truth_class in MEASURED and not o.hit and o.disputed is None]

    def sources(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for o in self.outcomes:
            counts[o.truth_source] = counts.get(o.truth_source, 0) + 1
        return dict(sorted(counts.items()))

    def record(self) -> dict:
        """Everything as JSON-ready data."""
        return {
            "name": self.name,
            "modules": self.modules,
            "truth_modules": len(self.outcomes),
            "truth_sources": self.sources(),
            "truth_by_class": {c.value: len(self.truth(c)) for c in LicenceClass},
            "multi_part": sum(o.parts for o in self.outcomes),
            "recall": {c.value: self.recall(c) for c in MEASURED},
            "wrong": len(self.wrong()),
            "disputed": len(self.disputed()),
            "left_out": self.left_out,
            "removed": self.removed,
            "elapsed": self.elapsed,
            "outcomes": [asdict(o) | {"hit": o.hit, "wrong": o.wrong, "disputed": o.disputed} for o in self.outcomes],
        }


def userland(result: ScanResult) -> list[str]:
    """The paths of the root's modules that are no kernel modules."""
    return [m.path for m in result.modules if m.facts.kind is not Kind.KERNEL_MODULE]


def scan(root: Path, name: str) -> ScanResult:
    """A scan of ``root`` up to its licence facts (the dlopen stage is not run)."""
    return scan_root(str(root), name=name, defer_dlopen=True)


def _inside(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) == real_root


def without_package_data(root: Path, dest: Path) -> list[str]:
    """Copy ``root`` to ``dest`` (which must not exist) without its package data; the relative
    paths removed. A path reached through a symlink that leaves the copy is not touched."""
    subprocess.run(["cp", "-a", "--reflink=auto", str(root), str(dest)], check=True)
    removed = []
    for pattern in PACKAGE_DATA:
        for path in sorted(dest.glob(pattern)):
            if not os.path.lexists(path):  # removed through another name (a doc folder linked to another)
                continue
            if not path.is_symlink() and not _inside(dest, path):
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(str(path.relative_to(dest)))
    return removed


@contextmanager
def name_table_without(harvested: frozenset[str]) -> Iterator[None]:
    """linkgraph's name table as if harvested without the sources of ``harvested`` (``debian``,
    ``openwrt``, ``openwrt-packages``, ``buildroot``): a root's own distribution is left out of the
    tables that judge it. A component only those sources name is dropped, with its names; the
    licence of one other sources name too stays as the harvest merged it."""
    original = names.load_yaml

    def without(package: str, file: str) -> Any:
        data = original(package, file)
        if file != "names.yaml":
            return data
        kept = {}
        for comp, entry in data["components"].items():
            sources = [s for s in entry.get("sources") or () if s.split(":", 1)[0] not in harvested]
            if sources:
                kept[comp] = {**entry, "sources": sources}
        table = {n: [c for c in owners if c in kept] for n, owners in data["names"].items()}
        return {**data, "components": kept, "names": {n: owners for n, owners in table.items() if owners}}

    names.load_yaml = without
    names.name_table.cache_clear()
    try:
        yield
    finally:
        names.load_yaml = original
        names.name_table.cache_clear()


def leave_one_out(name: str, root: Path, workdir: Path, harvested: frozenset[str] = frozenset()) -> LeaveOneOut:
    """Scan ``root``, then a copy of it in ``workdir`` without its package data, and compare; the
    copy is judged by tables harvested without the sources of ``harvested`` (the root's own
    distribution: ``name_table_without``)."""
    full = scan(root, name)
    copy = workdir / "without-package-data"
    removed = without_package_data(root, copy)
    try:
        with name_table_without(harvested):
            bare = scan(copy, f"{name} without package data")
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    paths = userland(full)
    result = LeaveOneOut(name, len(paths), removed, elapsed={"with": full.elapsed, "without": bare.elapsed})
    for path in paths:
        fact = full.licences.get(path)
        if fact is None or fact.licence is None or fact.certainty is None:
            result.left_out["no fact"] = result.left_out.get("no fact", 0) + 1
            continue
        if fact.certainty.value != "declared" or source_kind(fact.source) not in PACKAGE_SOURCES:
            key = f"{source_kind(fact.source)} ({fact.certainty.value})"
            result.left_out[key] = result.left_out.get(key, 0) + 1
            continue
        other = bare.licences.get(path)
        accepted, parts = part_classes(fact.licence)
        found = other.licence if other is not None else None
        result.outcomes.append(
            Outcome(
                path=path,
                package=fact.package,
                truth=fact.licence,
                truth_class=licence_class(fact.licence).value,
                truth_source=source_kind(fact.source),
                accepted=[c.value for c in LicenceClass if c in accepted],
                parts=parts,
                found=found,
                found_class=licence_class(found).value,
                found_choices=choice_classes(found),
                found_certainty=other.certainty.value if other is not None and other.certainty else None,
                found_source=other.source if other is not None else "not in the scan",
            )
        )
    return result
