"""unblob's chunk search bounded per file (loader/unpack/search_budget.py).

The fuzz run of the unpacking walk found inputs where unblob's own search spent 10 to 17 s of CPU:
a 7 MB stream holding some 350,000 tar magics, each behind a header that almost checks out
(tests/support/tar_magics.py). The input is made here from that recipe; the real search runs on it.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from linkgraph.loader.unpack.search_budget import BYTES_PER_MISS, MAX_MISSES, MAX_PASSED
from linkgraph.loader.unpack.unblob_run import unblob_file, without_chunks
from support.tar_magics import PERIOD, SIZE, tar_magics


def test_the_search_of_a_file_of_tar_magics_gives_up(tmp_path: Path) -> None:
    """The tar handler gives up after its misses, the search stops after the hits passed over,
        one problem says both; unblob's search and its whole run on the file alike (the scan of it:
    tests/test_hostile_budget.py)."""
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
