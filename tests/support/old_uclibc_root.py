"""A real uClibc 0.9.19 root: the loader that judges uClibc's old weak rule.

The Linksys WAG200G (TI AR7, MIPS32 little-endian) runs uClibc 0.9.19: its ``libdl.so.0``
defines the loader's ``_dl_*`` functions and data as weak stubs and counts on the loader's
global definitions to win. :data:`FILES` are that root's loader, C library and libdl, and the
three programs of the root that load libdl (``iptables``, ``tc``, ``pppd``) with the other
libraries they need, as the public repository :data:`SOURCE` holds them at :data:`COMMIT`
(under ``target/``), each with its sha256.

:func:`wag200g_root` fetches them once into the test cache (``cache_dir()/uclibc-0.9.19/COMMIT``;
a file whose hash differs is refused) and lays out a root: the files, and the links the device
had (:data:`LINKS`; the repository holds copies in their place) unless ``links=False``, which
leaves copies as the repository does (the loader's file name then states no version).

    python tests/support/old_uclibc_root.py fetch                # into the cache, from SOURCE
    python tests/support/old_uclibc_root.py fetch --git GIT_DIR  # from a clone of SOURCE
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from support.hostroot import cache_dir
else:
    from .hostroot import cache_dir

SOURCE = "Tetramatrix/wag200gfirmware"
COMMIT = "eaa339bf9f6539d06cb77a3d4ac6c9c61840a1d2"
URL = "https://raw.githubusercontent.com/{source}/{commit}/target/{path}"
# device path (under target/ in the repository) -> sha256
FILES = {
    "lib/ld-uClibc-0.9.19.so": "42206f62b04255f928cd6360c6f0e8bf01d6cb6af1ecd7e2033091803b09d5de",
    "lib/libuClibc-0.9.19.so": "b3a1a31f3dd2125892ffc9ce571b7d47ddd5042b85f4e11d4232c15e1ba6ab9c",
    "lib/libdl-0.9.19.so": "d6003b63a330560bb24cc6cd3a3d7b975d517336b76d1b7fde520a2e6fdc1339",
    "lib/libm-0.9.19.so": "6aa7f1f0371b7ac43638a3c17b10083aff5177e12b6b490df492bf5c922296bd",
    "lib/libresolv-0.9.19.so": "db2858582b3f3d596f336b76884c6b853a8872d2014ee4eda014dd756c47c740",
    "lib/libcrypt-0.9.19.so": "2f6135b4c4e761ee32430ffb9e7c6cd201cefd3281e4daf18b4b7409d8e8f459",
    "usr/sbin/iptables": "bb8c3eaa5c770a5921ffff8a3728bf36295c8781bd0c478ef292639b02689cde",
    "usr/sbin/tc": "59819eac4f79542014d60a5b18302ce1f0c3e12bbb095fb471a89730290f528f",
    "usr/sbin/pppd-2.4.4": "7459ffacc74ed49373d5b03078508f4469a789edd8629e95dfcb31d59ec9451b",
}
# the names programs and the kernel ask for -> the file they name (the device's symbolic links)
LINKS = {
    "lib/ld-uClibc.so.0": "ld-uClibc-0.9.19.so",
    "lib/libc.so.0": "libuClibc-0.9.19.so",
    "lib/libdl.so.0": "libdl-0.9.19.so",
    "lib/libm.so.0": "libm-0.9.19.so",
    "lib/libresolv.so.0": "libresolv-0.9.19.so",
    "lib/libcrypt.so.0": "libcrypt-0.9.19.so",
}
PROGRAMS = ("/usr/sbin/iptables", "/usr/sbin/pppd-2.4.4", "/usr/sbin/tc")
LOADER, LIBDL = "/lib/ld-uClibc-0.9.19.so", "/lib/libdl-0.9.19.so"


class OldRootError(RuntimeError):
    """The root's files could not be fetched or do not match their hashes (the tests fail on it)."""


def _download(path: str) -> bytes:
    url = URL.format(source=SOURCE, commit=COMMIT, path=path)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.read()
    except OSError as exc:
        hint = (
            f"or fill the cache from a clone of {SOURCE}: python tests/support/old_uclibc_root.py fetch --git GIT_DIR"
        )
        raise OldRootError(f"cannot fetch {url}: {exc} ({hint})") from exc


def _from_git(git_dir: Path, path: str) -> bytes:
    proc = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:target/{path}"], capture_output=True, check=False
    )
    if proc.returncode != 0:
        raise OldRootError(f"git show {COMMIT}:target/{path} in {git_dir} failed: {proc.stderr.decode()}")
    return proc.stdout


def fetched(git_dir: Path | None = None) -> Path:
    """The files of :data:`FILES` in the cache, each checked against its hash (fetched once)."""
    final = cache_dir() / "uclibc-0.9.19" / COMMIT
    if (final / "fetched").is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="fetching-", dir=final.parent))
    try:
        for path, sha in FILES.items():
            data = _from_git(git_dir, path) if git_dir is not None else _download(path)
            if hashlib.sha256(data).hexdigest() != sha:
                raise OldRootError(f"{SOURCE}@{COMMIT}: target/{path} is not the file it was (sha256 {sha})")
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_bytes(data)
        (work / "fetched").write_text(f"{SOURCE} {COMMIT}\n")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(work, final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def wag200g_root(dest: Path, links: bool = True) -> Path:
    """The root at ``dest``: the files (programs and libraries executable), and the device's
    links, or with ``links=False`` copies under the links' names."""
    files = fetched()
    for path in FILES:
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files / path, dest / path)
        os.chmod(dest / path, 0o755)
    for link, target in LINKS.items():
        if links:
            os.symlink(target, dest / link)
        else:
            shutil.copy2(dest / "lib" / target, dest / link)
    return dest


if __name__ == "__main__":  # python tests/support/old_uclibc_root.py fetch [--git GIT_DIR]
    args = sys.argv[1:]
    if not args or args[0] != "fetch" or len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--git"):
        sys.exit(__doc__)
    print(fetched(Path(args[2]) if len(args) == 3 else None))
