"""The release index, cached outside the work folder and keyed by the release's content: an archive
by its size, modification time and SHA-256; a folder by every file's path, size and modification
time. A second check of the same release reads the index back instead of walking it again."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from ..scan.firmware import file_sha256
from .index import index_release
from .model import ReleaseIndex
from .walk import Budget

INDEX_FORMAT = 6  # bumped when the index changes: an older cached index is then not read


def cache_folder() -> Path:
    base = os.environ.get("LINKGRAPH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "linkgraph"
    )
    return Path(base) / "sources"


def release_key(release: Path) -> str:
    digest = hashlib.sha256(f"format {INDEX_FORMAT}\n".encode())
    if release.is_dir():
        for folder, dirs, files in os.walk(release, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(folder, name)
                info = os.lstat(full)
                digest.update(
                    os.fsencode(os.path.relpath(full, release)) + f"\0{info.st_size}\0{info.st_mtime_ns}\n".encode()
                )
    else:
        info = release.stat()
        digest.update(f"{info.st_size} {info.st_mtime_ns} {file_sha256(release)}".encode())
    return digest.hexdigest()


def load_index(release: Path, budget: Budget | None = None, use_cache: bool = True) -> tuple[ReleaseIndex, bool]:
    """The release's index and whether it came from the cache."""
    key = release_key(release)
    cached = cache_folder() / f"{key}.pickle"
    if use_cache and cached.is_file():
        try:
            with open(cached, "rb") as stream:
                index = pickle.load(stream)
            if isinstance(index, ReleaseIndex) and index.key == key:
                return index, True
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            pass  # an unreadable cache entry is rebuilt
    index = index_release(release, key, budget)
    if use_cache:
        _store(cached, index)
    return index, False


def _store(path: Path, index: ReleaseIndex) -> None:
    """Written to a temporary file and renamed: a reader never sees half an index."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(fd, "wb") as stream:
            pickle.dump(index, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except OSError:
        pass  # no cache: the next check indexes again
