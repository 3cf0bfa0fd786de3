"""The firmware of the corpus benchmark (bench/corpus.py): distinct in content, not just renamed.

* the shared images (the two OpenWrt-family router images) and the four vendor root filesystems of
  ``../shared/firmware`` (read there, extracted into the test cache, never copied into the repo);
* Debian 12 roots of four architectures (armhf, arm64, mipsel, i386) at several package sets
  (tests/support/debian_roots.py: built from the package files already in the test cache);
* roots of this machine's /usr/bin programs with their libraries, at different subsets (slices of
  the program list of different sizes and places; tests/support/hostroot.py).

Each member is scanned once and its graph rows kept in the test cache (``bench/corpus/``), so a
second run only loads; ``--rescan`` scans again. A member's graphs are keyed by content, so two
members that came out the same would be one firmware: the benchmark counts distinct ids.
"""

from __future__ import annotations

import gzip
import hashlib
import pickle
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from linkgraph.cypher.schema import TABLES
from linkgraph.loader.scan.firmware import scan_target
from linkgraph.loader.scan.root import paused_gc
from linkgraph.loader.store.graph_rows import GraphRows
from linkgraph.loader.store.rows import build_rows
from support import debian_roots, hostroot, images

CACHE_VERSION = "2"  # bumped when what a member is, or the form of its rows, changes
VENDOR = ("alt_xiaomi_r4a", "dlink_dir880l", "hilink_hlk-rm04", "jiofi2_m2")
ARCHES = ("armhf", "arm64", "mipsel", "i386")
BASE = ["libc6", "libc-bin"]
PACKAGE_SETS: dict[str, list[str]] = {
    "busybox": [*BASE, "busybox"],
    "curl": [*BASE, "curl"],
    "openssl": [*BASE, "openssl"],
    "dropbear": [*BASE, "dropbear-bin"],
    "iptables": [*BASE, "iptables"],
    "full": debian_roots.PACKAGES,
}
HOST_SIZES = (10, 20, 40, 80, 160)


@dataclass(frozen=True)
class Member:
    """One thing the corpus scans: ``target`` makes the image file or root folder to scan (in a
    scratch folder that is removed afterwards)."""

    name: str
    kind: str
    target: Callable[[Path], Path]


def image_members() -> list[Member]:
    return [
        Member(f"image-{path.name.split('-squashfs')[0]}", "image", lambda _work, p=path: p)
        for path in sorted(images.FIRMWARE.glob("*.bin"))
    ]


def vendor_members() -> list[Member]:
    from support import vendor_roots

    return [
        Member(f"vendor-{name}", "vendor", lambda _work, n=name: vendor_roots.extracted_root(n)[0]) for name in VENDOR
    ]


def debian_members() -> list[Member]:
    return [
        Member(
            f"debian-{arch}-{label}",
            "debian",
            lambda _work, a=arch, p=packages: debian_roots.cached_debian_root(a, p),
        )
        for arch in ARCHES
        for label, packages in PACKAGE_SETS.items()
    ]


def host_members(count: int) -> list[Member]:
    """``count`` roots of host programs: slices of the sorted program list, their sizes cycling
    through ``HOST_SIZES``, their starts spread over the list."""
    programs = hostroot.host_executables()
    out = []
    for i in range(count):
        size = min(HOST_SIZES[i % len(HOST_SIZES)], len(programs))
        start = (i * 97) % max(1, len(programs) - size)
        chosen = programs[start : start + size]

        def build(work: Path, chosen: list[str] = chosen) -> Path:
            return hostroot.build_host_root(work / "root", executables=chosen)

        out.append(Member(f"host-{size}-at-{start}", "host", build))
    return out


def members(total: int) -> list[Member]:
    """At least ``total`` members (images and vendor roots, Debian roots, host roots to fill up),
    in a fixed shuffled order so that every stage of the growing corpus mixes the kinds."""
    fixed = image_members() + vendor_members() + debian_members()
    chosen = fixed + host_members(max(0, total - len(fixed)) + 4)  # a few spare, for duplicates
    random.Random(7).shuffle(chosen)
    return chosen


def cache_file(member: Member) -> Path:
    """Where a member's rows are kept: a new schema (another table or column) makes a new file."""
    columns = repr([(t.name, t.column_names) for t in TABLES.values()])
    key = hashlib.sha256(f"{CACHE_VERSION}\0{columns}".encode()).hexdigest()[:12]
    return hostroot.cache_dir() / "bench" / "corpus" / f"{member.name}.{key}.pickle.gz"


def graphs(member: Member, rescan: bool = False) -> list[GraphRows]:
    """The member's graph rows (one per root filesystem found), scanned once and then cached."""
    cached = cache_file(member)
    if cached.is_file() and not rescan:
        with gzip.open(cached, "rb") as fh:
            return pickle.load(fh)
    work = Path(tempfile.mkdtemp(prefix="lg-corpus-"))
    try:
        target = member.target(work)
        with paused_gc():
            (work / "unpacked").mkdir()
            _unpacked, results = scan_target(target, work / "unpacked", name=member.name)
            rows = [build_rows(result) for result in results]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".partial")
    with gzip.open(partial, "wb", compresslevel=3) as fh:
        pickle.dump(rows, fh, protocol=pickle.HIGHEST_PROTOCOL)
    partial.rename(cached)
    return rows


def corpus(total: int, rescan: bool = False, log: Callable[[str], None] = print) -> Iterator[GraphRows]:
    """Distinct firmware graphs, ``total`` of them (or as many as the members give)."""
    seen: set[str] = set()
    for member in members(total):
        for rows in graphs(member, rescan):
            if len(seen) >= total:
                return
            if rows.firmware in seen:
                log(f"  {member.name}: same content as an earlier member, left out")
                continue
            seen.add(rows.firmware)
            yield rows
