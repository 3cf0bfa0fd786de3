"""The foreign glibc loader of a Debian root, run under qemu-user, as the judge for that root.

For an executable of a root made by debian_roots.py (armhf, arm64, mipsel, i386)::

    qemu-ARCH-static -L ROOT -E LD_TRACE_LOADED_OBJECTS=1 -E LD_WARN=yes -E LD_BIND_NOW=yes \\
        -E LD_DEBUG=bindings ROOT/usr/bin/EXE

qemu loads the executable's own ``PT_INTERP`` (``/lib/ld-linux-armhf.so.3`` ...) from ROOT and
starts it as the kernel would; the foreign ld.so then does exactly what oracle.py describes for
x86-64 (same glibc 2.36 source): the ldd list on stdout, one ``binding file A [0] to B [0]:
normal symbol `S' [V]`` line per lookup on stderr, no code of the program run.  How the pieces fit:

* ``-L ROOT`` is qemu's "ELF interpreter prefix": every path the guest opens is looked up under
  ROOT first.  qemu *falls back to the host path* when ``ROOT/path`` does not exist, so a library
  missing from the root could in principle be found on the host; every object in the list is
  therefore checked to exist inside the root (:class:`OracleError` otherwise).  ``/etc/ld.so.cache``
  must exist in the root for the same reason (the host's would be read instead).
* ld.so prints library paths as it opened them (the ld.so.cache string ``/lib/TRIPLET/libc.so.6``,
  the interpreter as its ``PT_INTERP``); the executable is named by its argv[0], i.e. the host
  path ``ROOT/usr/bin/EXE`` that qemu was given.  oracle.PathMapper turns both into canonical
  device paths (root prefix removed, symlinks such as merged-/usr ``lib -> usr/lib`` resolved
  inside the root).
* The executable is passed by its canonical path, so ``$ORIGIN`` (qemu emulates
  ``/proc/self/exe``) is its real folder.
* qemu passes its own environment to the guest: the subprocess gets one without ``LD_*`` and
  ``GLIBC_TUNABLES``, and the loader variables are given with ``-E``.
* As on x86-64, trace mode relocates every object but ld.so itself, so no binding of ld.so's own
  references is printed; :func:`real_run_bindings` runs a program for real (``busybox true``) to
  show that they exist and the tests check both on every architecture.
* ``ldd -u`` is ``LD_DEBUG=unused`` in the same trace mode (without ``LD_WARN``/``LD_BIND_NOW``
  values); :func:`foreign_unused` runs it the same way.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from . import debian_roots, oracle
from .oracle import (
    BindingKey,
    GlibcTrace,
    OracleError,
    PathMapper,
    add_debug_output,
    parse_bindings,
    parse_trace_list,
)
from .qemu_cpu import cpu_for, mips_ases

TIMEOUT = 300.0
BIN_DIRS = ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]
TRACE_ENV = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "yes", "LD_BIND_NOW": "yes", "LD_DEBUG": "bindings"}
UNUSED_ENV = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_DEBUG": "unused"}  # what ldd -u sets (empty = unset)

_DEBUG_LINE_RE = oracle._DEBUG_LINE_RE
_is_vdso = oracle._is_vdso


# --------------------------------------------------------------------------- the root's executables


def elf_interpreter(path: str | os.PathLike[str]) -> str | None:
    """PT_INTERP of an ELF file; None for anything else (scripts, static programs, broken files)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) != b"\x7fELF":
                return None
            fh.seek(0)
            for seg in ELFFile(fh).iter_segments():
                if seg["p_type"] == "PT_INTERP":
                    return seg.get_interp_name()
    except (OSError, ELFError, ValueError):
        return None
    return None


def root_executables(root: str | os.PathLike[str], dirs: Iterable[str] = BIN_DIRS) -> list[str]:
    """Canonical device paths of the dynamic executables (ELF with PT_INTERP) in the root's bin dirs.

    Symlinks (``iptables-legacy -> xtables-legacy-multi``, ``bin -> usr/bin``) count once, by
    their target.
    """
    mapper = PathMapper(root)
    found: set[str] = set()
    for folder in dirs:
        canonical_dir = mapper(folder)
        host_dir = mapper.root + canonical_dir
        if not os.path.isdir(host_dir):
            continue
        for name in os.listdir(host_dir):
            device = mapper(f"{canonical_dir}/{name}")
            host = mapper.root + device
            if device not in found and os.path.isfile(host) and elf_interpreter(host) is not None:
                found.add(device)
    return sorted(found)


# --------------------------------------------------------------------------- running the foreign ld.so


def _qemu_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LD_") and k != "GLIBC_TUNABLES"}
    env["LC_ALL"] = "C"
    return env


def _cpu_option(host_path: str) -> list[str]:
    """``-cpu NAME`` for the program at ``host_path`` (qemu_cpu.py), or nothing for qemu's default."""
    try:
        with open(host_path, "rb") as fh:
            elf = ELFFile(fh)
            cpu = cpu_for(elf["e_machine"], elf.elfclass, elf["e_flags"], mips_ases(elf))
    except (OSError, ELFError):
        return []  # qemu reports the unreadable program itself
    return ["-cpu", cpu] if cpu else []


def run_under_qemu(
    arch: str, root: str | os.PathLike[str], argv: list[str], guest_env: dict[str, str], timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (argv[0] a host path inside *root*) with qemu-user, *root* as the -L prefix."""
    cmd = [debian_roots.qemu_binary(arch), "-L", os.path.realpath(root), *_cpu_option(argv[0])]
    for key, value in guest_env.items():
        cmd += ["-E", f"{key}={value}"]
    cmd += argv
    try:
        return subprocess.run(
            cmd, env=_qemu_env(), capture_output=True, text=True, errors="surrogateescape", timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise OracleError(f"{' '.join(cmd)}: timed out after {timeout}s") from exc


def _check_root(root: str | os.PathLike[str]) -> None:
    if not os.path.isfile(os.path.join(root, "etc/ld.so.cache")):
        # Without it, qemu's -L fallback would let the foreign ld.so read the host's cache.
        raise OracleError(f"{root} has no /etc/ld.so.cache")


def foreign_trace(arch: str, root: str | os.PathLike[str], executable: str, timeout: float = TIMEOUT) -> GlibcTrace:
    """Trace the device path *executable* of *root* with the root's own ld.so under qemu."""
    _check_root(root)
    mapper = PathMapper(root)
    exe_dev = mapper(executable)
    exe_host = mapper.root + exe_dev
    interp = elf_interpreter(exe_host)
    if interp is None:
        raise OracleError(f"{exe_dev} is not a dynamic executable")
    proc = run_under_qemu(arch, root, [exe_host], TRACE_ENV, timeout)
    if proc.returncode != 0:
        raise OracleError(f"{arch} {exe_dev}: ld.so exited with {proc.returncode}: {proc.stderr.strip()[-800:]}")
    lines, static = parse_trace_list(proc.stdout)
    if not lines and not static:
        raise OracleError(f"{arch} {exe_dev}: no ldd list on stdout: {proc.stdout[:500]!r} {proc.stderr[-500:]!r}")
    objects = [exe_dev] + [mapper(t.path) for t in lines if t.path is not None]
    outside = [o for o in objects if not mapper.exists(o)]
    if outside:
        raise OracleError(
            f"{arch} {exe_dev}: ld.so opened files that are not in the root (qemu -L fallback?): {outside}"
        )
    missing = [t.name for t in lines if t.path is None]
    trace = GlibcTrace(exe_dev, mapper(interp), objects, missing, static=static, raw_list=lines)
    return add_debug_output(trace, proc.stderr, mapper, exe_dev)


def foreign_list(arch: str, root: str | os.PathLike[str], executable: str, timeout: float = TIMEOUT) -> list[str]:
    """The link map the root's own ld.so builds for *executable* (``ldd`` without relocation: no
    ``LD_WARN``), as device paths: fast, for choosing which programs to trace."""
    _check_root(root)
    mapper = PathMapper(root)
    exe_dev = mapper(executable)
    proc = run_under_qemu(arch, root, [mapper.root + exe_dev], {"LD_TRACE_LOADED_OBJECTS": "1"}, timeout)
    if proc.returncode != 0:
        raise OracleError(f"{arch} {exe_dev}: ld.so exited with {proc.returncode}: {proc.stderr.strip()[-800:]}")
    lines, _static = parse_trace_list(proc.stdout)
    return [mapper(t.path) for t in lines if t.path is not None]


def foreign_unused(arch: str, root: str | os.PathLike[str], executable: str, timeout: float = TIMEOUT) -> list[str]:
    """What ``ldd -u`` would list for *executable*: its DT_NEEDED objects none of its lookups ended in."""
    _check_root(root)
    mapper = PathMapper(root)
    exe_dev = mapper(executable)
    proc = run_under_qemu(arch, root, [mapper.root + exe_dev], UNUSED_ENV, timeout)
    if proc.returncode not in (0, 1):
        raise OracleError(f"{arch} {exe_dev}: LD_DEBUG=unused exited with {proc.returncode}: {proc.stderr[-800:]}")
    out: list[str] = []
    listing = False
    for raw in (proc.stdout + proc.stderr).splitlines():
        if raw.startswith("Unused direct dependencies:"):
            listing = True
            continue
        if listing and raw.strip() and not _DEBUG_LINE_RE.match(raw):
            out.append(mapper(raw.strip()))
    if proc.returncode == 1 and not out:
        raise OracleError(f"{arch} {exe_dev}: exit 1 without a list: {proc.stdout!r} {proc.stderr[-500:]!r}")
    return out


def trace_root(
    arch: str, root: str | os.PathLike[str], executables: Iterable[str] | None = None, workers: int | None = None
) -> tuple[dict[str, GlibcTrace], dict[str, list[str]]]:
    """foreign_trace and foreign_unused for the root's executables (all of them by default), in parallel."""
    exes = list(executables) if executables is not None else root_executables(root)

    def one(exe: str) -> tuple[GlibcTrace, list[str]]:
        return foreign_trace(arch, root, exe), foreign_unused(arch, root, exe)

    with ThreadPoolExecutor(max_workers=workers or max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(one, exes))
    return {t.executable: t for t, _ in results}, {t.executable: u for t, u in results}


def real_run_bindings(
    arch: str, root: str | os.PathLike[str], argv: list[str], timeout: float = TIMEOUT
) -> set[BindingKey]:
    """Run a program of the root for real with ``LD_DEBUG=bindings``: every lookup, ld.so's own included.

    *argv* starts with a device path; the program must be harmless (``/usr/bin/busybox true``).
    """
    mapper = PathMapper(root)
    exe_host = mapper.root + mapper(argv[0])
    proc = run_under_qemu(arch, root, [exe_host, *argv[1:]], {"LD_DEBUG": "bindings", "LD_BIND_NOW": "yes"}, timeout)
    if proc.returncode != 0:
        raise OracleError(f"{arch} {argv}: exited with {proc.returncode}: {proc.stderr[-800:]}")
    return {
        (mapper(m), s, v, mapper(p))
        for m, s, v, p, _protected in parse_bindings(proc.stderr)
        if not (_is_vdso(m) or _is_vdso(p))
    }


def interpreter_of(root: str | os.PathLike[str], executable: str) -> str:
    """Canonical device path of an executable's PT_INTERP inside *root*."""
    mapper = PathMapper(root)
    interp = elf_interpreter(mapper.root + mapper(executable))
    if interp is None:
        raise OracleError(f"{executable} has no PT_INTERP")
    return mapper(interp)
