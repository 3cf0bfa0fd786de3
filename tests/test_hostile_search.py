"""unblob's chunk search bounded per file (loader/unpack/search_budget.py).

The fuzz run of the unpacking walk found inputs where unblob's own search spent 10 to 17 s of CPU:
a 7 MB stream holding some 350,000 tar magics, each behind a header that almost checks out (its
size and checksum fields are octal, only the sum is wrong), so unblob's tar handler parses every
one of them. The input is made here from that recipe; the real search runs on it.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

from linkgraph.loader.unpack.search_budget import BYTES_PER_MISS, MAX_MISSES, MAX_PASSED
from linkgraph.loader.unpack.unblob_run import unblob_file, without_chunks
from support.fixture_root import two_library_root
from test_hostile_budget import scan_within_bounds
from test_hostile_unpack import OTHER, _graph, db_with_other

PERIOD = 20  # one tar magic every 20 bytes
SIZE = 7_000_000


def tar_magics(size: int = SIZE) -> bytes:
    """``size`` bytes with a USTAR magic every ``PERIOD`` bytes; the header 257 bytes before each
    has octal size and checksum fields and the checksum's two last bytes as tar writes them."""
    period = bytearray(b"\x01" * PERIOD)
    period[0:8] = b"ustar\x0000"  # the magic and version (unblob's second tar pattern)
    period[8:17] = b"\x0000000000"  # 257 - 133 = 124: the size field, "0" then NUL
    period[17:19] = b"\x00 "  # 257 - 103 = 154: the checksum field's last two bytes
    return bytes(period) * (size // PERIOD)


def test_the_search_of_a_file_of_tar_magics_gives_up(tmp_path: Path) -> None:
    """The tar handler gives up after its misses, the search stops after the hits passed over,
    one problem says both; unblob's search and its whole run on the file alike."""
    target = tmp_path / "magics.bin"
    target.write_bytes(tar_magics())
    hits = SIZE // PERIOD
    misses = MAX_MISSES + SIZE // BYTES_PER_MISS
    assert hits > misses + MAX_PASSED  # the file has more than the search looks at
    for found in (without_chunks(target, target.name), unblob_file(target, tmp_path / "out", target.name)):
        assert found is not None and not found.chunks
        (problem,) = found.problems
        assert problem.code == "too-many-entries", problem
        assert f"tar gave up after {misses:,} misses ({MAX_PASSED:,} hits passed over)" in problem.message
        assert "the rest of the file is not searched" in problem.message


def test_a_real_image_is_searched_whole(tmp_path: Path) -> None:
    """A small real tar holding the same kind of data is found at its first hit: nothing is cut."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for i in range(3000):
            info = tarfile.TarInfo(f"f{i:04d}")
            info.size = 20
            tar.addfile(info, io.BytesIO(b"x" * 20))
    target = tmp_path / "image.bin"
    target.write_bytes(b"\xff" * 4096 + buf.getvalue())  # a tar in an image: unblob finds it
    found = unblob_file(target, tmp_path / "out", target.name)
    assert [c.carved.format for c in found.chunks] == ["tar"] and not found.problems


def test_a_stream_of_tar_magics_beside_a_root(tmp_path: Path) -> None:
    """The fuzz input as a scan meets it: a gzip stream beside a root, searched once decompressed."""
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
