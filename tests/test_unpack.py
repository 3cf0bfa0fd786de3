"""Unpacking: real router images, every file system and archive format built here, hostile archives.

The real images come from ../shared/firmware (read-only, never copied). Synthetic images are
built from one small tree with Debian's own tools (mksquashfs, mkfs.cramfs, mkfs.jffs2,
mkfs.ubifs/ubinize, mke2fs, cpio, tar, mkimage); a missing tool is a failure, not a skip.
"""

from __future__ import annotations

import binascii
import fnmatch
import gzip
import hashlib
import io
import lzma
import os
import shutil
import stat
import struct
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from linkgraph.loader.problems import Severity
from linkgraph.loader.unpack import ARCHIVE, DIRECTORY, IMAGE, Unpacked, unpack
from support.images import FFULM, LEDE

ELF_MAGIC = b"\x7fELF"

# tools the extraction and these tests run (Debian packages in scripts/debian-packages.txt)
TOOLS = (
    "unsquashfs",
    "mksquashfs",
    "7z",
    "lzop",
    "lz4",
    "zstd",
    "xz",
    "cpio",
    "debugfs",
    "mke2fs",
    "mkfs.cramfs",
    "mkfs.jffs2",
    "mkfs.ubifs",
    "ubinize",
    "mkimage",
    "unar",
    "simg2img",
    "fsck.erofs",
    "lziprecover",
    "tar",
    "jefferson",
    "ubireader_extract_files",
    "ubireader_extract_images",
)


def run(*cmd: str | Path, cwd: Path | None = None) -> None:
    subprocess.run([str(c) for c in cmd], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def count_elf(root: Path) -> int:
    """ELF files by magic: regular files only, symbolic links not followed."""
    count = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                with open(path, "rb") as fh:
                    count += fh.read(4) == ELF_MAGIC
    return count


def snapshot(root: Path, ignore: tuple[str, ...] = ()) -> dict[str, tuple]:
    """Every entry below ``root``: folders, files (content hash, executable?) and links (target)."""
    entries: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel.split("/")[0] in ignore:
                continue
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                entries[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                entries[rel] = ("dir",)
            elif not stat.S_ISREG(st.st_mode):
                entries[rel] = ("special", stat.S_IFMT(st.st_mode))
            else:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                entries[rel] = ("file", digest, bool(st.st_mode & 0o100))
    return entries


def check_clean(result: Unpacked) -> None:
    errors = [p for p in result.problems if p.severity is Severity.ERROR]
    assert errors == [], errors


# -- the real images ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Unpacked, float]]:
    unpacked = {}
    for image in (LEDE, FFULM):
        start = time.perf_counter()
        result = unpack(image, tmp_path_factory.mktemp(image.name[:12]))
        unpacked[image.name] = (result, time.perf_counter() - start)
    return unpacked


@pytest.mark.slow
@pytest.mark.parametrize(
    ("image", "squashfs_offset", "elf_files"), [(LEDE, 0x133444, 123), (FFULM, 0x1318F8, 219)], ids=["lede", "ffulm"]
)
def test_real_image_has_one_root(real, tmp_path: Path, image: Path, squashfs_offset: int, elf_files: int) -> None:
    result, seconds = real[image.name]
    print(f"{image.name}: unpacked in {seconds:.2f}s")
    assert result.kind == IMAGE
    assert result.problems == []
    assert [r.name for r in result.roots] == [f"squashfs@0x{squashfs_offset:x}"]
    root = result.roots[0]
    assert [(c.format, c.offset) for c in root.origin] == [("squashfs", squashfs_offset)]
    assert count_elf(root.path) == elf_files

    found = {(c.format, c.offset, c.source) for c in result.carved}
    assert ("tplink", 0, image.name) in found  # the TP-Link header
    assert ("lzma", 0x200, image.name) in found  # the kernel after it
    assert ("squashfs", squashfs_offset, image.name) in found
    placeholder = [c for c in result.carved if c.format == "jffs2-placeholder"]  # OpenWrt's 0xdeadc0de
    assert len(placeholder) == 1 and placeholder[0].source == image.name

    # cross-check: a plain unsquashfs of the squashfs carved at the recorded offset and size
    squashfs = next(c for c in result.carved if c.format == "squashfs" and c.source == image.name)
    with open(image, "rb") as fh:
        fh.seek(squashfs.offset)
        (tmp_path / "carved.sqfs").write_bytes(fh.read(squashfs.size))
    run("unsquashfs", "-no-progress", "-dest", tmp_path / "plain", tmp_path / "carved.sqfs")
    assert count_elf(tmp_path / "plain") == elf_files
    plain = snapshot(tmp_path / "plain")
    plain.pop("dev/console")  # a device node: not extracted by unpack
    assert snapshot(root.path) == plain


@pytest.mark.slow
def test_real_images_keep_links_and_rpath_libraries(real) -> None:
    lede = real[LEDE.name][0].roots[0].path
    assert os.readlink(lede / "var") == "/tmp"
    assert os.readlink(lede / "bin" / "sh") == "busybox"
    assert (lede / "lib" / "ld-musl-mips-sf.so.1").is_symlink() or (lede / "lib" / "ld-musl-mips-sf.so.1").is_file()
    assert not (lede / "dev" / "console").exists()

    ffulm = real[FFULM.name][0].roots[0].path
    ebtables = ffulm / "usr" / "sbin" / "ebtables"
    assert ebtables.is_file() and ebtables.read_bytes()[:4] == ELF_MAGIC
    libebt = sorted(p.name for p in (ffulm / "usr" / "lib" / "ebtables").glob("libebt*.so"))
    assert len(libebt) == 21 and len([n for n in libebt if n.startswith("libebt_")]) == 18
    assert (ffulm / "lib" / "ld-uClibc.so.0").exists() or (ffulm / "lib" / "ld-uClibc.so.0").is_symlink()


@pytest.mark.slow
def test_kernel_initramfs_is_carved_but_not_a_root(real) -> None:
    """The LZMA kernel holds the kernel's built-in initramfs (/dev/console, /root): not a root."""
    result = real[LEDE.name][0]
    kernel = f"{LEDE.name}/0x200.lzma/lzma.uncompressed"
    assert any(c.format == "cpio" and c.source == kernel for c in result.carved)
    assert len(result.roots) == 1


# -- synthetic images ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small root: an ELF program and library, relative and absolute links, /etc files."""
    src = tmp_path_factory.mktemp("tree") / "rootfs"
    for folder in ("bin", "sbin", "lib", "etc/config", "usr/bin", "tmp"):
        (src / folder).mkdir(parents=True)
    shutil.copyfile("/bin/true", src / "bin" / "busybox")
    os.chmod(src / "bin" / "busybox", 0o755)
    shutil.copyfile("/bin/true", src / "lib" / "libtest.so.1")
    os.chmod(src / "lib" / "libtest.so.1", 0o644)
    os.symlink("busybox", src / "bin" / "sh")
    os.symlink("../bin/busybox", src / "sbin" / "init")
    os.symlink("libtest.so.1", src / "lib" / "libtest.so")
    os.symlink("/bin/busybox", src / "usr" / "bin" / "env")
    os.symlink("/tmp", src / "var")
    (src / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (src / "etc" / "config" / "network").write_text("config interface 'lan'\n")
    for folder in ("bin", "sbin", "lib", "etc", "etc/config", "usr", "usr/bin", "tmp", "."):
        os.chmod(src / folder, 0o755)
    return src


def squashfs(tree: Path, out: Path, comp: str = "gzip") -> Path:
    run("mksquashfs", tree, out, "-comp", comp, "-noappend", "-all-root", "-no-xattrs", "-no-progress")
    return out


def tplink_header(payload_size: int) -> bytes:
    header = struct.pack(
        ">I24s36sIII16sI16sIIIIIIIIII",
        0x01000000,
        b"OpenWrt",
        b"r1234-test",
        0x08410011,
        1,
        0,
        bytes(16),
        0,
        bytes(16),
        0,
        0x80060000,
        0x80060000,
        0x200 + payload_size,
        0x200,
        0,
        0x200,
        payload_size,
        0,
        0,
    )
    return header.ljust(0x200, b"\0")


def build_trx(parts: list[bytes]) -> bytes:
    offsets, data = [], b""
    for part in parts:
        offsets.append(28 + len(data))
        data += part.ljust((len(part) + 3) // 4 * 4, b"\0")
    offsets += [0] * (3 - len(offsets))
    body = struct.pack("<HH3I", 0, 1, *offsets) + data
    length = 12 + len(body)
    crc = binascii.crc32(body) ^ 0xFFFFFFFF
    return b"HDR0" + struct.pack("<II", length, crc) + body


def zip_tree(tree: Path, out: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder, dirs, files in os.walk(tree):
            for name in sorted(dirs + files):
                path = os.path.join(folder, name)
                rel = prefix + os.path.relpath(path, tree)
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode) and not os.path.islink(path):
                    info = zipfile.ZipInfo(rel + "/")
                    info.external_attr = (stat.S_IFDIR | 0o755) << 16
                    archive.writestr(info, b"")
                elif stat.S_ISLNK(st.st_mode):
                    info = zipfile.ZipInfo(rel)
                    info.external_attr = (stat.S_IFLNK | 0o777) << 16
                    archive.writestr(info, os.readlink(path))
                else:
                    info = zipfile.ZipInfo(rel)
                    info.external_attr = (stat.S_IFREG | stat.S_IMODE(st.st_mode)) << 16
                    archive.writestr(info, Path(path).read_bytes(), zipfile.ZIP_DEFLATED)
    return out


def ubifs(tree: Path, out: Path) -> Path:
    run("mkfs.ubifs", "-r", tree, "-m", "2048", "-e", "126976", "-c", "64", "-o", out)
    return out


def ubi(tree: Path, out: Path) -> Path:
    volume = ubifs(tree, out.with_suffix(".ubifs"))
    config = out.with_suffix(".ini")
    config.write_text(
        f"[rootfs]\nmode=ubi\nimage={volume}\nvol_id=0\nvol_type=dynamic\nvol_name=rootfs\nvol_flags=autoresize\n"
    )
    run("ubinize", "-o", out, "-m", "2048", "-p", "128KiB", "-s", "2048", config)
    volume.unlink()
    return out


def build(kind: str, tree: Path, work: Path) -> Path:
    """The image ``kind`` of ``tree``, in ``work``."""
    if kind.startswith("squashfs-"):
        return squashfs(tree, work / "fs.sqfs", kind.removeprefix("squashfs-"))
    if kind == "cramfs":
        run("mkfs.cramfs", tree, work / "fs.cramfs")
        return work / "fs.cramfs"
    if kind == "jffs2":
        run("mkfs.jffs2", "-r", tree, "-o", work / "fs.jffs2", "-e", "64KiB", "-l")
        return work / "fs.jffs2"
    if kind == "ubifs":
        return ubifs(tree, work / "fs.ubifs")
    if kind == "ubi":
        return ubi(tree, work / "fs.ubi")
    if kind == "ext4":
        run("mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-d", tree, work / "fs.ext4", "8M")
        return work / "fs.ext4"
    if kind == "cpio":
        listing = subprocess.run(["find", ".", "-mindepth", "1"], cwd=tree, check=True, capture_output=True).stdout
        data = subprocess.run(
            ["cpio", "-o", "-H", "newc", "--quiet"], cwd=tree, input=listing, check=True, capture_output=True
        ).stdout
        (work / "initramfs.cpio").write_bytes(data)
        return work / "initramfs.cpio"
    if kind == "tar":
        run("tar", "-C", tree, "-cf", work / "rootfs.tar", ".")
        return work / "rootfs.tar"
    if kind == "tar-folder":  # the root in a folder of the archive
        run("tar", "-C", tree.parent, "-cf", work / "rootfs.tar", tree.name)
        return work / "rootfs.tar"
    if kind == "tar.gz":
        run("tar", "-C", tree, "-czf", work / "rootfs.tar.gz", ".")
        return work / "rootfs.tar.gz"
    if kind == "zip":
        return zip_tree(tree, work / "rootfs.zip")
    inner = squashfs(tree, work / "inner.sqfs")
    data = inner.read_bytes()
    if kind == "gzip":
        (work / "fs.sqfs.gz").write_bytes(gzip.compress(data))
        return work / "fs.sqfs.gz"
    if kind == "xz":
        (work / "fs.sqfs.xz").write_bytes(lzma.compress(data, format=lzma.FORMAT_XZ))
        return work / "fs.sqfs.xz"
    if kind == "lzma":
        (work / "fs.sqfs.lzma").write_bytes(lzma.compress(data, format=lzma.FORMAT_ALONE))
        return work / "fs.sqfs.lzma"
    if kind == "uimage":
        run(
            "mkimage",
            "-A",
            "mips",
            "-O",
            "linux",
            "-T",
            "filesystem",
            "-C",
            "none",
            "-a",
            "0",
            "-e",
            "0",
            "-n",
            "rootfs",
            "-d",
            inner,
            work / "fs.uimage",
        )
        return work / "fs.uimage"
    if kind == "tplink":
        (work / "tplink.bin").write_bytes(tplink_header(len(data)) + data)
        return work / "tplink.bin"
    if kind == "trx":
        (work / "fw.trx").write_bytes(build_trx([data]))
        return work / "fw.trx"
    if kind == "nested":  # an image (TP-Link header + squashfs) in a zip in a tar
        firmware = work / "firmware.bin"
        firmware.write_bytes(tplink_header(len(data)) + data)
        with zipfile.ZipFile(work / "fw.zip", "w") as archive:
            archive.write(firmware, "firmware.bin")
        with tarfile.open(work / "release.tar", "w") as archive:
            archive.add(work / "fw.zip", "fw.zip")
        return work / "release.tar"
    raise AssertionError(kind)


SQUASHFS_COMPRESSORS = ("gzip", "lzo", "lz4", "xz", "lzma", "zstd")
CASES = {
    **{f"squashfs-{comp}": (IMAGE, "squashfs@0x0") for comp in SQUASHFS_COMPRESSORS},
    "cramfs": (IMAGE, "cramfs@0x0"),
    "jffs2": (IMAGE, "jffs2@0x0"),
    "ubifs": (IMAGE, "ubifs@0x0"),
    "ubi": (IMAGE, "ubi@0x0/img-*_vol-rootfs.ubifs/ubifs@0x0"),  # * ubinize's random image sequence number
    "ext4": (IMAGE, "ext@0x0"),
    "cpio": (ARCHIVE, "cpio@0x0"),
    "tar": (ARCHIVE, "tar@0x0"),
    "tar-folder": (ARCHIVE, "tar@0x0/rootfs"),
    "tar.gz": (ARCHIVE, "gzip@0x0/tar@0x0"),
    "zip": (ARCHIVE, "zip@0x0"),
    "gzip": (ARCHIVE, "gzip@0x0/squashfs@0x0"),
    "xz": (ARCHIVE, "xz@0x0/squashfs@0x0"),
    "lzma": (ARCHIVE, "lzma@0x0/squashfs@0x0"),
    "uimage": (IMAGE, "squashfs@0x40"),
    "tplink": (IMAGE, "squashfs@0x200"),
    "trx": (IMAGE, "trx@0x0/part0/squashfs@0x0"),
    "nested": (ARCHIVE, "tar@0x0/fw.zip/zip@0x0/firmware.bin/squashfs@0x200"),
}


def test_mksquashfs_has_every_compressor() -> None:
    usage = subprocess.run(["mksquashfs", "-help"], capture_output=True, text=True).stdout
    available = usage.split("Compressors available", 1)[1].split("-b <block_size>", 1)[0].split()
    assert set(SQUASHFS_COMPRESSORS) <= {word for word in available if word.isalnum()}, available


@pytest.mark.parametrize("kind", list(CASES))
def test_synthetic_image(kind: str, tree: Path, tmp_path: Path) -> None:
    expected_kind, expected_name = CASES[kind]
    image = build(kind, tree, tmp_path)
    result = unpack(image, tmp_path / "work")
    check_clean(result)
    assert result.kind == expected_kind
    assert len(result.roots) == 1
    assert fnmatch.fnmatchcase(result.roots[0].name, expected_name), result.roots[0].name
    root = result.roots[0].path
    assert tmp_path / "work" in root.parents
    assert snapshot(root, ignore=("lost+found",)) == snapshot(tree)
    assert count_elf(root) == 2


def test_vendor_headers_are_carved(tree: Path, tmp_path: Path) -> None:
    """uImage and TP-Link headers are carved on their own; a TRX holds its partitions."""
    for kind, fmt, size, origin in (
        ("uimage", "uimage", 64, ["squashfs"]),
        ("tplink", "tplink", 0x200, ["squashfs"]),
        ("trx", "trx", None, ["trx", "squashfs"]),
    ):
        image = build(kind, tree, tmp_path)
        result = unpack(image, tmp_path / f"work-{kind}")
        header = [c for c in result.carved if c.format == fmt]
        assert [(c.offset, c.source) for c in header] == [(0, image.name)], result.carved
        assert size is None or header[0].size == size
        assert [c.format for c in result.roots[0].origin] == origin


def test_nested_origin(tree: Path, tmp_path: Path) -> None:
    result = unpack(build("nested", tree, tmp_path), tmp_path / "work")
    assert [(c.format, c.offset, c.source) for c in result.roots[0].origin] == [
        ("tar", 0, "release.tar"),
        ("zip", 0, "release.tar/0x0.tar/fw.zip"),
        ("squashfs", 0x200, "release.tar/0x0.tar/fw.zip/0x0.zip/firmware.bin"),
    ]


def test_kernel_initramfs_and_squashfs_are_two_roots(tree: Path, tmp_path: Path) -> None:
    """An initramfs (gzip'd cpio) inside a kernel, a squashfs after it: two roots, named by place."""
    initramfs = build("cpio", tree, tmp_path).read_bytes()
    kernel = bytes(4096) + gzip.compress(initramfs, mtime=0) + bytes(4096)
    kernel += bytes(-len(kernel) % 4096)
    rootfs = squashfs(tree, tmp_path / "root.sqfs").read_bytes()
    image = tmp_path / "two.bin"
    image.write_bytes(tplink_header(len(kernel) + len(rootfs)) + kernel + rootfs)
    seen: list[tuple[str, int, int]] = []
    result = unpack(image, tmp_path / "work", progress=lambda *step: seen.append(step))
    check_clean(result)
    assert seen and {stage for stage, _done, _total in seen} == {"unpack"} and seen[-1][1] == seen[-1][2]
    squashfs_at = 0x200 + len(kernel)
    assert sorted(r.name for r in result.roots) == ["gzip@0x1200/cpio@0x0", f"squashfs@0x{squashfs_at:x}"]
    for root in result.roots:
        assert snapshot(root.path) == snapshot(tree)


def test_overlay_and_recovery_roots(tree: Path, tmp_path: Path) -> None:
    """A jffs2 overlay (upper/ and work/) is a root; so is a recovery image inside a root."""
    overlay = tmp_path / "overlay"
    (overlay / "upper" / "etc" / "config").mkdir(parents=True)
    (overlay / "upper" / "usr" / "lib").mkdir(parents=True)
    (overlay / "work").mkdir()
    (overlay / "upper" / "etc" / "config" / "wireless").write_text("config wifi-device 'radio0'\n")
    shutil.copyfile("/bin/true", overlay / "upper" / "usr" / "lib" / "libextra.so")
    run("mkfs.jffs2", "-r", overlay, "-o", tmp_path / "overlay.jffs2", "-e", "64KiB", "-l")
    result = unpack(tmp_path / "overlay.jffs2", tmp_path / "work-overlay")
    check_clean(result)
    assert [r.name for r in result.roots] == ["jffs2@0x0/upper"]

    system = tmp_path / "system"
    shutil.copytree(tree, system, symlinks=True)
    (system / "boot").mkdir()
    squashfs(tree, system / "boot" / "recovery.img")
    result = unpack(squashfs(system, tmp_path / "system.sqfs"), tmp_path / "work-system")
    check_clean(result)
    assert [r.name for r in result.roots] == ["squashfs@0x0", "squashfs@0x0/boot/recovery.img/squashfs@0x0"]
    assert snapshot(result.roots[1].path) == snapshot(tree)
    assert not (result.roots[0].path / "boot" / "recovery.img_extract").exists()  # the root stays as it was


def test_no_root_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "noise.bin").write_bytes(bytes(range(256)) * 64)
    result = unpack(tmp_path / "noise.bin", tmp_path / "work")
    assert result.kind == IMAGE and result.roots == []
    assert [(p.path, p.severity, p.message) for p in result.problems] == [
        ("noise.bin", Severity.WARNING, "no root filesystem found")
    ]


def test_directory_is_its_own_root(tree: Path, tmp_path: Path) -> None:
    result = unpack(tree, tmp_path / "work")
    assert result.kind == DIRECTORY
    assert [(r.name, r.path) for r in result.roots] == [("rootfs", tree)]
    assert result.carved == [] and result.problems == []
    assert not (tmp_path / "work").exists() or not any((tmp_path / "work").iterdir())


def test_tools_are_installed() -> None:
    assert [tool for tool in TOOLS if shutil.which(tool) is None] == []


# -- hostile archives ---------------------------------------------------------------------------


def _tar_member(archive: tarfile.TarFile, name: str, data: bytes = b"", link: str | None = None) -> None:
    info = tarfile.TarInfo(name)
    if link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
    info.size = len(data) if link is None else 0
    archive.addfile(info, io.BytesIO(data) if link is None else None)


def _sentinel(base: Path) -> dict[str, tuple]:
    """Everything around the work folder, to compare before and after."""
    return {k: v for k, v in snapshot(base).items() if not k.startswith("work")}


def test_hostile_tar(tmp_path: Path) -> None:
    base = tmp_path / "sentinel"
    (base / "outside").mkdir(parents=True)
    victim = base / "outside" / "victim"
    victim.write_text("untouched\n")
    passwd = Path("/etc/passwd")
    passwd_before = passwd.stat()
    archive_path = tmp_path / "evil.tar"
    with tarfile.open(archive_path, "w", format=tarfile.GNU_FORMAT) as archive:
        _tar_member(archive, "ok/fine.txt", b"fine\n")
        _tar_member(archive, "../../escape", b"escaped\n")
        _tar_member(archive, "ok/../../../escape2", b"escaped\n")
        _tar_member(archive, "/abs/evil", b"absolute\n")
        _tar_member(archive, "passwd", link="/etc/passwd")
        # written through the link it would change /etc/passwd; the same bytes, so a broken guard harms nothing
        _tar_member(archive, "passwd", passwd.read_bytes())
        _tar_member(archive, "victim", link=str(victim))
        _tar_member(archive, "victim", b"owned\n")
        _tar_member(archive, "outdir", link=str(base / "outside"))
        _tar_member(archive, "outdir/planted", b"owned\n")
        _tar_member(archive, "up", link="../../..")
        _tar_member(archive, "up/planted2", b"owned\n")
    before = _sentinel(base)
    result = unpack(archive_path, base / "work")
    assert _sentinel(base) == before
    assert victim.read_text() == "untouched\n"
    after = passwd.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        passwd_before.st_ino,
        passwd_before.st_mtime_ns,
        passwd_before.st_size,
    )
    assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()
    assert not Path("/abs/evil").exists()

    work = base / "work"
    extracted = [p for p in work.rglob("*") if p.name == "fine.txt"]
    assert len(extracted) == 1
    top = extracted[0].parent.parent
    assert (top / "abs" / "evil").read_text() == "absolute\n"  # made relative, as GNU tar does
    assert os.readlink(top / "passwd") == "/etc/passwd"  # links are kept as they are: device paths
    messages = "\n".join(p.message for p in result.problems)
    for member in (
        "../../escape",
        "ok/../../../escape2",
        "/abs/evil",
        "passwd",
        "victim",
        "outdir/planted",
        "up/planted2",
    ):
        assert f"member {member!r}" in messages, messages
    assert all(p.path == "evil.tar" for p in result.problems)
    assert sum(p.severity is Severity.ERROR for p in result.problems) == 6


def test_hostile_zip(tmp_path: Path) -> None:
    base = tmp_path / "sentinel"
    (base / "outside").mkdir(parents=True)
    (base / "outside" / "keep").write_text("keep\n")
    archive_path = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("fine.txt", "fine\n")
        archive.writestr("../zip-escape", "escaped\n")
        archive.writestr("sub/../../zip-escape2", "escaped\n")
        archive.writestr("/zip-absolute", "absolute\n")
        link = zipfile.ZipInfo("outlink")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, str(base / "outside"))
        archive.writestr("outlink/keep", "owned\n")
    before = _sentinel(base)
    result = unpack(archive_path, base / "work")
    assert _sentinel(base) == before
    assert not (tmp_path / "zip-escape").exists() and not (tmp_path / "zip-escape2").exists()
    assert not Path("/zip-absolute").exists()
    messages = "\n".join(p.message for p in result.problems)
    for member in ("../zip-escape", "sub/../../zip-escape2", "/zip-absolute", "outlink/keep"):
        assert f"member {member!r}" in messages, messages
    assert result.kind == ARCHIVE and result.roots == []


def _newc(name: str, mode: int, data: bytes = b"", ino: int = 1) -> bytes:
    encoded = name.encode() + b"\0"
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0)
    header = b"070701" + b"".join(b"%08x" % f for f in fields) + encoded
    header += b"\0" * (-len(header) % 4)
    return header + data + b"\0" * (-len(data) % 4)


def test_hostile_cpio(tmp_path: Path) -> None:
    base = tmp_path / "sentinel"
    (base / "outside").mkdir(parents=True)
    archive = (
        _newc("fine", stat.S_IFREG | 0o644, b"fine\n", 1)
        + _newc("../cpio-escape", stat.S_IFREG | 0o644, b"escaped\n", 2)
        + _newc("out", stat.S_IFLNK | 0o777, str(base / "outside").encode(), 3)
        + _newc("out/planted", stat.S_IFREG | 0o644, b"owned\n", 4)
        + _newc("dev/console", stat.S_IFCHR | 0o600, b"", 5)
        + _newc("TRAILER!!!", 0, b"", 0)
    )
    (tmp_path / "evil.cpio").write_bytes(archive)
    before = _sentinel(base)
    result = unpack(tmp_path / "evil.cpio", base / "work")
    assert _sentinel(base) == before and not (tmp_path / "cpio-escape").exists()
    messages = "\n".join(p.message for p in result.problems)
    assert "member '../cpio-escape'" in messages and "member 'out/planted'" in messages
    assert not list((base / "work").rglob("console"))  # device nodes are skipped


def test_hostile_tar_inside_an_image(tmp_path: Path) -> None:
    """An archive unblob finds inside an image goes through the same guards, its problems named by offset."""
    base = tmp_path / "sentinel"
    (base / "outside").mkdir(parents=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        _tar_member(archive, "ok.txt", b"ok\n")
        _tar_member(archive, "../../evil", b"escaped\n")
        _tar_member(archive, "out", link=str(base / "outside"))
        _tar_member(archive, "out/planted", b"owned\n")
    image = tmp_path / "image.bin"
    image.write_bytes(bytes(4096) + b"\x11" * 100 + buffer.getvalue() + b"\x22" * 1000)
    before = _sentinel(base)
    result = unpack(image, base / "work")
    assert _sentinel(base) == before and not (tmp_path / "evil").exists()
    assert [(c.format, c.offset) for c in result.carved] == [("tar", 4196)]
    bad = sorted(p.message for p in result.problems if p.path == "image.bin/0x1064.tar")
    assert len(bad) == 2 and "member '../../evil'" in bad[0] and "member 'out/planted'" in bad[1]
