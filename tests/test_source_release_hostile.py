"""Hostile source releases (docs/sources.md): names that climb out or start at /, names that are not
UTF-8, a compression bomb, more members than the budget, links that loop; each finishes with a
problem record, writes nothing, and keeps what it could read."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

from linkgraph.loader.problems import ProblemCode
from linkgraph.loader.sources.cache import load_index
from linkgraph.loader.sources.index import index_release
from linkgraph.loader.sources.walk import Budget
from support.archive_bytes import tar_bytes


def _tar(path: Path, members: list[tuple[str, bytes]], mode: str = "w:gz") -> Path:
    path.write_bytes(tar_bytes(members, mode))
    return path


def _codes(index) -> set[str]:
    return {p.code.value for p in index.problems}


def test_traversal_and_absolute_names(tmp_path: Path) -> None:
    release = _tar(
        tmp_path / "r.tar.gz",
        [
            ("rel/apps/foo-1.2/foo.c", b'int main(void) { puts("hello from foo"); }\n'),
            ("../../evil.c", b"x"),
            ("/etc/passwd", b"x"),
        ],
    )
    before = set(os.listdir(tmp_path))
    index = index_release(release, "k")
    assert [f.path for f in index.files] == ["apps/foo-1.2/foo.c"]
    assert _codes(index) == {ProblemCode.RELEASE_NAME_UNSAFE.value}
    assert len(index.problems) == 2
    assert set(os.listdir(tmp_path)) == before  # nothing written
    assert [(p.name, p.version) for p in index.packages] == [("foo", "1.2")]


def test_names_not_utf8(tmp_path: Path) -> None:
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / os.fsdecode(b"bad\xff.c")).write_bytes(b"int x;\n")
    index = index_release(folder, "k")
    assert [f.path for f in index.files] == ["bad\\xff.c"]
    assert _codes(index) == {ProblemCode.NAME_NOT_UTF8.value}


def test_bomb_stops_at_the_byte_budget(tmp_path: Path) -> None:
    """64 MiB of zeros (a 64 KiB xz): the budget of 16 MiB stops it with too-large."""
    release = tmp_path / "bomb.tar.xz"
    with tarfile.open(release, "w:xz") as tar:
        for n in range(4):
            info = tarfile.TarInfo(f"top/zeros{n}.bin")
            info.size = 16 << 20
            tar.addfile(info, io.BytesIO(bytes(info.size)))
    assert release.stat().st_size < 1 << 20
    index = index_release(release, "k", Budget(max_bytes=40 << 20))
    assert len(index.files) == 2
    assert _codes(index) == {ProblemCode.TOO_LARGE.value}


def test_zip_with_a_lying_size(tmp_path: Path) -> None:
    release = tmp_path / "r.zip"
    with zipfile.ZipFile(release, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("top/a.c", b'char *s = "a string of a";\n')
    index = index_release(release, "k")
    assert [f.path for f in index.files] == ["a.c"]


def test_too_many_members(tmp_path: Path) -> None:
    release = _tar(tmp_path / "many.tar", [(f"top/f{n}.txt", b"") for n in range(3000)], mode="w")
    index = index_release(release, "k", Budget(max_members=1000))
    assert len(index.files) == 1000
    assert _codes(index) == {ProblemCode.TOO_MANY_ENTRIES.value}


def test_link_loops_in_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "rel"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "loop").symlink_to("..")
    (folder / "a" / "self").symlink_to("self")
    (folder / "a" / "x.c").write_bytes(b"int x;\n")
    (folder / "README").write_bytes(b"build with make\n")
    index = index_release(folder, "k")
    assert sorted(f.path for f in index.files) == ["README", "a/x.c"]


def test_unreadable_release_is_a_problem(tmp_path: Path) -> None:
    release = tmp_path / "broken.tar.xz"
    release.write_bytes(b"\xfd7zXZ\x00" + b"\x00" * 100)
    index = index_release(release, "k")
    assert index.files == []
    assert _codes(index) == {ProblemCode.RELEASE_UNREADABLE.value}


def test_the_cache_is_keyed_by_content(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LINKGRAPH_CACHE", str(tmp_path / "cache"))
    release = _tar(tmp_path / "r.tar.gz", [("top/a.c", b'char *s = "first";\n')])
    first, cached = load_index(release)
    assert not cached
    again, cached = load_index(release)
    assert cached and again.key == first.key
    _tar(release, [("top/a.c", b'char *s = "second";\n')])
    changed, cached = load_index(release)
    assert not cached and changed.key != first.key


def test_nested_bomb_stops_at_the_byte_budget(tmp_path: Path) -> None:
    """A package tarball of 64 MiB of zeros (a 10 KiB xz) inside the release: its members spend the
    release's one budget, and the walk stops there with too-large, writing nothing."""
    bomb = tar_bytes([(f"bomb-1.0/zeros{n}.bin", bytes(16 << 20)) for n in range(4)], mode="w:xz")
    assert len(bomb) < 1 << 20
    release = _tar(
        tmp_path / "r.tar",
        [("top/README", b"make\n"), ("top/apps/bomb-1.0.tar.xz", bomb), ("top/apps/after.c", b"int x;\n")],
        mode="w",
    )
    before = set(os.listdir(tmp_path))
    index = index_release(release, "k", Budget(max_bytes=40 << 20))
    assert [f.path for f in index.files] == [
        "README",
        "apps/bomb-1.0.tar.xz",
        "apps/bomb-1.0.tar.xz/bomb-1.0/zeros0.bin",
        "apps/bomb-1.0.tar.xz/bomb-1.0/zeros1.bin",
    ]
    assert _codes(index) == {ProblemCode.TOO_LARGE.value}
    assert len(index.problems) == 1
    assert set(os.listdir(tmp_path)) == before


def test_nested_archives_stop_at_the_nesting_limit(tmp_path: Path) -> None:
    """Twenty tarballs each inside the next (what a self-containing archive, a loop, unfolds into):
    the first sixteen archives are opened, the seventeenth is a depth-limit problem."""
    data = tar_bytes([("deep.c", b'char *s = "the bottom";\n')])
    for level in range(20, 0, -1):
        data = tar_bytes([(f"l{level}.tar", data)])
    release = _tar(tmp_path / "r.tar.gz", [("top/l0.tar", data)])
    index = index_release(release, "k")
    archives = [f.path for f in index.files]
    assert len(archives) == 17 and archives[-1].endswith("/l16.tar")  # l0 .. l15 opened, l16 not
    assert [(p.code.value, p.path.rsplit("/", 1)[-1]) for p in index.problems] == [("depth-limit", "l16.tar")]
    assert not any(f.path.endswith(".c") for f in index.files)


def test_nested_traversal_names_stay_inside_their_archive(tmp_path: Path) -> None:
    """A nested tarball's member climbing out with '..' or starting at '/' is skipped: it can never
    land elsewhere in the release (over a vendor's build file)."""
    inner = tar_bytes([("pkg-1.0/ok.c", b"int ok;\n"), ("../../build/Makefile", b"evil\n"), ("/etc/x", b"x")])
    release = _tar(tmp_path / "r.tar.gz", [("top/build/Makefile", b"all:\n"), ("top/apps/pkg-1.0.tar", inner)])
    index = index_release(release, "k")
    assert [f.path for f in index.files] == ["build/Makefile", "apps/pkg-1.0.tar", "apps/pkg-1.0.tar/pkg-1.0/ok.c"]
    assert _codes(index) == {ProblemCode.RELEASE_NAME_UNSAFE.value}
    assert {(p.name, p.version, p.whence) for p in index.packages} == {
        ("pkg", "1.0", "archive-name"),
        ("pkg", "1.0", "folder-name"),
    }
