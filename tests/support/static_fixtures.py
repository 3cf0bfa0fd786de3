"""Static programs for the identification tests, and the linker's own record of what went into them.

:func:`zlib_source` fetches zlib's Debian source package with ``apt-get source --download-only``
through a private apt state in the test cache (its source lists are the machine's own ``deb``
entries read as ``deb-src``; the machine's apt configuration is left alone), the version of the
installed ``zlib1g``, and unpacks the upstream tarball. :func:`static_program` compiles zlib's
library sources with ``musl-gcc`` into a static archive and links ``tests/fixtures/static/NAME.c``
with ``-static`` against that archive and musl's ``libc.a``, the linker printing its input files
(``--trace``) and a link map (``-Map``). Both are cached under ``cache_dir()``
(tests/support/hostroot.py), the program under a key that hashes every input.
:func:`archive_members` reads the map's "Archive member included" list: the oracle of which objects
of which archive the program holds.

    python tests/support/static_fixtures.py fetch   # zlib's source into the cache (setup.sh --test)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script by scripts/setup.sh
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from support.hostroot import cache_dir
else:
    from .hostroot import cache_dir

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "static"
BUILD_VERSION = "1"  # bumped when the way the programs are built changes
CFLAGS = ("-O2", "-D_LARGEFILE64_SOURCE=1")
MAP_HEAD = "Archive member included to satisfy reference by file (symbol)"
MAP_MEMBER = re.compile(r"^(?P<archive>\S+)\((?P<member>[^()]+)\)")
ZLIB_VERSION = re.compile(r'^#define ZLIB_VERSION "([^"]+)"', re.M)
APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))


class StaticFixtureError(RuntimeError):
    """A fixture could not be fetched or built (the tests fail on it, never skip)."""


def run(cmd: Sequence[str], cwd: Path | None = None, timeout: float = 600) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise StaticFixtureError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def sha256_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


# --------------------------------------------------------------------------- zlib's Debian source


def _as_deb_src(text: str, deb822: bool) -> str:
    """The machine's binary-package sources as source-package sources."""
    if deb822:
        return re.sub(r"^Types:.*$", "Types: deb-src", text, flags=re.M | re.I)
    return "".join(re.sub(r"^deb(\s)", r"deb-src\1", line) for line in text.splitlines(keepends=True))


def _apt_options(state: Path) -> list[str]:
    parts = state / "sources.list.d"
    if not (state / "ready").is_file():  # made anew, whole, unless a run made it before
        shutil.rmtree(state, ignore_errors=True)
        parts.mkdir(parents=True)
        (state / "sources.list").write_text("")
        listed, folder = APT_SOURCES
        files = [listed] if listed.is_file() else []
        files += sorted(folder.glob("*.list")) + sorted(folder.glob("*.sources")) if folder.is_dir() else []
        for src in files:
            (parts / src.name).write_text(_as_deb_src(src.read_text(), src.suffix == ".sources"))
        for sub in ("lists/partial", "cache/archives/partial"):
            (state / sub).mkdir(parents=True)
        (state / "ready").write_text("")
    return [
        "-o", f"Dir::Etc::SourceList={state / 'sources.list'}",
        "-o", f"Dir::Etc::SourceParts={parts}",
        "-o", f"Dir::State::Lists={state / 'lists'}",
        "-o", f"Dir::Cache={state / 'cache'}",
    ]  # fmt: skip


def _installed_source_version(binary: str) -> str | None:
    """The source version of an installed binary package (the source of what the machine runs)."""
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${source:Version}", binary], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None


def debian_source(package: str, binary: str) -> Path:
    """The files of ``package``'s Debian source package (``.dsc``, tarballs), fetched once: the
    version of the installed ``binary`` package when it is installed, else the newest."""
    base = cache_dir() / "debian-source"
    final = base / package
    if (final / "fetched").is_file():
        return final
    options = _apt_options(base / "apt")
    run(["apt-get", "-qq", *options, "update"])
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{package}-", dir=base))
    try:
        version = _installed_source_version(binary)
        wanted = f"{package}={version}" if version else package
        run(["apt-get", "-q", *options, "source", "--download-only", wanted], cwd=work)
        dsc = sorted(work.glob("*.dsc"))
        if len(dsc) != 1:
            raise StaticFixtureError(f"apt-get source {package} fetched {len(dsc)} .dsc files")
        (work / "fetched").write_text(dsc[0].name + "\n")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(work, final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


@dataclass(frozen=True)
class ZlibSource:
    tree: Path  # the unpacked upstream tarball: zlib.h and the library's .c files
    tarball: Path
    version: str  # ZLIB_VERSION as zlib.h states it


def zlib_source() -> ZlibSource:
    """zlib's upstream source, from Debian's source package, unpacked in the cache."""
    fetched = debian_source("zlib", "zlib1g")
    tarballs = sorted(fetched.glob("*.orig.tar.*"))
    if len(tarballs) != 1:
        raise StaticFixtureError(f"zlib's source package has {len(tarballs)} upstream tarballs")
    tarball = tarballs[0]
    unpacked = fetched / "unpacked"
    if not (unpacked / "done").is_file():
        shutil.rmtree(unpacked, ignore_errors=True)
        with tarfile.open(tarball) as tar:
            tar.extractall(unpacked, filter="data")
        (unpacked / "done").write_text(tarball.name + "\n")
    headers = list(unpacked.glob("*/zlib.h"))
    if len(headers) != 1:
        raise StaticFixtureError(f"{tarball.name} holds {len(headers)} top-level zlib.h files")
    found = ZLIB_VERSION.search(headers[0].read_text(encoding="latin-1"))
    if found is None:
        raise StaticFixtureError(f"{headers[0]} defines no ZLIB_VERSION")
    return ZlibSource(headers[0].parent, tarball, found.group(1))


# --------------------------------------------------------------------------- building


def musl_gcc() -> str:
    cc = shutil.which("musl-gcc")
    if cc is None:
        raise StaticFixtureError("musl-gcc not found: apt-get install musl-tools (scripts/setup.sh --test)")
    return cc


def musl_libc_archive() -> Path:
    """musl's static C library, found through dpkg's file list of musl-dev."""
    for entry in run(["dpkg", "-L", "musl-dev"]).split():
        if entry.endswith("/libc.a") and Path(entry).is_file():
            return Path(os.path.realpath(entry))
    raise StaticFixtureError("package musl-dev ships no libc.a (apt-get install musl-dev)")


def _build_once(final: Path, build: Callable[[Path], None]) -> Path:
    """``final``, built by ``build(work)`` in a fresh folder beside it that then becomes it (so an
    interrupted build leaves nothing that looks done); kept while ``final/built`` is there."""
    if (final / "built").is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=final.parent))
    try:
        build(work)
        (work / "built").write_text("")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(work, final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join((BUILD_VERSION, *parts)).encode()).hexdigest()[:20]


def musl_zlib(src: ZlibSource) -> Path:
    """zlib's library sources (every top-level .c file) compiled with musl-gcc into a ``libz.a``."""
    cc = musl_gcc()
    key = _key(sha256_file(src.tarball), sha256_file(Path(cc)), run(["gcc", "--version"]), *CFLAGS)

    def build(work: Path) -> None:
        built = []
        for source in sorted(src.tree.glob("*.c")):
            built.append(str(work / f"{source.stem}.o"))
            run([cc, *CFLAGS, "-c", str(source), "-o", built[-1]])
        run(["ar", "rcs", str(work / "libz.a"), *built])

    return _build_once(cache_dir() / "static-programs" / f"zlib-{key}", build) / "libz.a"


@dataclass(frozen=True)
class StaticProgram:
    path: Path
    link_map: str  # the map file ld wrote (-Map)
    trace: list[str]  # the input files ld named (--trace)
    libc: Path  # musl's libc.a
    libz: Path  # the zlib archive given to the linker (used or not)
    zlib: ZlibSource


def static_program(name: str) -> StaticProgram:
    """``tests/fixtures/static/NAME.c`` linked statically with musl and (if it uses it) zlib."""
    src, libc, cc = zlib_source(), musl_libc_archive(), musl_gcc()
    libz = musl_zlib(src)
    program = FIXTURES / f"{name}.c"
    key = _key(str(libz), sha256_file(libz), sha256_file(libc), program.read_text())

    def build(work: Path) -> None:
        trace = run(
            [cc, "-static", *CFLAGS, f"-I{src.tree}", str(program), "-o", str(work / name),
             f"-L{libz.parent}", "-lz", "-Wl,--trace", f"-Wl,-Map,{work / 'link.map'}"]
        )  # fmt: skip
        (work / "trace.txt").write_text(trace)

    final = _build_once(cache_dir() / "static-programs" / f"{name}-{key}", build)
    return StaticProgram(
        final / name, (final / "link.map").read_text(), (final / "trace.txt").read_text().split(), libc, libz, src
    )


# --------------------------------------------------------------------------- the linker's record


def archive_members(link_map: str) -> dict[Path, set[str]]:
    """The archive members the link included (the map's first section), by archive (real path)."""
    if MAP_HEAD not in link_map:
        return {}
    members: dict[Path, set[str]] = {}
    for line in link_map.split(MAP_HEAD, 1)[1].splitlines()[1:]:
        if not line.strip():
            continue
        if not line[0].isspace():
            found = MAP_MEMBER.match(line)
            if found is None:  # the next section of the map
                break
            members.setdefault(Path(os.path.realpath(found["archive"])), set()).add(found["member"])
    return members


def member_bytes(archive: Path, member: str) -> bytes:
    """One member of an ``ar`` archive, as ``ar p`` prints it."""
    proc = subprocess.run(["ar", "p", str(archive), member], capture_output=True, timeout=60, check=False)
    if proc.returncode != 0:
        raise StaticFixtureError(f"ar p {archive} {member} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


if __name__ == "__main__":
    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {sys.argv[0]} fetch")
    print(zlib_source().tree)
