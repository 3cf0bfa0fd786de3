"""musl roots for the oracle: the fixtures (tests/fixtures/musl) built with ``musl-gcc`` into roots
that differ only in ``/etc/ld-musl-x86_64.path`` (:data:`ROOT_KINDS`), with the host's musl loader
copied in, and that loader's ``--list`` and run output parsed."""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "musl"
INTERP = "/lib/ld-musl-x86_64.so.1"
ROOT_KINDS = ("pathfile", "default", "empty")
PATH_FILE_TEXT = "/opt/custom/lib\n/usr/lib:/lib\n"
EXECUTABLES = ("order", "rpathprog", "oddrpath", "nlrpath", "names", "defaults")
# Which programs run to completion in which root (the others miss a library by design).
RUNNABLE = {
    "pathfile": {"order", "rpathprog", "oddrpath", "nlrpath", "names"},
    "default": {"rpathprog", "oddrpath", "nlrpath", "names", "defaults"},
    "empty": {"rpathprog", "nlrpath"},
}
CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}


# ----------------------------------------------------------------------------- helpers


def run(
    cmd: Sequence[str], *, timeout: float = 120, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        list(cmd), capture_output=True, text=True, timeout=timeout, env=env if env is not None else CLEAN_ENV
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd!r} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def host_musl_loader() -> Path:
    """The musl loader/libc installed on the host, found through dpkg's file list."""
    listing = run(["dpkg", "-L", "musl"]).stdout.split()
    for entry in listing:
        if entry.endswith("/ld-musl-x86_64.so.1"):
            real = Path(os.path.realpath(entry))
            if real.is_file():
                return real
    raise AssertionError("package musl does not ship ld-musl-x86_64.so.1 (apt-get install musl)")


def device_realpath(root: Path, path: str) -> str:
    """Resolve ``path`` the way the kernel would inside a chroot at ``root``."""
    pending = [c for c in path.split("/") if c]
    pending.reverse()
    current = "/"
    hops = 0
    while pending:
        comp = pending.pop()
        if comp == ".":
            continue
        if comp == "..":
            current = posixpath.dirname(current)
            continue
        candidate = posixpath.join(current, comp)
        host = root / candidate.lstrip("/")
        if host.is_symlink():
            hops += 1
            assert hops <= 40, f"symlink loop at {path}"
            target = os.readlink(host)
            if target.startswith("/"):
                current = "/"
            pending.extend(reversed([c for c in target.split("/") if c]))
            continue
        current = candidate
    return current


def readelf_dynamic(path: Path) -> dict[str, list[str]]:
    """NEEDED/SONAME/RPATH/RUNPATH entries as binutils' readelf shows them."""
    out = run(["readelf", "-dW", str(path)]).stdout
    tags: dict[str, list[str]] = {}
    for m in re.finditer(r"\((NEEDED|SONAME|RPATH|RUNPATH)\)\s+\S[^:]*: \[(.*)\]", out):
        tags.setdefault(m.group(1), []).append(m.group(2))
    return tags


def snapshot(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every entry below ``root``: mode, size, mtime and link target or content digest."""
    entries: dict[str, tuple[int, int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            host = os.path.join(dirpath, name)
            st = os.lstat(host)
            if stat.S_ISLNK(st.st_mode):
                extra = os.readlink(host)
            elif stat.S_ISREG(st.st_mode):
                extra = hashlib.sha256(Path(host).read_bytes()).hexdigest()
            else:
                extra = ""
            entries[os.path.relpath(host, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, extra)
    return entries


# ----------------------------------------------------------------------------- building


@dataclass(frozen=True)
class Lib:
    """One shared library build: ``out`` is its file name in the build directory."""

    out: str
    source: str
    soname: str
    fn: str | None = None  # for single.c: the one function it defines
    needed: tuple[str, ...] = ()  # build outputs to link against, in DT_NEEDED order
    runpath: str | None = None
    version_script: str | None = None
    defines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exe:
    name: str
    needed: tuple[str, ...]
    runpath: str | None = None
    rpath: str | None = None


# In build order (dependencies first).  "link/" builds carry the soname programs are linked
# against; "deploy/" builds are the variants the roots really hold.
LIBS: tuple[Lib, ...] = (
    Lib("link/libdeep.so.1", "single.c", "libdeep.so.1", fn="deep_fn"),
    Lib("link/liblate.so.1", "late.c", "liblate.so.1"),
    Lib("link/libfirst.so.1", "first.c", "libfirst.so.1", needed=("link/libdeep.so.1", "link/liblate.so.1")),
    Lib("link/libsecond.so.1", "second.c", "libsecond.so.1"),
    Lib("link/libshadow.so.1", "single.c", "libshadow.so.1", fn="shadow_fn"),
    Lib("link/libhid.so.1", "hid.c", "libhid.so.1", version_script="hid.map"),
    Lib("link/libvis.so.1", "single.c", "libvis.so.1", fn="hidfn"),
    Lib("link/libver.so.1", "ver.c", "libver.so.1", version_script="ver_a.map"),
    Lib("deploy/libver.so.1", "ver.c", "libver.so.1", version_script="ver_b.map"),
    Lib("link/libearly.so.1", "early.c", "libearly.so.1"),
    Lib("link/libm.so.6", "single.c", "libm.so.6", fn="decoy_fn"),
    Lib("link/libdeep2.so.1", "single.c", "libdeep2.so.1", fn="deep2_fn"),
    Lib("link/libplugdep.so.1", "single.c", "libplugdep.so.1", fn="plugdep_fn"),
    Lib("link/libplug.so.1", "plug.c", "libplug.so.1", needed=("link/libplugdep.so.1",)),
    Lib(
        "link/libpriv.so.1",
        "priv.c",
        "libpriv.so.1",
        needed=("link/libdeep2.so.1", "link/libplug.so.1"),
        runpath="${ORIGIN}/plugins",
    ),
    Lib("link/libodd.so.1", "single.c", "libodd.so.1", fn="odd_fn"),
    Lib("link/libnl.so.1", "single.c", "libnl.so.1", fn="nl_fn"),
    Lib("link/libabs.so.1", "single.c", "libabs.so.1", fn="abs_fn"),
    Lib("deploy/libabs.so.1", "single.c", "/opt/abs/libabs.so.1", fn="abs_fn"),
    Lib("link/liby.so.1", "xy.c", "liby.so.1", needed=("link/libabs.so.1",), defines=("LG_ONLY_IN_Y",)),
    Lib("link/libx.so", "xy.c", "libx.so"),
    Lib("deploy/libx.so", "xy.c", "liby.so.1"),
    Lib("link/libonlylocal.so.1", "single.c", "libonlylocal.so.1", fn="only_local_fn"),
)

EXES: tuple[Exe, ...] = (
    Exe(
        "order",
        (
            "link/libfirst.so.1",
            "link/libsecond.so.1",
            "link/libshadow.so.1",
            "link/libhid.so.1",
            "link/libvis.so.1",
            "link/libver.so.1",
            "link/libearly.so.1",
            "link/libm.so.6",
        ),
    ),
    Exe("rpathprog", ("link/libpriv.so.1", "link/libshadow.so.1"), runpath="$ORIGIN/../lib/app-private"),
    Exe("oddrpath", ("link/libodd.so.1",), rpath="/opt/odd:$PLATFORM/x"),
    Exe("nlrpath", ("link/libnl.so.1",), rpath="/nowhere\n/opt/nl"),
    Exe("names", ("deploy/libabs.so.1", "link/libx.so", "link/liby.so.1")),
    Exe("defaults", ("link/libshadow.so.1", "link/libonlylocal.so.1")),
)

# Where each build lands in every root (device path -> build output).
PLACEMENT: dict[str, str] = {
    "/opt/custom/lib/libfirst.so.1": "link/libfirst.so.1",
    "/opt/custom/lib/libshadow.so.1": "link/libshadow.so.1",
    "/usr/lib/libsecond.so.1": "link/libsecond.so.1",
    "/usr/lib/libshadow.so.1": "link/libshadow.so.1",
    "/usr/lib/libhid.so.1": "link/libhid.so.1",
    "/usr/lib/libvis.so.1": "link/libvis.so.1",
    "/usr/lib/libver.so.1": "deploy/libver.so.1",
    "/usr/lib/liblate.so.1": "link/liblate.so.1",
    "/usr/lib/libm.so.6": "link/libm.so.6",  # a decoy: musl maps libm.* to itself
    "/usr/lib/libodd.so.1": "link/libodd.so.1",
    "/usr/lib/libx.so": "deploy/libx.so",
    "/usr/lib/liby.so.1": "link/liby.so.1",
    "/usr/local/lib/libshadow.so.1": "link/libshadow.so.1",
    "/usr/local/lib/libonlylocal.so.1": "link/libonlylocal.so.1",
    "/lib/libearly.so.1": "link/libearly.so.1",
    "/lib/libdeep.so.1": "link/libdeep.so.1",
    "/usr/lib/app-private/libpriv.so.1": "link/libpriv.so.1",
    "/usr/lib/app-private/libdeep2.so.1": "link/libdeep2.so.1",
    "/usr/lib/app-private/libshadow.so.1": "link/libshadow.so.1",
    "/usr/lib/app-private/plugins/libplug.so.1": "link/libplug.so.1",
    "/usr/lib/app-private/plugins/libplugdep.so.1": "link/libplugdep.so.1",
    "/opt/odd/libodd.so.1": "link/libodd.so.1",
    "/opt/nl/libnl.so.1": "link/libnl.so.1",  # only through the RPATH's second, newline-separated entry
    "/opt/abs/libabs.so.1": "deploy/libabs.so.1",
    **{f"/usr/bin/{e.name}": f"bin/{e.name}" for e in EXES},
}
SYMLINKS: dict[str, str] = {
    INTERP: "x86_64-linux-musl/libc.so",
    "/usr/lib/libabs.so.1": "/opt/abs/libabs.so.1",  # absolute: resolved inside the root
}
LOADER_PATH = "/lib/x86_64-linux-musl/libc.so"


def musl_gcc() -> str:
    cc = shutil.which("musl-gcc")
    assert cc, "musl-gcc not found: apt-get install -y musl-tools"
    return cc


def build_all(build: Path) -> None:
    cc = musl_gcc()
    common = [cc, "-D_GNU_SOURCE", "-O1", "-fno-builtin", "-Wall", "-Werror", f"-I{FIXTURES}"]
    for sub in ("link", "deploy", "bin"):
        (build / sub).mkdir(parents=True, exist_ok=True)
    for lib in LIBS:
        cmd = [
            *common,
            "-shared",
            "-fPIC",
            "-o",
            str(build / lib.out),
            f"-Wl,-soname,{lib.soname}",
            "-Wl,--no-as-needed",
        ]
        cmd += [f"-D{d}" for d in lib.defines]
        if lib.fn:
            cmd.append(f"-DLG_FN={lib.fn}")
        if lib.runpath:
            cmd += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{lib.runpath}"]
        if lib.version_script:
            cmd.append(f"-Wl,--version-script={FIXTURES / lib.version_script}")
        cmd.append(str(FIXTURES / lib.source))
        cmd += [str(build / n) for n in lib.needed]
        run(cmd)
    for exe in EXES:
        cmd = [
            *common,
            "-fPIE",
            "-pie",
            "-o",
            str(build / "bin" / exe.name),
            f"-Wl,--dynamic-linker={INTERP}",
            f"-Wl,-rpath-link,{build / 'link'}",
            "-Wl,--no-as-needed",
        ]
        if exe.runpath:
            cmd += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{exe.runpath}"]
        if exe.rpath:
            cmd += ["-Wl,--disable-new-dtags", f"-Wl,-rpath,{exe.rpath}"]
        cmd.append(str(FIXTURES / f"{exe.name}.c"))
        cmd += [str(build / n) for n in exe.needed]
        run(cmd)


def make_root(root: Path, build: Path, kind: str) -> None:
    loader = host_musl_loader()
    (root / "lib/x86_64-linux-musl").mkdir(parents=True)
    shutil.copy2(loader, root / LOADER_PATH.lstrip("/"))
    for device, out in PLACEMENT.items():
        dest = root / device.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / out, dest)
    for device, target in SYMLINKS.items():
        dest = root / device.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, dest)
    (root / "etc").mkdir()
    if kind == "pathfile":
        (root / "etc/ld-musl-x86_64.path").write_text(PATH_FILE_TEXT)
    elif kind == "empty":
        (root / "etc/ld-musl-x86_64.path").write_text("")
    else:
        assert kind == "default"


# ----------------------------------------------------------------------------- oracles

LIST_LINE = re.compile(r"^\t(?P<name>\S+) => (?P<path>\S+) \(0x[0-9a-f]+\)$")
LIST_HEAD = re.compile(r"^\t(?P<path>\S+) \(0x[0-9a-f]+\)$")
LOAD_ERROR = re.compile(r"^Error loading shared library (?P<name>.+?): .* \(needed by (?P<by>.+)\)$")
RELOC_ERROR = re.compile(r"^Error relocating (?P<obj>[^:]+): (?P<sym>[^:]+): symbol not found$")


@dataclass
class ListResult:
    """What ``ld-musl --list`` said about one program (paths canonical inside the root)."""

    order: list[str]  # load order without the program, duplicates removed
    names: dict[str, str]  # NEEDED name -> object, as printed
    missing: list[tuple[str, str]]  # (needed by, name)
    unresolved: set[tuple[str, str]]  # (object, symbol)
    raw: str


@dataclass
class RunResult:
    returncode: int
    binds: list[tuple[str, str, str]]  # (object, symbol, provider)
    unresolved: list[tuple[str, str]]
    raw: str


def musl_list(root: Path, exe: str) -> ListResult:
    proc = run(["chroot", str(root), INTERP, "--list", exe], check=False)
    assert proc.returncode in (0, 127), f"--list {exe}: rc {proc.returncode}\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    head = LIST_HEAD.match(lines[0]) if lines else None
    assert head and head.group("path") == INTERP, f"unexpected --list output:\n{proc.stdout}"
    order: list[str] = []
    names: dict[str, str] = {}
    for line in lines[1:]:
        m = LIST_LINE.match(line)
        assert m, f"unexpected --list line {line!r}"
        path = device_realpath(root, m.group("path"))
        names[m.group("name")] = path
        if path not in order:
            order.append(path)
    missing: list[tuple[str, str]] = []
    unresolved: set[tuple[str, str]] = set()
    for line in proc.stderr.splitlines():
        if m := LOAD_ERROR.match(line):
            missing.append((device_realpath(root, m.group("by")), m.group("name")))
        elif m := RELOC_ERROR.match(line):
            unresolved.add((device_realpath(root, m.group("obj")), m.group("sym")))
        else:
            raise AssertionError(f"unexpected loader message {line!r}")
    assert (proc.returncode == 127) == bool(missing or unresolved), proc.stderr
    return ListResult(order, names, missing, unresolved, proc.stdout + proc.stderr)


def musl_run(root: Path, exe: str) -> RunResult:
    # Started through the loader rather than by the kernel: for a kernel-mapped program musl
    # takes $ORIGIN from readlink("/proc/self/exe"), and the chroot has no /proc mounted.
    proc = run(["chroot", str(root), INTERP, exe], check=False)
    binds: list[tuple[str, str, str]] = []
    unresolved: list[tuple[str, str]] = []
    for line in proc.stdout.splitlines():
        parts = line.split(" ")
        if parts[0] == "BIND" and len(parts) == 4:
            binds.append((device_realpath(root, parts[1]), parts[2], device_realpath(root, parts[3])))
        elif parts[0] == "UNRESOLVED" and len(parts) == 3:
            unresolved.append((device_realpath(root, parts[1]), parts[2]))
        else:
            raise AssertionError(f"{exe}: unexpected output line {line!r}")
    return RunResult(proc.returncode, binds, unresolved, proc.stdout + proc.stderr)
