"""TP-Link's LZMA squashfs (TL-MR3020 v1 stock image): scanned from the .bin alone, and judged.

Debian's unsquashfs refuses this squashfs (its LZMA blocks lack the 8-byte size field), so the
tree linkgraph extracts (PySquashfsImage with our decompressor) is checked against a second,
independent squashfs reader: dissect.squashfs, its LZMA blocks decoded here as raw LZMA1 with
each stream's own properties (not through linkgraph's code). Every extracted ELF file must
parse with GNU readelf. A corrupted copy must give a ``filesystem-not-extracted`` problem and a
message that says why, never a traceback.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import os
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import linkgraph
from dissect.squashfs import SquashFS
from dissect.squashfs.squashfs import INode
from linkgraph.loader.problems import ProblemCode, Severity
from linkgraph.loader.unpack import unpack
from support.images import MR3020

pytestmark = pytest.mark.slow

SQUASHFS_OFFSET = 0x120200  # where unblob finds the squashfs, after the kernel's TP-Link header
ELF_MAGIC = b"\x7fELF"


class _RawLzma1:
    """A block as raw LZMA1: properties byte (lc, lp, pb) and dictionary size, then the data."""

    def decompress(self, data: bytes, expected: int) -> bytes:
        pb, rest = divmod(data[0], 45)
        lp, lc = divmod(rest, 9)
        dict_size = int.from_bytes(data[1:5], "little")
        filters = [{"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": dict_size}]
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters).decompress(data[5:], max_length=expected)


class _TPLinkSquashFS(SquashFS):
    """dissect.squashfs with its LZMA decompressor replaced by the one above."""

    @property
    def _compression(self) -> _RawLzma1:
        return _RawLzma1()

    @_compression.setter
    def _compression(self, value: object) -> None:
        pass


def _oracle(image: Path, size: int) -> dict[str, tuple]:
    """Every entry of the squashfs as dissect.squashfs reads it (device nodes left out)."""
    with open(image, "rb") as fh:
        fh.seek(SQUASHFS_OFFSET)
        data = fh.read(size)
    fs = _TPLinkSquashFS(io.BytesIO(data))
    entries: dict[str, tuple] = {}
    pending: list[tuple[str, INode]] = [("", fs.get("/"))]
    while pending:
        prefix, folder = pending.pop()
        for node in folder.iterdir():
            rel = f"{prefix}{node.name}"
            if node.is_dir():
                entries[rel] = ("dir",)
                pending.append((f"{rel}/", node))
            elif node.is_symlink():
                entries[rel] = ("link", node.link)
            elif node.is_file():
                content = node.open().read()
                assert len(content) == node.size
                entries[rel] = ("file", hashlib.sha256(content).hexdigest(), bool(node.mode & 0o100))
    return entries


def _snapshot(root: Path) -> dict[str, tuple]:
    entries: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                entries[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                entries[rel] = ("dir",)
            else:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                entries[rel] = ("file", digest, bool(st.st_mode & 0o100))
    return entries


def test_mr3020_scans_from_the_bin_alone(tmp_path: Path) -> None:
    assert MR3020.is_file(), f"{MR3020} is missing: the shared firmware folder is part of the workplace"
    db, work = tmp_path / "fw.lbdb", tmp_path / "work"
    proc = linkgraph("scan", str(MR3020), "--db", str(db), "--workdir", str(work), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(db)).stdout)
    assert proc.returncode == 0, report["problems"]
    source = report["firmware"]["source"]
    assert source["root"] == f"squashfs@0x{SQUASHFS_OFFSET:x}"
    squashfs = next(c for c in source["carved"] if c["format"] == "squashfs")
    assert squashfs["offset"] == SQUASHFS_OFFSET
    assert not [p for p in report["problems"] if p["code"].startswith(("unpack", "filesystem"))]

    roots = [d for d in work.rglob("*") if d.is_dir() and (d / "bin" / "busybox").is_file()]
    assert len(roots) == 1, roots
    root = roots[0]
    assert (root / "lib" / "ld-uClibc.so.0").is_symlink()
    assert (root / "lib" / os.readlink(root / "lib" / "ld-uClibc.so.0")).read_bytes()[:4] == ELF_MAGIC

    # the extracted tree equals what an independent reader finds: names, contents, x bits, links
    oracle = _oracle(MR3020, squashfs["size"])
    assert _snapshot(root) == oracle
    elf = sorted(
        rel for rel, entry in oracle.items() if entry[0] == "file" and (root / rel).read_bytes()[:4] == ELF_MAGIC
    )
    print(f"MR3020: {sum(e[0] == 'file' for e in oracle.values())} files, {len(elf)} ELF")
    assert len(report["modules"]) == len(elf)
    assert {m["path"] for m in report["modules"]} == {f"/{rel}" for rel in elf}
    assert any(m["interpreter"] == "/lib/ld-uClibc.so.0" for m in report["modules"])
    for rel in elf:  # every extracted ELF file is whole: GNU readelf reads its headers and dynamic section
        run = subprocess.run(["readelf", "-W", "-h", "-l", "-d", str(root / rel)], capture_output=True, text=True)
        assert run.returncode == 0 and not run.stderr, (rel, run.stderr)


def test_corrupted_squashfs_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    data = bytearray(MR3020.read_bytes())
    inode_table = SQUASHFS_OFFSET + int.from_bytes(data[SQUASHFS_OFFSET + 64 : SQUASHFS_OFFSET + 72], "little")
    data[inode_table + 12 : inode_table + 76] = bytes(64)  # inside the first metadata block's LZMA data
    bad = tmp_path / "corrupted.bin"
    bad.write_bytes(bytes(data))

    result = unpack(bad, tmp_path / "work")
    assert result.roots == []
    failed = [p for p in result.problems if p.code is ProblemCode.FILESYSTEM_NOT_EXTRACTED]
    assert len(failed) == 1 and failed[0].severity is Severity.ERROR
    message = failed[0].message
    assert message.startswith(f"squashfs at 0x{SQUASHFS_OFFSET:x} could not be extracted: unsquashfs failed")
    assert "TP-Link's LZMA variant cannot be read either: LZMA data error" in message

    proc = linkgraph("scan", str(bad), "--db", str(tmp_path / "fw.lbdb"), "--quiet", check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert message in proc.stderr and "no root filesystem found" in proc.stderr
