"""Build small root filesystems from C sources with gcc, scan them, and ask the real loader.

The C sources live beside the tests (``tests/fixtures/<case>/*.c``); the build recipe is Python,
in the test that uses them.  A :class:`Root` is a directory laid out like a device's root
filesystem (``ROOT/usr/bin/...``, ``ROOT/lib/...``, ``ROOT/etc/ld.so.conf``); every path the
helpers take or return is a *device* path (absolute, as the device sees it), :meth:`Root.host`
turns it into the host path inside the root directory.

Every root gets copies of the host's glibc: the real ``ld-linux-x86-64.so.2`` at
``/lib/x86_64-linux-gnu`` with the Debian-style absolute link ``/lib64/ld-linux-x86-64.so.2 ->
/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2`` (the PT_INTERP gcc writes), and ``libc.so.6`` beside
it, so link maps are complete.

The judge (:func:`real_loader`) is the host's own glibc loader *running inside the root*: the
child process ``chroot``s into the root directory and executes the root's copy of ld.so in trace
mode (``LD_TRACE_LOADED_OBJECTS=1 LD_WARN=yes LD_BIND_NOW=1 LD_DEBUG=bindings``, see
``oracle.py`` for what that prints).  Inside the chroot the loader sees exactly the device world
the scanner sees: absolute RPATH/RUNPATH, ``$ORIGIN``, the default directories, the root's own
``/etc/ld.so.cache``, symlinks.  The environment variables reach only the loader (the chroot is
done in the forked child before exec), never a host tool.  As root this is a plain ``chroot``;
otherwise the child first enters a new user namespace where it is root.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import struct
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import linkgraph_cmd
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile

from .oracle import BindingKey, GlibcTrace, parse_bindings, parse_trace_list, resolve_in_root

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INTERP = "/lib64/ld-linux-x86-64.so.2"
MULTIARCH = "/lib/x86_64-linux-gnu"
HOST_LDSO = Path(os.path.realpath(INTERP))
HOST_LIBC = Path(os.path.realpath(f"{MULTIARCH}/libc.so.6"))
LDCONFIG = shutil.which("ldconfig") or "/sbin/ldconfig"
GCC = shutil.which("gcc") or "gcc"
TIMEOUT = 120.0

EM_AARCH64 = 183
PT_LOAD = 1
CLONE_NEWUSER = 0x10000000


class BuildError(AssertionError):
    """gcc, ldconfig or the real loader failed on a fixture: the test fails (never skipped)."""


def _run(cmd: Sequence[str], what: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=TIMEOUT, **kwargs)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc


# --------------------------------------------------------------------------- the root


@dataclass
class Root:
    """A device root filesystem under construction in a host directory."""

    path: Path
    build: Path = field(init=False)  # link-time-only stubs, never part of the root
    built: list[str] = field(default_factory=list)  # device paths of the objects compiled here
    executables: list[str] = field(default_factory=list)  # the executables among them
    lib_dirs: list[str] = field(default_factory=list)  # device dirs holding built libraries

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.build = self.path.parent / f"{self.path.name}.build"
        self.build.mkdir(parents=True, exist_ok=True)

    # ----------------------------------------------------------------- paths

    def host(self, device: str) -> Path:
        """Host path of a device path (no symlink resolution)."""
        if not device.startswith("/"):
            raise ValueError(f"device paths are absolute: {device!r}")
        return Path(str(self.path) + device)

    def canonical(self, device: str) -> str:
        """The device path with symlinks resolved inside the root."""
        return resolve_in_root(str(self.path), device)

    def _out(self, device: str) -> Path:
        out = self.host(device)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists() or out.is_symlink():
            out.unlink()
        return out

    # ----------------------------------------------------------------- content

    def install_glibc(self) -> None:
        """The host's ld.so and libc.so.6, Debian style: real files in /lib/x86_64-linux-gnu."""
        ldso = f"{MULTIARCH}/ld-linux-x86-64.so.2"
        shutil.copy2(HOST_LDSO, self._out(ldso))
        shutil.copy2(HOST_LIBC, self._out(f"{MULTIARCH}/libc.so.6"))
        self.symlink(INTERP, ldso)

    def symlink(self, device: str, target: str) -> None:
        """Create a symlink at *device* whose text is *target* (absolute = inside the root)."""
        os.symlink(target, self._out(device))

    def write(self, device: str, text: str) -> None:
        self._out(device).write_text(text)

    def remove(self, device: str) -> None:
        self.host(device).unlink()

    def copy_file(self, src: Path, device: str) -> str:
        out = self._out(device)
        shutil.copy2(src, out)
        return device

    def ldconfig(self) -> None:
        """Build ROOT/etc/ld.so.cache from ROOT/etc/ld.so.conf with the real ldconfig (links untouched)."""
        self.host("/etc").mkdir(parents=True, exist_ok=True)
        if not self.host("/etc/ld.so.conf").exists():
            self.write("/etc/ld.so.conf", "")
        _run([LDCONFIG, "-X", "-r", str(self.path)], "ldconfig")
        if not self.host("/etc/ld.so.cache").is_file():
            raise BuildError(f"ldconfig -r {self.path} wrote no cache")

    def clone(self, dest: Path) -> Root:
        """A copy of this root (symlinks copied as symlinks) at *dest*."""
        shutil.copytree(self.path, dest, symlinks=True)
        other = Root(dest)
        other.built = list(self.built)
        other.executables = list(self.executables)
        other.lib_dirs = list(self.lib_dirs)
        return other

    # ----------------------------------------------------------------- gcc

    def _link_inputs(self, needs: Iterable[str | Path]) -> list[str]:
        out = []
        for item in needs:
            path = item if isinstance(item, Path) else self.host(item)
            if not path.exists():
                raise BuildError(f"link input {item} does not exist")
            out.append(str(path))
        return out

    def _common_flags(
        self,
        sources: Sequence[str],
        needs: Iterable[str | Path],
        rpath: str | None,
        runpath: str | None,
        link_dirs: Iterable[str] | None,
    ) -> list[str]:
        srcs = []
        for src in sources:
            path = FIXTURES / src
            if not path.is_file():
                raise BuildError(f"fixture source {path} missing")
            srcs.append(str(path))
        flags = ["-O0", "-g0", *srcs, "-Wl,--no-as-needed", *self._link_inputs(needs)]
        if rpath is not None and runpath is not None:
            raise ValueError("ld writes one of DT_RPATH / DT_RUNPATH; patch the binary for both")
        if rpath is not None:
            flags += ["-Wl,--disable-new-dtags", f"-Wl,-rpath,{rpath}"]
        if runpath is not None:
            flags += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{runpath}"]
        dirs = self.lib_dirs if link_dirs is None else list(link_dirs)
        for d in dirs:
            flags.append(f"-Wl,-rpath-link,{self.host(d)}")
        return flags

    def _compile(self, out: Path, cmd: list[str]) -> None:
        _run([GCC, *cmd, "-o", str(out)], f"gcc for {out.name}", cwd=str(self.build))

    def lib(
        self,
        device: str,
        sources: Sequence[str],
        *,
        soname: str | None = None,
        needs: Sequence[str | Path] = (),
        rpath: str | None = None,
        runpath: str | None = None,
        version_script: str | None = None,
        cflags: Sequence[str] = (),
        ldflags: Sequence[str] = (),
        link_dirs: Iterable[str] | None = None,
        m32: bool = False,
    ) -> str:
        """Compile a shared library into the root at *device*; soname defaults to the file name."""
        out = self._out(device)
        self._build_lib(
            out,
            sources,
            soname or out.name,
            needs,
            rpath,
            runpath,
            version_script,
            cflags,
            ldflags,
            link_dirs,
            m32,
        )
        self.built.append(device)
        parent = os.path.dirname(device)
        if parent not in self.lib_dirs:
            self.lib_dirs.append(parent)
        return device

    def stub(
        self,
        name: str,
        sources: Sequence[str],
        *,
        soname: str | None = None,
        needs: Sequence[str | Path] = (),
        version_script: str | None = None,
        cflags: Sequence[str] = (),
        ldflags: Sequence[str] = (),
    ) -> Path:
        """A link-time-only library in the build directory (never part of the root)."""
        out = self.build / "stubs" / name
        out.parent.mkdir(parents=True, exist_ok=True)
        self._build_lib(out, sources, soname or name, needs, None, None, version_script, cflags, ldflags, (), False)
        return out

    def _build_lib(
        self,
        out: Path,
        sources: Sequence[str],
        soname: str,
        needs: Sequence[str | Path],
        rpath: str | None,
        runpath: str | None,
        version_script: str | None,
        cflags: Sequence[str],
        ldflags: Sequence[str],
        link_dirs: Iterable[str] | None,
        m32: bool,
    ) -> None:
        cmd = ["-shared", "-fPIC", f"-Wl,-soname,{soname}", *cflags]
        if m32:
            # No 32-bit C library is installed: a self-contained i386 object, which is all a
            # wrong-class candidate needs to be.
            cmd += ["-m32", "-nostdlib"]
        cmd += self._common_flags(sources, needs, rpath, runpath, link_dirs)
        if version_script is not None:
            cmd.append(f"-Wl,--version-script={FIXTURES / version_script}")
        cmd += list(ldflags)
        self._compile(out, cmd)

    def exe(
        self,
        device: str,
        sources: Sequence[str],
        *,
        needs: Sequence[str | Path] = (),
        rpath: str | None = None,
        runpath: str | None = None,
        pie: bool = True,
        cflags: Sequence[str] = (),
        ldflags: Sequence[str] = (),
        link_dirs: Iterable[str] | None = None,
    ) -> str:
        """Compile an executable into the root (PT_INTERP /lib64/ld-linux-x86-64.so.2)."""
        out = self._out(device)
        cmd = [*cflags, "-pie" if pie else "-no-pie", *(("-fPIE",) if pie else ("-fno-pie",))]
        cmd += self._common_flags(sources, needs, rpath, runpath, link_dirs)
        cmd += list(ldflags)
        self._compile(out, cmd)
        self.built.append(device)
        self.executables.append(device)
        return device


# --------------------------------------------------------------------------- ELF surgery


def copied_symbols(host_path: Path) -> set[str]:
    """Names of an executable's copies of library data: its R_*_COPY targets and their aliases.

    Read from readelf (the GNU reference), so the expectation does not come from linkgraph."""
    relocs = subprocess.run(["readelf", "-W", "-r", str(host_path)], capture_output=True, text=True).stdout
    addresses = {line.split()[0].lstrip("0") for line in relocs.splitlines() if "_COPY" in line}
    if not addresses:
        return set()
    syms = subprocess.run(["readelf", "-W", "--dyn-syms", str(host_path)], capture_output=True, text=True).stdout
    names = set()
    for line in syms.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[0].endswith(":") and cols[1].lstrip("0") in addresses and cols[6] != "UND":
            names.add(cols[7].split("@")[0])
    return names


def defined_symbols(host_path: Path) -> set[str]:
    """Names an object's dynamic symbol table defines for others (global or weak, not hidden or
    internal), read from readelf (the GNU reference), so interposition is not judged by linkgraph."""
    syms = subprocess.run(["readelf", "-W", "--dyn-syms", str(host_path)], capture_output=True, text=True).stdout
    names = set()
    for line in syms.splitlines():
        cols = line.split()
        exported = len(cols) >= 8 and cols[0].endswith(":") and cols[6] != "UND" and cols[4] in ("GLOBAL", "WEAK")
        # a non-default version (name@VER, not name@@VER) serves only references asking for it
        hidden_version = "@" in cols[7] and "@@" not in cols[7] if exported else False
        if exported and cols[5] in ("DEFAULT", "PROTECTED") and not hidden_version:
            names.add(cols[7].split("@")[0])
    return names


def elf_dynamic(host_path: Path) -> tuple[str | None, list[str]]:
    """(DT_SONAME, DT_NEEDED in order) read through the program headers only (works on sstripped files)."""
    soname: str | None = None
    needed: list[str] = []
    with open(host_path, "rb") as fh:
        elf = ELFFile(fh)
        for seg in elf.iter_segments():
            if isinstance(seg, DynamicSegment):
                for tag in seg.iter_tags():
                    if tag.entry.d_tag == "DT_NEEDED":
                        needed.append(tag.needed)
                    elif tag.entry.d_tag == "DT_SONAME":
                        soname = tag.soname
    return soname, needed


def install_host_loader(root: Path, program: Path) -> str:
    """The host's loader copied to ``program``'s PT_INTERP path inside ``root``: without it the
    device could not start the program (linkgraph reports ``interpreter-missing``, no link map).
    Returns that path."""
    with open(program, "rb") as fh:
        interp = next(seg.get_interp_name() for seg in ELFFile(fh).iter_segments() if seg["p_type"] == "PT_INTERP")
    dest = root / interp.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists():
        shutil.copy2(os.path.realpath(interp), dest)
    return interp


def _header_layout(data: bytes | bytearray) -> tuple[str, bool]:
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    return ("<" if data[5] == 1 else ">"), data[4] == 2


def set_machine(host_path: Path, machine: int) -> None:
    """Overwrite e_machine (the file is otherwise untouched)."""
    data = bytearray(host_path.read_bytes())
    endian, _ = _header_layout(data)
    struct.pack_into(endian + "H", data, 18, machine)
    host_path.write_bytes(bytes(data))


def sstrip(host_path: Path) -> int:
    """What ELFkickers' sstrip does: no section headers, nothing after the last loaded byte.

    e_shoff, e_shnum and e_shstrndx become 0 and the file is cut after the furthest file extent of
    a PT_LOAD segment (or the program header table, if that ends later).  Returns the new size.
    """
    data = bytearray(host_path.read_bytes())
    endian, is64 = _header_layout(data)
    if is64:
        phoff, shoff_at = struct.unpack_from(endian + "Q", data, 0x20)[0], 0x28
        phentsize, phnum = struct.unpack_from(endian + "HH", data, 0x36)
        shnum_at, shstrndx_at = 0x3C, 0x3E
    else:
        phoff, shoff_at = struct.unpack_from(endian + "I", data, 0x1C)[0], 0x20
        phentsize, phnum = struct.unpack_from(endian + "HH", data, 0x2A)
        shnum_at, shstrndx_at = 0x30, 0x32
    end = phoff + phentsize * phnum
    for i in range(phnum):
        at = phoff + i * phentsize
        if is64:
            p_type = struct.unpack_from(endian + "I", data, at)[0]
            p_offset = struct.unpack_from(endian + "Q", data, at + 8)[0]
            p_filesz = struct.unpack_from(endian + "Q", data, at + 32)[0]
        else:
            p_type, p_offset = struct.unpack_from(endian + "II", data, at)
            p_filesz = struct.unpack_from(endian + "I", data, at + 16)[0]
        if p_type == PT_LOAD:
            end = max(end, p_offset + p_filesz)
    struct.pack_into(endian + ("Q" if is64 else "I"), data, shoff_at, 0)
    struct.pack_into(endian + "H", data, shnum_at, 0)
    struct.pack_into(endian + "H", data, shstrndx_at, 0)
    del data[end:]
    host_path.write_bytes(bytes(data))
    return end


DT_RUNPATH = 29
DT_AUDIT = 0x6FFFFEFC


def retag_dynamic(host_path: Path, old_tag: int, new_tag: int) -> None:
    """Change the d_tag of the (single) dynamic entry *old_tag* to *new_tag*, in place (ELF64 LE)."""
    data = bytearray(host_path.read_bytes())
    endian, is64 = _header_layout(data)
    if not is64 or endian != "<":
        raise ValueError("retag_dynamic handles ELF64 little-endian only")
    with open(host_path, "rb") as fh:
        elf = ELFFile(fh)
        dyn = next(s for s in elf.iter_segments() if s["p_type"] == "PT_DYNAMIC")
        offset, size = dyn["p_offset"], dyn["p_filesz"]
    hits = 0
    for at in range(offset, offset + size, 16):
        if struct.unpack_from("<q", data, at)[0] == old_tag:
            struct.pack_into("<q", data, at, new_tag)
            hits += 1
    if hits != 1:
        raise BuildError(f"{host_path}: expected one dynamic tag {old_tag:#x}, found {hits}")
    host_path.write_bytes(bytes(data))


# --------------------------------------------------------------------------- the real loader


def _enter_root(root: str) -> Callable[[], None]:
    uid, gid = os.getuid(), os.getgid()

    def enter() -> None:  # runs in the forked child, before exec
        if uid != 0:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(CLONE_NEWUSER) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
            with open("/proc/self/setgroups", "w") as fh:
                fh.write("deny")
            with open("/proc/self/uid_map", "w") as fh:
                fh.write(f"0 {uid} 1")
            with open("/proc/self/gid_map", "w") as fh:
                fh.write(f"0 {gid} 1")
        os.chroot(root)
        os.chdir("/")

    return enter


def run_in_root(root: Root, argv: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run *argv* (device paths) chrooted into *root* with exactly *env*."""
    return subprocess.run(
        list(argv),
        env=env,
        preexec_fn=_enter_root(str(root.path)),
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=TIMEOUT,
    )


TRACE_ENV = {
    "LD_TRACE_LOADED_OBJECTS": "1",
    "LD_WARN": "yes",
    "LD_BIND_NOW": "1",
    "LD_DEBUG": "bindings",
    "LC_ALL": "C",
    "PATH": "/usr/bin:/bin",
}

_UNDEFINED_PREFIX = "undefined symbol: "


def real_loader(root: Root, executable: str) -> GlibcTrace:
    """The real glibc loader's link map and bindings for *executable* (a device path) in *root*.

    Works for libraries too (ld.so maps a shared object given as program, as ``ldd`` does).
    Every path in the answer is canonical (symlinks resolved inside the root).  The loader's
    own references are absent from trace mode (see oracle.py); :func:`real_run` shows them.
    """
    exe = root.canonical(executable)
    proc = run_in_root(root, [INTERP, exe], dict(TRACE_ENV))
    if proc.returncode != 0:
        raise BuildError(f"real ld.so on {exe} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-3000:]}")
    lines, static = parse_trace_list(proc.stdout)
    trace = GlibcTrace(
        executable=exe,
        interpreter=root.canonical(INTERP),
        objects=[exe] + [root.canonical(t.path) for t in lines if t.path is not None],
        missing=[t.name for t in lines if t.path is None],
        static=static,
        raw_list=lines,
    )
    for module, symbol, version, provider, protected in parse_bindings(proc.stderr):
        if "/" not in module or "/" not in provider:
            continue  # the vDSO binds its own symbols
        key = (root.canonical(module), symbol, version, root.canonical(provider))
        trace.bindings.add(key)
        if protected:
            trace.protected.add(key)
    for raw in (proc.stdout + proc.stderr).splitlines():
        if "version `" in raw and "not found" in raw:
            trace.version_errors.append(raw)
        if not raw.startswith(_UNDEFINED_PREFIX) or "\t(" not in raw:
            continue
        what, _, where = raw[len(_UNDEFINED_PREFIX) :].rpartition("\t(")
        symbol, _, version = what.partition(", version ")
        trace.undefined.append((symbol, version or None, root.canonical(where.rstrip(")"))))
    return trace


def real_run(root: Root, executable: str) -> tuple[subprocess.CompletedProcess[str], set[BindingKey]]:
    """Really start *executable* in *root* (``LD_BIND_NOW=1 LD_DEBUG=bindings``): output and bindings.

    Unlike trace mode this shows the interpreter re-relocating itself against the global scope.
    It also shows ld.so's own start-up lookups (malloc & co. looked up "from" the executable),
    which are no relocations: callers pick the lines they compare.
    """
    exe = root.canonical(executable)
    env = {"LD_BIND_NOW": "1", "LD_DEBUG": "bindings", "LC_ALL": "C", "PATH": "/usr/bin:/bin"}
    proc = run_in_root(root, [exe], env)
    keys = {
        (root.canonical(m), s, v, root.canonical(p))
        for m, s, v, p, _ in parse_bindings(proc.stderr)
        if "/" in m and "/" in p
    }
    return proc, keys


# --------------------------------------------------------------------------- linkgraph


@dataclass
class Scan:
    """One ``linkgraph scan`` + ``linkgraph report --format json`` of a root."""

    rc: int
    stdout: str
    stderr: str
    report: dict[str, Any]

    # ----------------------------------------------------------------- views

    def module(self, path: str) -> dict[str, Any]:
        hits = [m for m in self.report["modules"] if m["path"] == path]
        assert len(hits) == 1, f"module {path}: {len(hits)} entries"
        return hits[0]

    def link_map(self, executable: str) -> dict[str, Any]:
        hits = [m for m in self.report["link_maps"] if m["executable"] == executable]
        assert len(hits) == 1, f"link map of {executable}: {len(hits)} entries"
        return hits[0]

    def edges(self, source: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.report["dependencies"] if source is None or e["from"] == source]

    def edge_set(self, source: str | None = None) -> set[tuple[str, str, str | None, str, tuple[str, ...]]]:
        """(from, soname, to, status, sorted symbols) of every dependency edge (of *source*)."""
        return {(e["from"], e["soname"], e["to"], e["status"], tuple(sorted(e["symbols"]))) for e in self.edges(source)}

    def bindings(self, executable: str, modules: Iterable[str] | None = None) -> set[BindingKey]:
        keep = None if modules is None else set(modules)
        return {
            (b["module"], b["symbol"], b["version"], b["provider"])
            for b in self.report["bindings"]
            if b["executable"] == executable and (keep is None or b["module"] in keep)
        }

    def unresolved(self, executable: str) -> set[tuple[str, str, str | None, bool]]:
        """(module, symbol, version, weak) of the unresolved references in *executable*'s map."""
        return {
            (u["module"], u["symbol"], u["version"], u["weak"])
            for u in self.report["unresolved"]
            if u["executable"] == executable
        }

    def duplicates(self, executable: str) -> dict[str, dict[str, Any]]:
        return {d["symbol"]: d for d in self.report["duplicates"] if d["executable"] == executable}

    def problems(self, severity: str | None = None) -> list[dict[str, Any]]:
        return [p for p in self.report["problems"] if severity is None or p["severity"] == severity]


def scan(root: Root, workdir: Path, name: str = "fixture", extra: Sequence[str] = ()) -> Scan:
    """``linkgraph scan ROOT --db DB --quiet [EXTRA]`` then ``linkgraph report --db DB --format json``."""
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / f"{name}.lbdb"
    cmd = linkgraph_cmd()
    proc = subprocess.run(
        [*cmd, "scan", str(root.path), "--db", str(db), "--name", name, "--quiet", *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), f"linkgraph scan exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    rep = subprocess.run(
        [*cmd, "report", "--db", str(db), "--format", "json"], capture_output=True, text=True, timeout=600
    )
    assert rep.returncode == 0, f"linkgraph report exited {rep.returncode}:\n{rep.stderr}"
    report = json.loads(rep.stdout)
    assert report.get("schema") == "linkgraph-report/1", report.get("schema")
    return Scan(proc.returncode, proc.stdout, proc.stderr, report)


# --------------------------------------------------------------------------- comparisons


def fmt(items: Iterable[Any]) -> str:
    return "\n    ".join(sorted(map(repr, items))) or "(none)"


def diff_message(what: str, expected: set[Any], got: set[Any]) -> str:
    return (
        f"{what} differ\n  expected but missing:\n    {fmt(expected - got)}"
        f"\n  reported but not expected:\n    {fmt(got - expected)}"
    )


def assert_same_set(what: str, expected: Iterable[Any], got: Iterable[Any]) -> None:
    exp, act = set(expected), set(got)
    assert exp == act, diff_message(what, exp, act)


def assert_matches_real_loader(result: Scan, trace: GlibcTrace, modules: Iterable[str] | None = None) -> None:
    """The link map, missing sonames, bindings and strong unresolved symbols equal the real loader's.

    *modules* restricts the binding comparison to references made by those objects (default:
    every object of the map except the interpreter, whose own references trace mode never shows).
    """
    exe = trace.executable
    lm = result.link_map(exe)
    assert lm["objects"] == trace.objects, (
        f"load order of {exe}\n  real loader: {trace.objects}\n  linkgraph:   {lm['objects']}"
    )
    assert sorted(lm["missing"]) == sorted(trace.missing), (
        f"missing of {exe}: real loader {trace.missing}, linkgraph {lm['missing']}"
    )
    keep = set(modules) if modules is not None else set(trace.objects) - {trace.interpreter}
    expected = {b for b in trace.bindings if b[0] in keep}
    assert_same_set(f"bindings of {exe} (modules {sorted(keep)})", expected, result.bindings(exe, keep))
    strong = {(mod, sym, ver) for sym, ver, mod in trace.undefined}
    got = {(m, s, v) for m, s, v, weak in result.unresolved(exe) if not weak}
    assert_same_set(f"strong unresolved references of {exe}", strong, got)


EdgeKey = tuple[str, str | None, str | None, str, tuple[str, ...]]
DEFAULT_DIRS = [MULTIARCH, "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"]


def _needed_targets(root: Root, trace: GlibcTrace) -> Callable[[str], str | None]:
    """How ld.so matched a NEEDED name in *trace*: the name it printed, a loaded object's soname, or
    (a name never printed, e.g. ``libx.so`` after ``libx.so.1``) a file it opened and recognised
    as already loaded (same inode), looked for beside the printed paths and in the default dirs."""
    by_name: dict[str, str | None] = {}
    dirs: list[str] = []
    for t in trace.raw_list:
        by_name.setdefault(t.name, root.canonical(t.path) if t.path is not None else None)
        if t.path is not None and os.path.dirname(t.path) not in dirs:
            dirs.append(os.path.dirname(t.path))
    for obj in trace.objects:
        soname = elf_dynamic(root.host(obj))[0]
        if soname is not None:
            by_name.setdefault(soname, obj)
    loaded = set(trace.objects)

    def target(name: str) -> str | None:
        if name in by_name:
            return by_name[name]
        for d in [*dirs, *DEFAULT_DIRS]:
            candidate = root.canonical(f"{d}/{name}")
            if candidate in loaded:
                return candidate
        raise BuildError(f"cannot tell which object ld.so used for NEEDED {name} in {trace.executable}")

    return target


def edges_from_traces(root: Root, traces: Iterable[GlibcTrace], skip: Iterable[str] = ()) -> set[EdgeKey]:
    """Dependency edges as the real loader's answers define them (contract statuses).

    For every object of every traced link map: each DT_NEEDED entry is resolved the way ld.so
    matched it, and its symbols are the object's bindings to that target; a binding to an object
    it does not declare makes a hidden edge (soname = the provider's soname, or its file name), or an interposed one
    when every such binding is interposition: the provider is outside the object's own dependency
    tree (its DT_NEEDED closure as ld.so resolved it) and an object of that tree defines the symbol
    too; or an upcall one when every such binding that is no interposition is an upcall: the
    provider is outside the object's own tree and the object is in the provider's own tree (the
    provider loads it).  Edges from *skip* objects (e.g. the interpreter, whose references trace mode does not
    show) are left out.  Link maps are merged (union).  Returns (from, soname, to, status, sorted
    symbols) like :meth:`Scan.edge_set`.
    """
    skipped = set(skip)
    copy_cache: dict[str, set[str]] = {}
    defined_cache: dict[str, set[str]] = {}

    def copies(provider: str) -> set[str]:
        # A binding to an executable's copy of library data is not a dependency (docs/report.md).
        if provider not in copy_cache:
            copy_cache[provider] = copied_symbols(root.host(provider))
        return copy_cache[provider]

    def defines(obj: str, symbol: str) -> bool:
        if obj not in defined_cache:
            defined_cache[obj] = defined_symbols(root.host(obj))
        return symbol in defined_cache[obj]

    symbols: dict[tuple[str, str], set[str]] = defaultdict(set)
    interposed: dict[tuple[str, str], set[str]] = defaultdict(set)
    upcalls: dict[tuple[str, str], set[str]] = defaultdict(set)
    declared: dict[str, list[tuple[str, str | None]]] = {}
    for trace in traces:
        target = _needed_targets(root, trace)
        needs = {obj: [target(n) for n in elf_dynamic(root.host(obj))[1]] for obj in trace.objects}
        for obj in trace.objects:
            if obj not in skipped:
                declared[obj] = [(n, target(n)) for n in elf_dynamic(root.host(obj))[1]]
        for module, symbol, _version, provider in trace.bindings:
            if module not in skipped and module != provider and symbol not in copies(provider):
                tree = _closure(module, needs)
                if provider not in tree and any(defines(o, symbol) for o in tree):
                    interposed[(module, provider)].add(symbol)
                elif provider not in tree and module in _closure(provider, needs):
                    upcalls[(module, provider)].add(symbol)
                else:
                    symbols[(module, provider)].add(symbol)
    edges: set[EdgeKey] = set()
    for obj, needs in declared.items():
        targets = {t for _, t in needs}
        for name, to in needs:
            if to is None:
                edges.add((obj, name, None, "missing", ()))
            else:
                syms = tuple(sorted(symbols.get((obj, to), ())))
                edges.add((obj, name, to, "used" if syms else "declared-unused", syms))
        for kind, found in (("hidden", symbols), ("upcall", upcalls), ("interposed", interposed)):
            for (source, provider), syms in found.items():
                if source != obj or provider in targets:
                    continue
                if kind != "hidden" and symbols.get((source, provider)):
                    continue  # a binding the object needs beside them: a hidden edge
                if kind == "interposed" and upcalls.get((source, provider)):
                    continue  # an upcall beside interposition: an upcall edge
                soname = elf_dynamic(root.host(provider))[0] or provider.rsplit("/", 1)[1]  # a program: its name
                edges.add((obj, soname, provider, kind, tuple(sorted(syms))))
    return edges


def own_tree(root: Root, trace: GlibcTrace, obj: str) -> set[str]:
    """*obj* and the breadth-first closure of its DT_NEEDED, as loaded in *trace*'s link map."""
    dynamic = {loaded: elf_dynamic(root.host(loaded)) for loaded in trace.objects}
    by_name: dict[str, str] = {}
    for loaded, (soname, _) in dynamic.items():
        by_name.setdefault(soname or loaded.rsplit("/", 1)[1], loaded)
    tree, queue = [obj], [obj]
    while queue:
        for name in dynamic[queue.pop(0)][1]:
            target = by_name.get(name)
            if target is not None and target not in tree:
                tree.append(target)
                queue.append(target)
    return set(tree)


def _closure(obj: str, needs: dict[str, list[str | None]]) -> set[str]:
    """``obj`` and every object its DT_NEEDED entries load, transitively (as ld.so resolved them)."""
    seen, queue = {obj}, [obj]
    for current in queue:
        for found in needs.get(current, ()):
            if found is not None and found not in seen:
                seen.add(found)
                queue.append(found)
    return seen


def two_library_root(path: Path, program: str = "/usr/bin/prog") -> Root:
    """A root with glibc and ``program`` needing libalpha.so (which needs libbeta.so) and libbeta.so."""
    root = Root(path)
    root.install_glibc()
    root.lib("/usr/lib/libbeta.so", ["loader_rules/onefn.c"], cflags=["-DFN=v_fn"])
    root.lib(
        "/usr/lib/libalpha.so",
        ["loader_rules/callfn.c"],
        cflags=["-DFN=x_fn", "-DCALLEE=v_fn"],
        needs=["/usr/lib/libbeta.so"],
    )
    root.exe(program, ["loader_rules/x_main.c"], needs=["/usr/lib/libalpha.so", "/usr/lib/libbeta.so"])
    return root
