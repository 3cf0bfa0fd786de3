"""The big root of the scale benchmarks: this machine's whole ``/usr`` and ``/opt`` as one root
filesystem, made of hard links (``cp -al``, no copy of the data), with the loader configuration
(``/etc/ld.so.conf``, ``ld.so.conf.d``, ``ld.so.cache``) and the merged-/usr symlinks
(``/lib -> usr/lib``, ``/bin -> usr/bin``, ...). On a Debian machine with a few toolchains this
is about 3,000 ELF files, the size of a modern Yocto or Android-based image.

    python bench/usr_opt_root.py          # build or reuse it, print its path

It is cached under ~/.cache/linkgraph/bench (or $LINKGRAPH_BENCH_CACHE), keyed by the package
database and the listing of /opt, and rebuilt when they change. Hard links need the cache on the
same file system as /usr; where it is not, the files are copied.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

SOURCES = ("usr", "opt")
MERGED = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib32": "usr/lib32", "lib64": "usr/lib64"}
LOADER_CONFIG = ("etc/ld.so.conf", "etc/ld.so.conf.d", "etc/ld.so.cache")
VERSION = "1"


def cache_dir() -> Path:
    base = os.environ.get("LINKGRAPH_BENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "linkgraph", "bench"
    )
    return Path(base)


def fingerprint() -> str:
    """What the root is made of: the package database and what /opt holds (two levels)."""
    digest = hashlib.sha256(VERSION.encode())
    for name in ("/var/lib/dpkg/status", "/etc/ld.so.cache"):
        if os.path.exists(name):
            with open(name, "rb") as fh:
                digest.update(hashlib.file_digest(fh, "sha256").digest())
    for dirpath, dirs, _files in os.walk("/opt"):
        dirs.sort()
        digest.update(dirpath.encode())
        if dirpath.count(os.sep) >= 2:
            dirs.clear()
    return digest.hexdigest()[:20]


def build(dest: Path) -> Path:
    """Make the root at ``dest`` (a new folder)."""
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name in SOURCES:
        if os.path.isdir(f"/{name}"):
            print(f"usr_opt_root: linking /{name}", file=sys.stderr)
            result = subprocess.run(["cp", "-al", f"/{name}", str(partial / name)], check=False)
            if result.returncode != 0:  # another file system: copy instead
                shutil.rmtree(partial / name, ignore_errors=True)
                subprocess.run(["cp", "-a", f"/{name}", str(partial / name)], check=True)
    for link, target in MERGED.items():
        if os.path.isdir(f"/{target}"):
            os.symlink(target, partial / link)
    (partial / "etc").mkdir()
    for name in LOADER_CONFIG:
        source = Path("/") / name
        if source.is_dir():
            shutil.copytree(source, partial / name, symlinks=True)
        elif source.exists():
            shutil.copy2(source, partial / name)
    partial.rename(dest)
    return dest


def cached_root() -> Path:
    """The root, built once per fingerprint."""
    dest = cache_dir() / f"usr-opt-{fingerprint()}"
    if not dest.is_dir():
        for old in cache_dir().glob("usr-opt-*"):
            shutil.rmtree(old, ignore_errors=True)
        build(dest)
    return dest


if __name__ == "__main__":
    print(cached_root())
