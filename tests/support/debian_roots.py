"""Root filesystems of foreign Debian architectures: real glibc devices for the oracle under qemu-user.

``build_debian_root(arch, dest)`` makes a small but real Debian 12 system for *arch* (armhf, arm64,
mipsel, i386) without installing anything into the host:

1. the architecture is added to dpkg (``dpkg --add-architecture``, then ``apt-get update``) if apt
   does not know its packages yet;
2. the dependency closure of :data:`PACKAGES` for that architecture is resolved with
   ``apt-cache depends --recurse`` (no recommends, suggests, conflicts, breaks, replaces,
   enhances); virtual packages (``<name>``) are skipped, and of the real ones only those built for
   *arch* or ``all`` are kept (a ``Multi-Arch: foreign`` dependency that apt resolves to the host's
   architecture is left out and listed as ``dropped`` in the manifest);
3. the ``.deb`` files are fetched with ``apt-get download`` into a cache outside the repository
   (``$LINKGRAPH_TEST_CACHE`` or ``${XDG_CACHE_HOME:-~/.cache}/linkgraph-tests``, then
   ``debian-ARCH/debs/``) and checked against the archive's SHA256;
4. each one is unpacked with ``dpkg-deb -X`` (no maintainer scripts run), and recorded the way dpkg
   records an installed package: its control fields (plus ``Status: install ok installed``) in
   ``/var/lib/dpkg/status`` and the paths it unpacked in ``/var/lib/dpkg/info/NAME[:ARCH].list``
   (``:ARCH`` for ``Multi-Arch: same``), so the licence sources see real package data; the tree is then
   converted to Debian 12's merged ``/usr`` (``/bin``, ``/sbin``, ``/lib`` become links to their
   ``/usr`` folders, as debootstrap makes them), so canonical paths differ from the printed ones
   exactly as on a real installation;
5. ``/etc/ld.so.conf`` (libc-bin's: ``include /etc/ld.so.conf.d/*.conf``) and libc6's multiarch
   ``/etc/ld.so.conf.d/TRIPLET.conf`` are checked, and ``/etc/ld.so.cache`` is made by the target's
   own ``ldconfig`` (statically linked) run under ``qemu-ARCH-static`` with ``-r ROOT``, which
   chroots into the root, so nothing outside it is read or written (this needs root, as
   ``dpkg --add-architecture`` does).

``cached_debian_root(arch)`` keeps the built root in the cache as ``debian-ARCH/root-KEY/root``,
where KEY hashes the architecture, the exact ``.deb`` files (names carry version and architecture)
and :data:`BUILD_VERSION`; a new package version in the archive therefore yields a new root.
A manifest ``root.manifest.json`` next to the root records the packages and how the root was made.

Every failure (no qemu, no network, a package that cannot be fetched) raises :class:`DebianRootError`:
the tests treat it as a failure, never as a skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from linkgraph.loader.scan.firmware import file_sha256

from .hostroot import cache_dir

# Bumped whenever the way a root is made changes, so cached roots are rebuilt.
BUILD_VERSION = "2"
PACKAGES = ["busybox", "libc6", "libc-bin", "curl", "openssl", "dropbear-bin", "iptables"]
APT_LOCK_TIMEOUT = "600"  # other jobs on the machine may hold the dpkg lock for a while
MERGED_DIRS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32", "libo32"]
MANIFEST_NAME = "root.manifest.json"


@dataclass(frozen=True, slots=True)
class ArchInfo:
    """What the tests need to know about a Debian architecture."""

    qemu: str  # qemu-user's name for the CPU (qemu-QEMU-static)
    triplet: str  # the Debian multiarch triplet
    interpreter: str  # PT_INTERP of its executables
    machine: str  # ELF e_machine as linkgraph reports it


ARCHES: dict[str, ArchInfo] = {
    "armhf": ArchInfo("arm", "arm-linux-gnueabihf", "/lib/ld-linux-armhf.so.3", "EM_ARM"),
    "arm64": ArchInfo("aarch64", "aarch64-linux-gnu", "/lib/ld-linux-aarch64.so.1", "EM_AARCH64"),
    "mipsel": ArchInfo("mipsel", "mipsel-linux-gnu", "/lib/ld.so.1", "EM_MIPS"),
    "i386": ArchInfo("i386", "i386-linux-gnu", "/lib/ld-linux.so.2", "EM_386"),
}


class DebianRootError(RuntimeError):
    """A foreign root could not be built (missing tool, download failure, broken package)."""


@dataclass(frozen=True, slots=True)
class DebFile:
    """One package file as the archive offers it."""

    name: str
    version: str  # as in the file name (epoch colon escaped as %3a)
    arch: str
    filename: str
    uri: str
    size: int
    sha256: str


# --------------------------------------------------------------------------- tools


def _run(argv: list[str], timeout: float = 900, cwd: str | os.PathLike[str] | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
    env.update(LC_ALL="C", DEBIAN_FRONTEND="noninteractive")
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
    except FileNotFoundError as exc:
        raise DebianRootError(f"{argv[0]} is not installed: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise DebianRootError(f"{' '.join(argv[:6])} ...: timed out after {timeout}s") from exc
    if proc.returncode != 0:
        raise DebianRootError(f"{' '.join(argv[:8])} ... exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc.stdout


def arch_info(arch: str) -> ArchInfo:
    try:
        return ARCHES[arch]
    except KeyError:
        raise DebianRootError(f"unsupported architecture {arch!r} (known: {', '.join(ARCHES)})") from None


def qemu_binary(arch: str) -> str:
    """qemu-user for *arch*: the static build (qemu-user-static) preferred, else qemu-user's."""
    name = arch_info(arch).qemu
    for candidate in (f"qemu-{name}-static", f"qemu-{name}"):
        found = shutil.which(candidate)
        if found:
            return found
    raise DebianRootError(f"qemu-{name}-static not found: install Debian's qemu-user-static (or qemu-user)")


def _apt_get(*args: str, timeout: float = 900, cwd: str | os.PathLike[str] | None = None) -> str:
    return _run(["apt-get", "-o", f"DPkg::Lock::Timeout={APT_LOCK_TIMEOUT}", *args], timeout=timeout, cwd=cwd)


def _apt_knows(arch: str) -> bool:
    env = dict(os.environ, LC_ALL="C")
    proc = subprocess.run(
        ["apt-cache", "show", "--no-all-versions", f"libc6:{arch}"], capture_output=True, text=True, env=env
    )
    return proc.returncode == 0 and "Package: libc6" in proc.stdout


def ensure_architecture(arch: str) -> None:
    """dpkg knows *arch* and apt has its package lists (``dpkg --add-architecture`` + ``apt-get update``)."""
    arch_info(arch)
    native = _run(["dpkg", "--print-architecture"]).strip()
    if arch != native and arch not in _run(["dpkg", "--print-foreign-architectures"]).split():
        _run(["dpkg", "--add-architecture", arch])
    if not _apt_knows(arch):
        _apt_get("update", "-qq")
        if not _apt_knows(arch):
            raise DebianRootError(f"apt has no libc6:{arch} even after apt-get update")


# --------------------------------------------------------------------------- packages


def _closure_names(arch: str, packages: list[str]) -> list[str]:
    """Real package names (``name:arch`` or bare) of the dependency closure, virtual ones left out."""
    out = _run(
        [
            "apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
            "--no-breaks", "--no-replaces", "--no-enhances", *(f"{p}:{arch}" for p in packages),
        ]
    )  # fmt: skip
    names: dict[str, None] = {}
    for line in out.splitlines():
        if not line or line[0].isspace() or line.startswith("<"):
            continue  # dependency lines, virtual packages
        names.setdefault(line.strip(), None)
    missing = [p for p in packages if f"{p}:{arch}" not in names and p not in names]
    if missing:
        raise DebianRootError(f"apt-cache knows no {', '.join(m + ':' + arch for m in missing)}")
    return list(names)


def _parse_print_uris(text: str) -> list[DebFile]:
    debs = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4 or not parts[0].startswith("'"):
            continue
        uri, filename, size, digest = parts
        if not filename.endswith(".deb") or not digest.startswith("SHA256:"):
            raise DebianRootError(f"unexpected apt-get --print-uris line: {line!r}")
        name, version, deb_arch = filename[: -len(".deb")].split("_")
        debs.append(DebFile(name, version, deb_arch, filename, uri.strip("'"), int(size), digest[len("SHA256:") :]))
    return debs


def resolve_packages(arch: str, packages: list[str] | None = None) -> tuple[list[DebFile], list[str]]:
    """The .deb files of the closure of *packages* for *arch*, and the names dropped (other arch)."""
    ensure_architecture(arch)
    names = _closure_names(arch, list(packages or PACKAGES))
    with tempfile.TemporaryDirectory(prefix="lg-uris-") as empty:  # --print-uris is silent for files in cwd
        debs = _parse_print_uris(_apt_get("download", "--print-uris", *names, cwd=empty))
    kept = sorted((d for d in debs if d.arch in (arch, "all")), key=lambda d: d.name)
    dropped = sorted(d.filename for d in debs if d.arch not in (arch, "all"))
    if len(debs) != len(names):
        raise DebianRootError(f"apt-get offered {len(debs)} files for {len(names)} packages: {names}")
    return kept, dropped


def download(debs: list[DebFile], into: Path) -> list[Path]:
    """``apt-get download`` the files not yet in *into*; every file is checked against its SHA256."""
    into.mkdir(parents=True, exist_ok=True)
    wanted = [d for d in debs if not (into / d.filename).is_file()]
    if wanted:
        with tempfile.TemporaryDirectory(prefix="lg-dl-", dir=into) as tmp:
            _apt_get("download", *(f"{d.name}:{d.arch}={d.version.replace('%3a', ':')}" for d in wanted), cwd=tmp)
            for d in wanted:
                got = Path(tmp) / d.filename
                if not got.is_file():
                    raise DebianRootError(f"apt-get download did not produce {d.filename}")
                os.replace(got, into / d.filename)
    paths = []
    for d in debs:
        path = into / d.filename
        if file_sha256(path) != d.sha256:
            path.unlink()
            raise DebianRootError(f"{d.filename}: SHA256 differs from the archive's (removed, try again)")
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- building


def _merge_into(src: Path, dst: Path) -> None:
    """Move the tree *src* into *dst* (usrmerge): entries already in *dst* must be identical."""
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(os.listdir(src)):
        s, d = src / entry, dst / entry
        if not os.path.lexists(d):
            os.rename(s, d)
        elif s.is_dir() and not s.is_symlink() and d.is_dir() and not d.is_symlink():
            _merge_into(s, d)
        elif (s.is_symlink() and d.is_symlink() and os.readlink(s) == os.readlink(d)) or (
            s.is_file()
            and d.is_file()
            and not s.is_symlink()
            and not d.is_symlink()
            and file_sha256(s) == file_sha256(d)
        ):
            s.unlink()
        else:
            raise DebianRootError(f"usrmerge conflict: /{s} and /{d} differ")
    src.rmdir()


def merge_usr(root: Path) -> None:
    """Debian 12's merged /usr: /bin, /sbin, /lib (and /lib64 ... if present) become links into /usr."""
    for name in MERGED_DIRS:
        top = root / name
        if top.is_dir() and not top.is_symlink():
            _merge_into(top, root / "usr" / name)
            os.symlink(f"usr/{name}", top)
        elif name in ("bin", "sbin", "lib") and not os.path.lexists(top):
            (root / "usr" / name).mkdir(parents=True, exist_ok=True)
            os.symlink(f"usr/{name}", top)


def _ensure_loader_config(root: Path, info: ArchInfo) -> None:
    conf = root / "etc/ld.so.conf"
    conf_d = root / "etc/ld.so.conf.d"
    conf_d.mkdir(parents=True, exist_ok=True)
    if not conf.is_file():  # libc-bin ships it; keep the root a complete glibc device anyway
        conf.write_text("include /etc/ld.so.conf.d/*.conf\n\n")
    if not (conf_d / f"{info.triplet}.conf").is_file():
        raise DebianRootError(f"libc6 did not ship /etc/ld.so.conf.d/{info.triplet}.conf")


def run_ldconfig(arch: str, root: Path) -> None:
    """The target's own ldconfig under qemu writes ROOT/etc/ld.so.cache (``-r`` chroots into ROOT)."""
    ldconfig = root / "usr/sbin/ldconfig"
    if not ldconfig.is_file():
        raise DebianRootError(f"{root} has no /sbin/ldconfig (libc-bin)")
    # ldconfig is statically linked, so qemu needs no -L; -r ROOT keeps every file access inside it.
    _run([qemu_binary(arch), str(ldconfig), "-r", str(root)], timeout=300)
    cache = root / "etc/ld.so.cache"
    if not cache.is_file() or cache.stat().st_size == 0:
        raise DebianRootError(f"ldconfig under qemu made no {cache}")


def record_installed(root: Path, deb: Path, unpacked: str) -> None:
    """Add *deb* to ROOT's dpkg database as dpkg would: a status paragraph and the list of its paths.

    *unpacked* is what ``dpkg-deb -X`` printed (``./usr/bin/busybox`` a line).
    """
    control = _run(["dpkg-deb", "-f", str(deb)]).rstrip("\n").split("\n")
    fields = {
        line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip()
        for line in control
        if line and not line[0].isspace() and ":" in line
    }
    name, arch = fields["package"], fields.get("architecture", "all")
    paragraph = [control[0], "Status: install ok installed", *control[1:]]
    info = root / "var/lib/dpkg/info"
    info.mkdir(parents=True, exist_ok=True)
    with open(root / "var/lib/dpkg/status", "a", encoding="utf-8") as fh:
        fh.write("\n".join(paragraph) + "\n\n")
    paths = ["/."] + [
        "/" + p.strip().removeprefix("./").rstrip("/")
        for p in unpacked.splitlines()
        if p.strip() and p.strip() not in ("./", ".")
    ]
    stem = f"{name}:{arch}" if fields.get("multi-arch") == "same" and arch != "all" else name
    (info / f"{stem}.list").write_text("\n".join(paths) + "\n", encoding="utf-8")


def _tree_size(root: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            path = os.path.join(dirpath, f)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total


def _key(arch: str, debs: list[DebFile]) -> str:
    text = "\n".join([BUILD_VERSION, arch, *sorted(d.filename for d in debs)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def manifest_path(root: Path) -> Path:
    return Path(root).parent / MANIFEST_NAME


def load_manifest(root: Path) -> dict:
    return json.loads(manifest_path(root).read_text())


def debs_dir(arch: str) -> Path:
    return cache_dir() / f"debian-{arch}" / "debs"


def build_debian_root(arch: str, dest: Path, packages: list[str] | None = None) -> Path:
    """Build the root of *arch* at *dest* (which must not exist or be empty) and return *dest*.

    The manifest is written next to it (``dest/../root.manifest.json``).  The downloaded .deb
    files stay in the cache (:func:`debs_dir`) for the next build.
    """
    qemu_binary(arch)  # fail early, before any download
    return _build(arch, Path(dest), *resolve_packages(arch, packages))


def _build(arch: str, dest: Path, debs: list[DebFile], dropped: list[str]) -> Path:
    info = arch_info(arch)
    qemu = qemu_binary(arch)
    started = time.monotonic()
    files = download(debs, debs_dir(arch))
    if dest.exists() and any(dest.iterdir()):
        raise DebianRootError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    for path in files:
        record_installed(dest, path, _run(["dpkg-deb", "-X", str(path), str(dest)], timeout=300))
    merge_usr(dest)
    _ensure_loader_config(dest, info)
    run_ldconfig(arch, dest)
    if not (dest / info.interpreter.lstrip("/")).exists():
        raise DebianRootError(f"{dest} has no interpreter {info.interpreter}")
    manifest = {
        "arch": arch,
        "key": _key(arch, debs),
        "packages": [asdict(d) for d in debs],
        "dropped": dropped,
        "qemu": qemu,
        "deb_bytes": sum(d.size for d in debs),
        "root_bytes": _tree_size(dest),
        "build_seconds": round(time.monotonic() - started, 1),
    }
    manifest_path(dest).write_text(json.dumps(manifest, indent=1))
    return dest


# the roots found in this process: resolving the packages asks apt again (seconds per architecture)
_FOUND: dict[tuple[str, tuple[str, ...] | None], Path] = {}


def cached_debian_root(arch: str, packages: list[str] | None = None) -> Path:
    """build_debian_root in the cache, reused while the package files (versions) stay the same."""
    key = (arch, tuple(packages) if packages is not None else None)
    if key not in _FOUND:
        _FOUND[key] = _cached_debian_root(arch, packages)
    return _FOUND[key]


def _cached_debian_root(arch: str, packages: list[str] | None) -> Path:
    qemu_binary(arch)
    debs, dropped = resolve_packages(arch, packages)
    base = cache_dir() / f"debian-{arch}"
    final = base / f"root-{_key(arch, debs)}"
    root = final / "root"
    if (final / MANIFEST_NAME).is_file():
        return root
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=base))
    try:
        _build(arch, work / "root", debs, dropped)
        try:
            os.rename(work, final)
        except OSError:
            if not (final / MANIFEST_NAME).is_file():  # not a concurrent build that won the race
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return root


if __name__ == "__main__":  # cd tests; python -m support.debian_roots [ARCH ...]: build (or find) the cached roots
    import sys

    for name in sys.argv[1:] or list(ARCHES):
        t0 = time.monotonic()
        built = cached_debian_root(name)
        m = load_manifest(built)
        print(
            f"{name}: {built} ({len(m['packages'])} packages, {m['deb_bytes'] / 1e6:.1f} MB of .deb, "
            f"{m['root_bytes'] / 1e6:.1f} MB unpacked; {time.monotonic() - t0:.1f}s)"
        )
