"""One budget per scan (issue 40): streams, file systems and the identification bounded for the scan.

Each case builds its input here at the size the issue names, scans it with the installed
``linkgraph`` into a database that already holds another firmware, and measures that process
(tests/support/measured.py) and the work folder's size on disk while it runs: exit 0 or 1, no
traceback, under 60 s of CPU and 1 GiB, under 2 GiB on disk at any moment, the ``scan-budget`` record
where a budget ran out, and the other firmware's graph unchanged.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import struct
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import pyzstd
from linkgraph.loader.budget import Budget, Kind, in_force, parse_budgets
from linkgraph.loader.identify.regions import string_ranges
from linkgraph.loader.problems import Problem, ProblemCode, Severity, bounded
from linkgraph.loader.unpack.safe_tree import SafeTree
from linkgraph.loader.unpack.squashfs_lzma import VariantError, extract_tplink_lzma
from support.fixture_root import two_library_root
from support.lzma_variant import append, as_variant, chain_pseudo, directory_graph, stored_squashfs
from support.measured import Run, run_measured
from support.tar_magics import tar_magics
from test_hostile_unpack import OTHER, _graph, _root_members, db_with_other, firmware_names

GIB = 1 << 30
CHUNK = 1 << 20


class DiskPeak:
    """The largest size on disk (allocated blocks) of a folder, sampled while a block runs."""

    def __init__(self, top: Path) -> None:
        self.top, self.peak = top, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _size(self) -> int:
        total = 0
        for folder, _dirs, files in os.walk(self.top):
            for name in files:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_blocks * 512
                except OSError:
                    continue
        return total

    def _watch(self) -> None:
        while not self._stop.wait(0.25):
            self.peak = max(self.peak, self._size())

    def __enter__(self) -> DiskPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._size())


def scan_within_bounds(target: Path, db: Path, work: Path, *extra: str) -> list[dict]:
    """Scan ``target`` measured (process and work folder); the problems of the firmware it added."""
    import json

    from conftest import linkgraph

    with DiskPeak(work) as disk:
        run: Run = run_measured("scan", str(target), "--db", str(db), "--workdir", str(work), "-q", *extra)
    print(
        f"{target.name} ({target.stat().st_size >> 10} KiB): exit {run.rc}, peak {run.max_rss >> 20} MiB, "
        f"{run.seconds:.1f} s ({run.cpu:.1f} s of CPU), at most {disk.peak >> 20} MiB on disk"
    )
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert run.rc in (0, 1), run.stderr
    # the 60 s bound is on the work done (CPU time of the scan and its children): on a loaded machine
    # the wall time of the same work stretches; a scan that hangs still fails, at 5 minutes
    assert run.max_rss < GIB and run.cpu < 60 and run.seconds < 300
    assert disk.peak < 2 * GIB
    added = [fw for name, fw in firmware_names(db).items() if name != OTHER]
    assert len(added) == 1, firmware_names(db)
    out = linkgraph("report", "--db", str(db), "--format", "json", "--firmware", added[0], "-q").stdout
    return json.loads(out)["problems"]


def budget_records(problems: list[dict]) -> list[dict]:
    return [p for p in problems if p["code"] == "scan-budget"]


def _zeros_zstd(size: int) -> Iterator[bytes]:
    """``size`` zero bytes as one zstd frame, compressed as they are made (never held whole)."""
    compressor = pyzstd.ZstdCompressor()
    zeros = bytes(CHUNK)
    for _ in range(size // CHUNK):
        if out := compressor.compress(zeros):
            yield out
    yield compressor.flush()


def test_a_root_then_a_12_gib_member_in_a_tar_zst(tmp_path: Path) -> None:
    """The tar is read from the stream: the root's members come out, the member of zeros stops at
    the ``written`` budget and is deleted; the stream is never written whole."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    member = tarfile.TarInfo("usr/share/zeros")
    member.size, member.mode = 12 * GIB, 0o644
    compressor = pyzstd.ZstdCompressor()
    target = tmp_path / "fw.tar.zst"
    with open(target, "wb") as out:
        out.write(compressor.compress(_root_members(root.path)))
        out.write(compressor.compress(member.tobuf(tarfile.GNU_FORMAT)))
        zeros = bytes(CHUNK)
        for _ in range(member.size // CHUNK):
            out.write(compressor.compress(zeros))
        out.write(compressor.compress(bytes(1024)))
        out.write(compressor.flush())
    problems = scan_within_bounds(target, db, tmp_path / "work")
    records = budget_records(problems)
    assert len(records) == 1 and "written budget" in records[0]["message"], records
    assert not list((tmp_path / "work").rglob("zeros"))  # output past the bound is deleted
    assert _graph(db, OTHER) == before


def test_eight_zstd_files_of_4_gib_in_a_tar(tmp_path: Path) -> None:
    """Streams followed from a tar spend from one budget: the first stops at it, the rest are not
    decompressed, one record counts them."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    frame = b"".join(_zeros_zstd(4 * GIB))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        tar.add(root.path, arcname="rootfs")
        for i in range(8):
            info = tarfile.TarInfo(f"blobs/{i}.zst")
            info.size = len(frame)
            tar.addfile(info, io.BytesIO(frame))
    target = tmp_path / "streams.tar"
    target.write_bytes(buf.getvalue())
    problems = scan_within_bounds(target, db, tmp_path / "work")
    records = budget_records(problems)
    assert len(records) == 1 and "written budget" in records[0]["message"], records
    assert "more places stopped by it" in records[0]["message"]
    assert _graph(db, OTHER) == before


def _million_links() -> Path:
    """A squashfs of 1,000 folders of 1,000 symbolic links (``zz000/l0000`` ...), built once with
    mksquashfs's pseudo files (a minute) and cached; one folder of a million takes mksquashfs hours."""
    cached = Path.home() / ".cache/linkgraph-tests/hostile-budget/links-1000x1000.sqfs"
    if cached.exists():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    work = cached.parent / f"build-{os.getpid()}"
    (work / "empty").mkdir(parents=True, exist_ok=True)
    pseudo = work / "links.pseudo"
    with open(pseudo, "w") as out:
        for d in range(1000):
            out.write(f"zz{d:03d} d 755 0 0\n")
            out.writelines(f"zz{d:03d}/l{i:04d} s 777 0 0 /usr/bin/prog\n" for i in range(1000))
    image = work / "links.sqfs"
    command = ["mksquashfs", str(work / "empty"), str(image), "-noappend", "-quiet", "-no-progress", "-pf", str(pseudo)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    image.replace(cached)
    shutil.rmtree(work)
    return cached


def test_a_million_symlinks_through_unsquashfs(tmp_path: Path) -> None:
    """unsquashfs lists the file system first; only the entries the limits have room for are
    extracted (the root's programs come first), one record says where it stopped."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    target = tmp_path / "links.sqfs"
    shutil.copyfile(_million_links(), target)
    quiet = {"check": True, "stdout": subprocess.DEVNULL}
    subprocess.run(["mksquashfs", str(root.path), str(target), "-quiet", "-no-progress"], **quiet)  # appended
    problems = scan_within_bounds(target, db, tmp_path / "work")
    limited = ("entries", "symbolic links")
    codes = ("scan-budget", "unpack-member")
    limits = [p for p in problems if any(w in p["message"] for w in limited) and p["code"] in codes]
    assert len(limits) == 1, limits  # the budget's, or a limit of one image (50,000 entries, 20,000 links): one record
    assert _graph(db, "links.sqfs")[0] >= {"/usr/bin/prog"}  # what was found is kept and scanned
    assert _graph(db, OTHER) == before


def _million_entries_variant(root: Path, image: Path) -> Path:
    """TP-Link's LZMA variant (tests/support/lzma_variant.py) of 1,000 folders of 1,000 symbolic
    links, each folder with its own owner, and ``root`` appended; the stored image of the links
    (58 MB, 20 s of mksquashfs) is built once and cached."""
    cached = Path.home() / ".cache/linkgraph-tests/hostile-budget/stored-links-1000x1000.sqfs"
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        work = cached.parent / f"build-{os.getpid()}"
        (work / "empty").mkdir(parents=True, exist_ok=True)
        with open(work / "links.pseudo", "w") as out:
            for d in range(1000):
                out.write(f"zz{d:03d} d 755 {1000 + d} 0\n")
                out.writelines(f"zz{d:03d}/l{i:04d} s 777 0 0 /usr/bin/prog\n" for i in range(1000))
        stored_squashfs(work / "empty", work / "links.sqfs", work / "links.pseudo").replace(cached)
        shutil.rmtree(work)
    shutil.copyfile(cached, image)
    append(root, image)
    return as_variant(image)


def test_a_million_entries_in_the_lzma_variant(tmp_path: Path) -> None:
    """unsquashfs cannot read the variant; its reader stops at the limit (the root's programs, listed
    first, are kept) with one record, never one per entry."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    target = _million_entries_variant(root.path, tmp_path / "variant.sqfs")
    problems = scan_within_bounds(target, db, tmp_path / "work")
    limited = ("entries", "symbolic links")  # the budget's, or a limit of one image (50,000 entries, 20,000 links)
    codes = ("scan-budget", "unpack-member")
    limits = [p for p in problems if any(w in p["message"] for w in limited) and p["code"] in codes]
    assert len(limits) == 1, limits
    assert len(problems) < 20, sorted({p["code"] for p in problems})
    assert _graph(db, "variant.sqfs")[0] >= {"/usr/bin/prog"}  # what was read first is kept and scanned
    assert _graph(db, OTHER) == before


@pytest.mark.parametrize("loop", [False, True], ids=["dag-2^40-paths", "loop"])
def test_a_directory_graph_in_the_lzma_variant(tmp_path: Path, loop: bool) -> None:
    """40 levels each listing the next twice (2^40 paths), or the last listing the first: refused
    as a loop before it is walked, one record; the root in the squashfs after it is scanned."""
    db, before = db_with_other(tmp_path)
    (tmp_path / "empty").mkdir()
    image = stored_squashfs(tmp_path / "empty", tmp_path / "graph.sqfs", chain_pseudo(tmp_path / "chain", 40))
    graph = directory_graph(as_variant(image), 40, loop).read_bytes()
    assert len(graph) <= 8192
    root = two_library_root(tmp_path / "src")
    quiet = {"check": True, "stdout": subprocess.DEVNULL}
    subprocess.run(["mksquashfs", str(root.path), str(tmp_path / "root.sqfs"), "-quiet", "-no-progress"], **quiet)
    target = tmp_path / "graph.bin"
    target.write_bytes(graph + (tmp_path / "root.sqfs").read_bytes())
    problems = scan_within_bounds(target, db, tmp_path / "work")
    loops = [p for p in problems if "directory loop detected" in p["message"]]
    assert len(loops) == 1, problems
    assert _graph(db, "graph.bin")[0] >= {"/usr/bin/prog"}
    assert _graph(db, OTHER) == before


def _overlapping_elf(data_size: int, sections: int) -> bytes:
    """An ELF64 file of ``data_size`` bytes of text and ``sections`` section headers that all
    describe the same bytes as allocated data."""
    shoff = 64 + data_size
    header = bytearray(64)
    header[:16] = b"\x7fELF\x02\x01\x01" + bytes(9)
    struct.pack_into("<HHIQQQIHHHHHH", header, 16, 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, sections, 0)
    text = (b"zlib 1.2.11 Copyright 1995-2017 Jean-loup Gailly and Mark Adler\0" * (data_size // 64 + 1))[:data_size]
    row = struct.pack("<IIQQQQIIQQ", 0, 1, 2, 0, 64, data_size, 0, 0, 1, 0)
    return bytes(header) + text + row * sections


def test_sixty_five_thousand_sections_over_the_same_bytes(tmp_path: Path) -> None:
    """Overlapping ranges are merged: the matcher reads the file's bytes once, not 65,000 times."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    elf = _overlapping_elf(1 << 20, 65_000)
    evil = root.path / "usr/lib/libevil.so"
    evil.write_bytes(elf)
    assert len(elf) > 5_000_000
    with open(evil, "rb") as fh:
        assert string_ranges(fh, len(elf)) == [(64, 1 << 20)]
    problems = scan_within_bounds(root.path, db, tmp_path / "work")
    assert _graph(db, OTHER) == before
    print(f"{len(problems)} problems: {sorted({p['code'] for p in problems})}")


def test_the_matched_budget_stops_the_identification(tmp_path: Path) -> None:
    """With a small ``matched`` budget the files past it are not matched: one record, the scan done."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    problems = scan_within_bounds(root.path, db, tmp_path / "work", "--budget", "matched=4K")
    records = budget_records(problems)
    assert len(records) == 1 and "matched budget" in records[0]["message"], records
    assert _graph(db, OTHER) == before


def test_budgets_grow_with_the_input_and_parse() -> None:
    small, large = Budget.for_input(1 << 20), Budget.for_input(1 << 30)
    assert large.limits[Kind.WRITTEN] > 16 * GIB > small.limits[Kind.WRITTEN] > GIB
    assert parse_budgets(("written=64G", "entries=5000000")) == {Kind.WRITTEN: 64 * GIB, Kind.ENTRIES: 5_000_000}
    budget = Budget.for_input(None, {Kind.MATCHED: 10})
    first = budget.reached(Kind.MATCHED, "/a")
    assert first is not None and budget.reached(Kind.MATCHED, "/b") is None
    assert "1 more places" in first.message and first.code is ProblemCode.SCAN_BUDGET


def test_problem_records_are_bounded_per_code() -> None:
    many = [Problem(f"/f{i}", Severity.WARNING, "odd", ProblemCode.UNPACK_MEMBER) for i in range(5000)]
    many.append(Problem("/last", Severity.ERROR, "bad", ProblemCode.UNPACK_MEMBER))
    kept = bounded([*many, Problem("/x", Severity.WARNING, "other", ProblemCode.UNPACK)], per_code=1000)
    assert len(kept) == 1002
    summary = kept[1000]
    assert "4,001 more problems" in summary.message and summary.severity is Severity.ERROR


def _variant_image(tree: Path, image: Path) -> bytes:
    """``tree`` as a squashfs whose superblock says LZMA and whose blocks are all stored as they
    are (mksquashfs -noI -noD -noF -noX): TP-Link's variant reader reads it without a decompressor."""
    command = [
        "mksquashfs",
        str(tree),
        str(image),
        "-noappend",
        "-quiet",
        "-no-progress",
        "-noI",
        "-noD",
        "-noF",
        "-noX",
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    data = bytearray(image.read_bytes())
    struct.pack_into("<H", data, 20, 2)  # compression id: LZMA
    return bytes(data)


def test_the_lzma_variant_refuses_a_directory_listed_twice(tmp_path: Path) -> None:
    """Two names of the root lead to the same directory (a DAG: 2^40 paths when nested): refused
    before it is walked, as unsquashfs refuses it ("directory loop")."""
    tree = tmp_path / "t"
    for name in ("aaaa", "bbbb"):
        (tree / name / "sub").mkdir(parents=True)
    data = bytearray(_variant_image(tree, tmp_path / "fs.sqfs"))
    a, b = data.index(b"aaaa"), data.index(b"bbbb")
    data[b - 8 : b - 6] = data[a - 8 : a - 6]  # bbbb's entry: the inode offset of aaaa's
    image = tmp_path / "dag.sqfs"
    image.write_bytes(bytes(data))
    out = tmp_path / "out"
    with pytest.raises(VariantError, match="directory loop"):
        extract_tplink_lzma(image, SafeTree(out, image.name))


def test_the_lzma_variant_stops_at_the_entries_budget_with_one_record(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    (tree / "many").mkdir(parents=True)
    for i in range(300):
        (tree / "many" / f"f{i:03d}").write_bytes(b"x")
    image = tmp_path / "many.sqfs"
    image.write_bytes(_variant_image(tree, tmp_path / "plain.sqfs"))
    budget = Budget.for_input(image.stat().st_size, {Kind.ENTRIES: 100})
    out = tmp_path / "out"
    with in_force(budget):
        tree_out = SafeTree(out, image.name)
        extract_tplink_lzma(image, tree_out)
    written = sum(len(d) + len(f) for _p, d, f in os.walk(out))
    assert 0 < written <= 100
    assert list(budget.records) == [Kind.ENTRIES] and not tree_out.problems


def test_a_stream_of_tar_magics_beside_a_root(tmp_path: Path) -> None:
    """unblob's chunk search bounded per file: 350,000 tar near-misses in a 7 MB stream beside a root
    (tests/support/tar_magics.py), searched once decompressed; one record says where it stopped."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        tar.add(root.path, arcname="rootfs")
        stream = gzip.compress(tar_magics(), 1)
        info = tarfile.TarInfo("blobs/magics.gz")
        info.size = len(stream)
        tar.addfile(info, io.BytesIO(stream))
    target = tmp_path / "fw.tar"
    target.write_bytes(buf.getvalue())
    problems = scan_within_bounds(target, db, tmp_path / "work")
    cut = [p for p in problems if "search for chunks cut short" in p["message"]]
    assert len(cut) == 1 and cut[0]["code"] == "too-many-entries", problems
    assert _graph(db, "fw.tar")[0] >= {"/usr/bin/prog"}
    assert _graph(db, OTHER) == before
