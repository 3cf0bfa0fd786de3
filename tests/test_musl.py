"""linkgraph's musl loader emulation, judged by musl's own dynamic loader.

The fixtures (C sources in tests/fixtures/musl/) are built with ``musl-gcc`` into three root
filesystems that hold the same files and differ only in ``/etc/ld-musl-x86_64.path``:

* ``pathfile``: the file lists "/opt/custom/lib", "/usr/lib" and "/lib" (newline and colon
  separated); ``/usr/local/lib`` is not listed;
* ``default``: no path file, so musl searches its built-in "/lib:/usr/local/lib:/usr/lib";
* ``empty``: an empty path file, so musl searches no system directory at all (only
  RPATH/RUNPATH and names with a slash work).

Two oracles, both the real musl loader of the host (``dpkg -L musl``) copied into each root
and run under ``chroot`` so that the root's own path file is honoured:

* ``chroot ROOT /lib/ld-musl-x86_64.so.1 --list /usr/bin/EXE`` prints the load order
  (``name => path`` lines as each object is loaded), ``Error loading shared library NAME``
  for each missing one and ``Error relocating OBJ: SYM: symbol not found`` for each non-weak
  reference nothing defines;
* ``chroot ROOT /lib/ld-musl-x86_64.so.1 /usr/bin/EXE`` runs the program (through the loader
  so that $ORIGIN works without /proc in the chroot); every fixture object reports, through
  ``dladdr``, which file the loader bound each of its references to (see lgreport.h).

linkgraph's report must agree with both: link maps equal the ``--list`` order, missing
dependencies equal the loader's errors, bindings equal what the programs printed.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph_cmd

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

FIXTURES = Path(__file__).parent / "fixtures" / "musl"
INTERP = "/lib/ld-musl-x86_64.so.1"
ROOT_KINDS = ("pathfile", "default", "empty")
PATH_FILE_TEXT = "/opt/custom/lib\n/usr/lib:/lib\n"
EXECUTABLES = ("order", "rpathprog", "oddrpath", "names", "defaults")
# Which programs run to completion in which root (the others miss a library by design).
RUNNABLE = {
    "pathfile": {"order", "rpathprog", "oddrpath", "names"},
    "default": {"rpathprog", "oddrpath", "names", "defaults"},
    "empty": {"rpathprog"},
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


# ----------------------------------------------------------------------------- scenario


@dataclass
class Scenario:
    kind: str
    root: Path
    report: dict[str, Any]
    lists: dict[str, ListResult] = field(default_factory=dict)
    runs: dict[str, RunResult] = field(default_factory=dict)
    before_scan: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    after_scan: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)

    def exe_path(self, name: str) -> str:
        return f"/usr/bin/{name}"

    def link_map(self, exe: str) -> dict[str, Any]:
        maps = [m for m in self.report["link_maps"] if m["executable"] == exe]
        assert len(maps) == 1, f"{exe}: {len(maps)} link maps in the report"
        return maps[0]

    def module(self, path: str) -> dict[str, Any]:
        mods = [m for m in self.report["modules"] if m["path"] == path]
        assert len(mods) == 1, f"{path}: {len(mods)} modules in the report"
        return mods[0]


@pytest.fixture(scope="session")
def musl_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("musl-build")
    build_all(build)
    return build


@pytest.fixture(scope="module", params=ROOT_KINDS)
def scenario(
    request: pytest.FixtureRequest, musl_build: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Scenario]:
    kind: str = request.param
    base = tmp_path_factory.mktemp(f"musl-{kind}")
    root = base / "root"
    make_root(root, musl_build, kind)
    before = snapshot(root)
    db = base / "db"
    scan = run(
        [*linkgraph_cmd(), "scan", str(root), "--db", str(db), "--name", f"musl-{kind}", "--quiet"],
        check=False,
        timeout=600,
        env=dict(os.environ),
    )
    assert scan.returncode in (0, 1), f"scan failed ({scan.returncode}):\n{scan.stdout}\n{scan.stderr}"
    rep = run([*linkgraph_cmd(), "report", "--db", str(db), "--format", "json"], timeout=300, env=dict(os.environ))
    sc = Scenario(kind, root, json.loads(rep.stdout), before_scan=before, after_scan=snapshot(root))
    for name in EXECUTABLES:
        exe = sc.exe_path(name)
        sc.lists[exe] = musl_list(root, exe)
        sc.runs[exe] = musl_run(root, exe)
    return sc


# ----------------------------------------------------------------------------- fixture checks


def test_fixture_binaries_have_the_dynamic_sections_the_cases_need(musl_build: Path) -> None:
    """readelf confirms the builds carry the NEEDED/RPATH/RUNPATH/versions the cases rely on."""
    order = readelf_dynamic(musl_build / "bin/order")
    assert order["NEEDED"] == [
        "libfirst.so.1",
        "libsecond.so.1",
        "libshadow.so.1",
        "libhid.so.1",
        "libvis.so.1",
        "libver.so.1",
        "libearly.so.1",
        "libm.so.6",
        "libc.so",
    ]
    assert readelf_dynamic(musl_build / "bin/rpathprog")["RUNPATH"] == ["$ORIGIN/../lib/app-private"]
    assert readelf_dynamic(musl_build / "link/libpriv.so.1")["RUNPATH"] == ["${ORIGIN}/plugins"]
    odd = readelf_dynamic(musl_build / "bin/oddrpath")
    assert odd["RPATH"] == ["/opt/odd:$PLATFORM/x"] and "RUNPATH" not in odd
    names = readelf_dynamic(musl_build / "bin/names")
    assert names["NEEDED"] == ["/opt/abs/libabs.so.1", "libx.so", "liby.so.1", "libc.so"]
    assert readelf_dynamic(musl_build / "deploy/libx.so")["SONAME"] == ["liby.so.1"]
    syms = run(["readelf", "-W", "--dyn-syms", str(musl_build / "link/libhid.so.1")]).stdout
    assert re.search(r"FUNC\s+GLOBAL\s+DEFAULT\s+\d+ hidfn@H1\b", syms), syms
    vers = run(["readelf", "-W", "-V", str(musl_build / "link/libhid.so.1")]).stdout
    assert re.search(r"\bh\(H1\)|2h\(H1\)", vers), vers
    exe_syms = run(["readelf", "-W", "--dyn-syms", str(musl_build / "bin/order")]).stdout
    assert re.search(r"UND verfn@VER_A\b", exe_syms), exe_syms
    deployed = run(["readelf", "-W", "--dyn-syms", str(musl_build / "deploy/libver.so.1")]).stdout
    assert "verfn@@VER_B" in deployed and "VER_A" not in deployed


def test_oracle_shows_the_musl_rules_the_fixture_is_about(scenario: Scenario) -> None:
    """Guards the fixture, not linkgraph: the real loader does what each case is meant to show."""
    lists, runs = scenario.lists, scenario.runs
    custom_shadow = "/opt/custom/lib/libshadow.so.1"
    if scenario.kind == "pathfile":
        order = runs["/usr/bin/order"]
        assert order.returncode == 0, order.raw
        got = {(m, s): p for m, s, p in order.binds}
        exe = "/usr/bin/order"
        assert got[(exe, "weak_then_global")] == "/opt/custom/lib/libfirst.so.1"  # weak, but first
        assert got[(exe, "global_then_weak")] == "/opt/custom/lib/libfirst.so.1"
        assert got[(exe, "shadow_fn")] == custom_shadow  # path file order
        assert got[(exe, "hidfn")] == "/usr/lib/libvis.so.1"  # hidden version skipped
        assert got[(exe, "verfn")] == "/usr/lib/libver.so.1"  # version name ignored
        assert got[(exe, "atoi")] == "/lib/libearly.so.1"  # loaded before libc
        assert got[(exe, "atol")] == LOADER_PATH  # liblate loads after libc
        assert got[("/opt/custom/lib/libfirst.so.1", "deep_fn")] == "/usr/lib/libsecond.so.1"
        assert (exe, "missing_weak") in order.unresolved
        names = lists["/usr/bin/order"].names
        assert names["libm.so.6"] == LOADER_PATH  # reserved name, not /usr/lib/libm.so.6
        assert lists["/usr/bin/defaults"].missing == [("/usr/bin/defaults", "libonlylocal.so.1")]
        nm = {(m, s): p for m, s, p in runs["/usr/bin/names"].binds}
        assert nm[("/usr/bin/names", "which_y")] == "/usr/lib/libx.so"
        assert nm[("/usr/bin/names", "only_in_y")] == "/usr/lib/liby.so.1"  # soname not reused
        assert "libabs.so.1" not in lists["/usr/bin/names"].names  # same inode: no new load
    if scenario.kind == "default":
        d = {(m, s): p for m, s, p in runs["/usr/bin/defaults"].binds}
        assert d[("/usr/bin/defaults", "shadow_fn")] == "/usr/local/lib/libshadow.so.1"
        assert d[("/usr/bin/defaults", "only_local_fn")] == "/usr/local/lib/libonlylocal.so.1"
    if scenario.kind in ("pathfile", "default"):
        odd = {(m, s): p for m, s, p in runs["/usr/bin/oddrpath"].binds}
        assert odd[("/usr/bin/oddrpath", "odd_fn")] == "/usr/lib/libodd.so.1"  # whole RPATH ignored
    if scenario.kind == "empty":
        assert lists["/usr/bin/defaults"].order == [LOADER_PATH]
    rp = runs["/usr/bin/rpathprog"]
    assert rp.returncode == 0, rp.raw
    r = {(m, s): p for m, s, p in rp.binds}
    assert r[("/usr/bin/rpathprog", "shadow_fn")] == "/usr/lib/app-private/libshadow.so.1"
    assert r[("/usr/lib/app-private/libpriv.so.1", "deep2_fn")] == "/usr/lib/app-private/libdeep2.so.1"
    assert r[("/usr/lib/app-private/plugins/libplug.so.1", "plugdep_fn")] == (
        "/usr/lib/app-private/plugins/libplugdep.so.1"
    )
    for name in EXECUTABLES:
        exe = scenario.exe_path(name)
        assert (runs[exe].returncode == 0) == (name in RUNNABLE[scenario.kind]), runs[exe].raw


# ----------------------------------------------------------------------------- linkgraph vs musl


@pytest.mark.parametrize("name", EXECUTABLES)
def test_module_facts_match_readelf(scenario: Scenario, name: str) -> None:
    exe = scenario.exe_path(name)
    mod = scenario.module(exe)
    dyn = readelf_dynamic(scenario.root / exe.lstrip("/"))
    assert mod["kind"] == "executable"
    assert mod["interpreter"] == INTERP
    assert mod["needed"] == dyn["NEEDED"]
    assert (mod["class"], mod["endian"]) == (64, "little")
    assert "X86_64" in mod["machine"].upper()


def test_interpreter_module_and_its_alias(scenario: Scenario) -> None:
    mod = scenario.module(LOADER_PATH)
    assert INTERP in mod["aliases"]
    assert mod["kind"] in ("library", "executable")


@pytest.mark.parametrize("name", EXECUTABLES)
def test_link_map_equals_musl_list_order(scenario: Scenario, name: str) -> None:
    exe = scenario.exe_path(name)
    oracle = scenario.lists[exe]
    got = scenario.link_map(exe)["objects"]
    assert got == [exe, *oracle.order], f"[{scenario.kind}] {exe}: musl --list said\n{oracle.raw}"


@pytest.mark.parametrize("name", EXECUTABLES)
def test_missing_dependencies_equal_musl_errors(scenario: Scenario, name: str) -> None:
    exe = scenario.exe_path(name)
    oracle = scenario.lists[exe]
    lm = scenario.link_map(exe)
    assert sorted(set(lm["missing"])) == sorted({n for _, n in oracle.missing}), oracle.raw
    for requester, soname in oracle.missing:
        deps = [d for d in scenario.report["dependencies"] if d["from"] == requester and d["soname"] == soname]
        assert deps and all(d["status"] == "missing" and d["to"] is None for d in deps), (
            f"[{scenario.kind}] {requester} NEEDED {soname}: {deps}"
        )


@pytest.mark.parametrize("name", EXECUTABLES)
def test_unresolved_equal_musl_relocation_errors(scenario: Scenario, name: str) -> None:
    exe = scenario.exe_path(name)
    oracle = scenario.lists[exe]
    got = {
        (u["module"], u["symbol"]) for u in scenario.report["unresolved"] if u["executable"] == exe and not u["weak"]
    }
    assert got == oracle.unresolved, f"[{scenario.kind}] {exe}: musl said\n{oracle.raw}"


@pytest.mark.parametrize("name", EXECUTABLES)
def test_bindings_equal_what_the_running_program_saw(scenario: Scenario, name: str) -> None:
    exe = scenario.exe_path(name)
    observed = scenario.runs[exe]
    if observed.returncode != 0:
        assert name not in RUNNABLE[scenario.kind]
        return  # the loader refused to start it: the --list comparisons cover this case
    wrong = []
    for module, symbol, provider in observed.binds:
        got = {
            b["provider"]
            for b in scenario.report["bindings"]
            if b["executable"] == exe and b["module"] == module and b["symbol"] == symbol
        }
        if got != {provider}:
            wrong.append(f"{module} {symbol}: musl bound it to {provider}, linkgraph says {sorted(got)}")
    for module, symbol in observed.unresolved:
        got_u = [
            u
            for u in scenario.report["unresolved"]
            if u["executable"] == exe and u["module"] == module and u["symbol"] == symbol
        ]
        bound = [
            b
            for b in scenario.report["bindings"]
            if b["executable"] == exe and b["module"] == module and b["symbol"] == symbol
        ]
        if not got_u or not all(u["weak"] for u in got_u) or bound:
            wrong.append(
                f"{module} {symbol}: musl left the weak reference unresolved, "
                f"linkgraph says unresolved={got_u} bindings={bound}"
            )
    assert not wrong, f"[{scenario.kind}] {exe}:\n" + "\n".join(wrong)


def test_reserved_libc_names_are_the_loader_itself(scenario: Scenario) -> None:
    """libc.so and libm.so.6 resolve to the interpreter; the decoy /usr/lib/libm.so.6 is never loaded."""
    exe = "/usr/bin/order"
    for soname in ("libm.so.6", "libc.so"):
        deps = [d for d in scenario.report["dependencies"] if d["from"] == exe and d["soname"] == soname]
        assert [d["to"] for d in deps] == [LOADER_PATH], f"[{scenario.kind}] {exe} NEEDED {soname}: {deps}"
    for name in EXECUTABLES:
        objects = scenario.link_map(scenario.exe_path(name))["objects"]
        assert "/usr/lib/libm.so.6" not in objects


def test_dependency_status_follows_musl_bindings(scenario: Scenario) -> None:
    """Edges the run-time report implies: libfirst's deep_fn goes to libsecond (not declared by
    libfirst: hidden), so libfirst -> libdeep is declared-unused; libpriv's shadow_fn goes to
    the app-private libshadow it does not declare (hidden)."""
    deps = scenario.report["dependencies"]

    def edges(src: str, dst: str) -> list[dict[str, Any]]:
        return [d for d in deps if d["from"] == src and d["to"] == dst]

    if scenario.kind == "pathfile":
        first, second = "/opt/custom/lib/libfirst.so.1", "/usr/lib/libsecond.so.1"
        assert ("/opt/custom/lib/libfirst.so.1", "deep_fn", second) in scenario.runs["/usr/bin/order"].binds
        hidden = edges(first, second)
        assert [d["status"] for d in hidden] == ["hidden"] and "deep_fn" in hidden[0]["symbols"], hidden
        unused = edges(first, "/lib/libdeep.so.1")
        assert [d["status"] for d in unused] == ["declared-unused"], unused
        late = edges(first, "/usr/lib/liblate.so.1")
        assert [d["status"] for d in late] == ["used"] and "late_fn" in late[0]["symbols"], late
    priv, shadow = "/usr/lib/app-private/libpriv.so.1", "/usr/lib/app-private/libshadow.so.1"
    assert (priv, "shadow_fn", shadow) in scenario.runs["/usr/bin/rpathprog"].binds
    hidden = edges(priv, shadow)
    assert [d["status"] for d in hidden] == ["hidden"] and "shadow_fn" in hidden[0]["symbols"], hidden
    used = edges(priv, "/usr/lib/app-private/libdeep2.so.1")
    assert [d["status"] for d in used] == ["used"], used


def test_scan_left_the_root_alone(scenario: Scenario) -> None:
    """Scanning reads the root; it must not add, remove or change anything there."""
    assert scenario.after_scan == scenario.before_scan
