"""The runtime binding oracle: what the device's own loader really bound, read from the process's memory.

For one root file system (a host folder) and a dynamic program in it (a device path), the oracle

1. runs the program under the device's own loader with the root as ``/``: a chroot of a hard-linked
   copy of the root with the static ``qemu-ARCH-static`` copied in (qemu_oracle.DeviceLoader makes
   the copy), the guest environment being only ``LD_BIND_NOW=1`` (every slot is relocated before
   the entry point; musl always binds now), stdin ``/dev/null``, qemu's gdbstub on a Unix socket
   inside the copy (``qemu-ARCH-static -g /.linkgraph-oracle/gdb-ID.sock PROGRAM``: nothing to
   pick, so parallel runs, also of other test processes, cannot collide on a port), with the CPU
   the program's ELF header asks for (``-cpu``, qemu_cpu.py);
2. drives one ``gdb-multiarch -batch`` per program with a small gdb Python script
   (runtime_gdb.GDB_SCRIPT: a memory and breakpoint server talking JSON lines over two inherited
   pipes; the host side parses the ELF files).  At the first stop (the interpreter's first
   instruction) the auxiliary vector is read from the stack (``argc, argv.., 0, envp.., 0, auxv``):
   ``AT_ENTRY`` is the program's entry point with its load bias (PIE or not; bias = ``AT_ENTRY -
   e_entry``), ``AT_BASE`` the interpreter's.  Breakpoints go on the entry point and on the
   loader's debugger hook ``r_brk`` (``_dl_debug_state`` in the interpreter's dynamic symbols,
   which glibc, uClibc and musl all export).  At each hook call the link map is read and, when it
   changed, every slot of every object in it (a *snapshot*), and breakpoints go on every
   initialiser of those objects (``DT_INIT``, the ``DT_INIT_ARRAY`` entries as they are in memory,
   the program's ``DT_PREINIT_ARRAY``).  The first initialiser to run ends the snapshots.  The
   bindings are those of the last snapshot before it: the state right after relocation, before
   any initialiser ran (glibc notifies ``RT_CONSISTENT`` after relocating and before
   ``_dl_init``; uClibc 0.9.28 to 0.9.33 ``RT_ADD`` after relocating and before the
   initialisers, then ``RT_CONSISTENT`` after them; musl 1.1 once, after relocating).  The
   program is *covered* when it then reaches its entry point;
3. finds ``r_debug`` through the program's in-memory dynamic section: ``DT_DEBUG`` (glibc, uClibc
   on most machines, musl), on MIPS the word ``DT_MIPS_RLD_MAP`` (absolute) or
   ``DT_MIPS_RLD_MAP_REL`` (relative to the tag) points at, else the interpreter's exported
   ``_r_debug`` (glibc) or ``_dl_debug_addr`` pointer (uClibc, musl).  glibc's ``struct r_debug``,
   uClibc's and musl's ``struct debug`` all start ``int version; struct link_map *map``, and every
   link-map entry starts ``l_addr, l_name, l_ld, l_next, l_prev`` (glibc ``struct link_map``,
   uClibc ``struct elf_resolve``: ``loadaddr, libname, dynamic_addr, next, prev``, musl ``struct
   dso``: ``base, name, dynv, next, prev``).  Each entry is matched to its file: ``l_name``
   resolved inside the root (the program is the first entry), and the match is checked: the
   file's ``PT_DYNAMIC`` plus ``l_addr`` must equal ``l_ld``.  The interpreter's own bias is
   ``AT_BASE`` minus its lowest ``PT_LOAD`` address (a prelinked ld.so is not linked at 0);
4. parses every loaded file from its program headers (not its section headers, which firmware
   often strips): the relocations of ``DT_REL``/``DT_RELA``/``DT_JMPREL`` that name a symbol, and
   on MIPS the global GOT (``GOT[DT_MIPS_LOCAL_GOTNO + i]`` holds symbol ``DT_MIPS_GOTSYM + i``,
   up to ``DT_MIPS_SYMTABNO``; ``STT_SECTION`` entries are no lookups and are left out), with the
   version each reference requests (``DT_VERSYM`` into ``DT_VERNEED``, or ``DT_VERDEF`` for an
   object's own versioned definitions, as glibc's ``l_versions``; the base version is none), and
   reads the slots with one ``read_memory`` per run of nearby slots, all in one request;
5. maps each value back to the object whose ``PT_LOAD`` segments (plus its ``l_addr``) contain
   it, the end of a segment included when no segment contains it (``_end``): the symbol's
   address ``S`` is ``value - r_addend`` for RELA, ``value - A`` for REL types that add the
   slot's original content ``A`` (read from the file: ``R_ARM_ABS32``, ``R_386_32``,
   ``R_MIPS_REL32``, ...), ``value`` for GOT/PLT types, ``value - A + P`` for PC-relative ones.
   Relocation kinds are known for EM_386, EM_X86_64, EM_ARM, EM_AARCH64 and 32-bit EM_MIPS.

What becomes of each slot (bindings, self bindings, IFUNC redirections, unresolved weak references,
copy relocations, TLS, unobserved slots, prelinked programs) is described in runtime_slots.py.

Slots whose value changed between the snapshot and the entry point (an initialiser wrote them:
libgnutls's constructor sets libgmp's ``__gmp_free_func``/``__gmp_reallocate_func`` pointers,
relocated to libgmp's defaults, in every Debian root's curl) are listed in ``changed_by_init``;
objects an initialiser ``dlopen()``-ed are in ``late_objects``, not in ``objects``.  Without a
``_dl_debug_state`` symbol the slots are read at the entry point instead (``snapshot == "entry"``).
Signals are passed to the program (CPU-feature probes install their own SIGILL handlers); one that
kills it ends the run.

A program that does not reach its entry point (the loader reports a missing library or an
unresolved symbol and exits, an initialiser crashes or exits, qemu cannot start it, the time limit
runs out) is returned with ``covered=False`` and the reason (the loader's stderr), never dropped.

Paths are canonical device paths (symlinks resolved inside the root, qemu_oracle.resolve_in_root),
as in tests/support/oracle.py.  :func:`runtime_bindings` is the entry point for other code; its results are
cached under ``$LINKGRAPH_TEST_CACHE`` or ``~/.cache/linkgraph-tests`` (``runtime-oracle/``), keyed
by a hash of the root's files (contents, modes, links) and of the oracle's source (runtime_trace.py).

Against glibc's trace-mode ``LD_DEBUG=bindings``: :func:`compare_with_ld_debug` (runtime_ld_debug.py,
with what is left out of either side and what was measured).

The code: runtime_elf.py (the ELF files), runtime_gdb.py (the gdb script and the pipe to it),
runtime_linkmap.py (auxv, r_debug, link map), runtime_slots.py (slots to bindings), runtime_trace.py
(the result, its JSON form and the cache), runtime_ld_debug.py (against LD_DEBUG), and here the
oracle itself (:class:`RuntimeOracle`: the runs and the conversation) and :func:`runtime_bindings`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import qemu_oracle as qo
from .runtime_elf import (
    AT_BASE,
    AT_ENTRY,
    DT_GNU_LIBLIST,
    MACHINES,
    RELOC_KINDS,
    TLS_KINDS,
    DynElf,
    ElfFormatError,
    Segment,
    Slot,
    _find_symbol,
)
from .runtime_gdb import GDB, GDB_SCRIPT, _GdbError, _Pipe, _stop, _tail
from .runtime_ld_debug import LD_DEBUG_ENV, LdDebugComparison, compare_with_ld_debug, device_ld_debug
from .runtime_linkmap import _LinkMapReader, _Loaded, _parse_auxv, _Process
from .runtime_slots import _SlotReader
from .runtime_trace import (
    CACHE_FORMAT,
    SOURCE_DIGEST,
    SOURCES,
    RefKey,
    RuntimeTrace,
    _load,
    _store,
    cache_path,
    root_digest,
)

__all__ = [  # the public names, also those defined in the runtime_*.py modules
    "CACHE_FORMAT",
    "DT_GNU_LIBLIST",
    "GDB",
    "GDB_SCRIPT",
    "GUEST_ENV",
    "LD_DEBUG_ENV",
    "MACHINES",
    "RELOC_KINDS",
    "SOURCES",
    "SOURCE_DIGEST",
    "TIMEOUT",
    "TLS_KINDS",
    "DynElf",
    "ElfFormatError",
    "LdDebugComparison",
    "RefKey",
    "RuntimeOracle",
    "RuntimeTrace",
    "Segment",
    "Slot",
    "cache_path",
    "compare_with_ld_debug",
    "device_ld_debug",
    "root_digest",
    "runtime_bindings",
]

TIMEOUT = 90.0  # seconds per program, from qemu's start to the last memory read
GUEST_ENV = {"LD_BIND_NOW": "1"}


class RuntimeOracle(_LinkMapReader, _SlotReader):
    """Runs programs of one root to their entry points under qemu + gdb and reads their bindings."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        workdir: str | os.PathLike[str] | None = None,
        timeout: float = TIMEOUT,
        guest_env: dict[str, str] | None = None,
    ) -> None:
        if shutil.which(GDB) is None:
            raise qo.OracleError(f"{GDB} not found: apt-get install gdb-multiarch")
        if os.geteuid() != 0:
            raise qo.OracleError("the runtime oracle needs root (chroot)")
        self.root = Path(root).resolve()
        self.timeout = timeout
        self.guest_env = GUEST_ENV if guest_env is None else guest_env  # {}: the loader binds lazily where it can
        self._own_workdir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix="lg-rt-")) if workdir is None else Path(workdir)
        self.loader = qo.DeviceLoader(self.root, self.workdir)
        self.script = self.workdir / "runtime_oracle_gdb.py"
        self.script.write_text(GDB_SCRIPT)
        self._elves: dict[str, DynElf] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> RuntimeOracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def elf(self, device_path: str) -> DynElf:
        with self._lock:
            hit = self._elves.get(device_path)
        if hit is None:
            hit = DynElf(self.root / device_path.lstrip("/"))
            with self._lock:
                self._elves[device_path] = hit
        return hit

    # ------------------------------------------------------------------ one program

    def trace(self, executable: str) -> RuntimeTrace:
        """Run one program (device path) to its entry point and read its bindings."""
        started = time.monotonic()
        exe = self.loader.canonical(executable)
        info = self.loader.elves.get(exe)
        if info is None or not info.interpreter:
            return RuntimeTrace(exe, False, "not a dynamic ELF program of the root")
        result = RuntimeTrace(exe, False, interpreter=self.loader.canonical(info.interpreter))
        try:
            self._run(exe, info, result, started)
        except (ElfFormatError, qo.OracleError, OSError) as exc:
            result.covered = False
            result.reason = f"{type(exc).__name__}: {exc}"
        finally:
            result.seconds = time.monotonic() - started
        return result

    def trace_many(self, executables: Iterable[str], jobs: int = 2) -> dict[str, RuntimeTrace]:
        exes = list(executables)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            traces = list(pool.map(self.trace, exes))
        return {t.executable: t for t in traces}

    def _run(self, exe: str, info: qo.ElfInfo, result: RuntimeTrace, started: float) -> None:
        elf = self.elf(exe)
        qemu = self.loader.qemu_command(info)  # copies qemu-ARCH-static into the chroot (once), -cpu
        ident = uuid.uuid4().hex[:12]
        inside = f"/{qo.ORACLE_DIR}/gdb-{ident}.sock"
        sock = self.loader.tree / inside.lstrip("/")
        connect = str(sock)
        link_dir = None
        if len(connect) > 100:  # sun_path is 108 bytes: connect through a short symlink
            link_dir = tempfile.mkdtemp(prefix="lg-rt-")
            os.symlink(sock, os.path.join(link_dir, "s"))
            connect = os.path.join(link_dir, "s")
        out_path = self.workdir / f"{ident}.out"
        err_path = self.workdir / f"{ident}.err"
        gdb_log = self.workdir / f"{ident}.gdb"
        cmd = [qo.CHROOT, str(self.loader.tree), *qemu, "-g", inside]
        for key, value in self.guest_env.items():
            cmd += ["-E", f"{key}={value}"]
        cmd.append(exe)
        deadline = started + self.timeout
        qemu_proc = gdb_proc = None
        fds: list[int] = []
        try:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                qemu_proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env={}, cwd="/", start_new_session=True
                )
            while not sock.exists():
                if qemu_proc.poll() is not None:
                    result.reason = f"qemu exited with {qemu_proc.returncode} before its gdbstub was up"
                    return
                if time.monotonic() > deadline:
                    result.reason = f"timeout: qemu's gdbstub not up after {self.timeout:.0f}s"
                    return
                time.sleep(0.005)
            to_gdb_r, to_gdb_w = os.pipe()
            from_gdb_r, from_gdb_w = os.pipe()
            fds = [to_gdb_w, from_gdb_r]
            setup = [
                "set confirm off",
                "set pagination off",
                "set width 0",
                "set height 0",
                f"set endian {'big' if elf.endian == '>' else 'little'}",
                "set auto-solib-add off",
                "handle all nostop noprint pass",  # the program's own handlers (CPU feature probes) run
            ]
            if elf.machine == "EM_MIPS":  # qemu sends no MIPS target description: gdb would guess 64-bit registers
                setup += ["set architecture mips", f"set mips abi {'n32' if elf.e_flags & qo.EF_MIPS_ABI2 else 'o32'}"]
            cfg = {"rfd": to_gdb_r, "wfd": from_gdb_w, "socket": connect, "mask": (1 << elf.bits) - 1, "setup": setup}
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(self.workdir),
                "LC_ALL": "C",
                "LG_RUNTIME_ORACLE": json.dumps(cfg),
            }
            with open(gdb_log, "wb") as log:
                gdb_proc = subprocess.Popen(
                    [GDB, "-nx", "-batch", "-x", str(self.script)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    pass_fds=(to_gdb_r, from_gdb_w),
                    start_new_session=True,
                )
            os.close(to_gdb_r)
            os.close(from_gdb_w)
            pipe = _Pipe(from_gdb_r, to_gdb_w, deadline)
            try:
                self._converse(pipe, exe, elf, result)
            except TimeoutError:
                result.covered = False
                result.reason = f"timeout after {self.timeout:.0f}s"
            except _GdbError as exc:
                result.covered = False
                result.reason = f"gdb: {str(exc).strip()[-1500:]}; gdb log: {_tail(gdb_log)}"
            else:
                with contextlib.suppress(OSError):
                    os.write(to_gdb_w, b'{"op": "quit"}\n')
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            for proc in (gdb_proc, qemu_proc):
                if proc is not None:
                    _stop(proc, grace=5.0 if result.covered else 0.5)
            if not result.stderr:
                result.stderr = _tail(err_path, 4000)
            died = re.search(r"qemu: uncaught target signal (\d+)", result.stderr)
            if not result.covered and died and result.reason.startswith("ended before"):
                number = int(died[1])
                name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
                result.reason = f"killed by signal {name} before the entry point"
            if not result.covered and result.stderr and "stderr:" not in result.reason:
                result.reason += f"; stderr: {result.stderr[-1500:]}"
            for p in (out_path, err_path, gdb_log, sock):
                with contextlib.suppress(OSError):
                    p.unlink()
            if link_dir:
                shutil.rmtree(link_dir, ignore_errors=True)

    def _converse(self, pipe: _Pipe, exe: str, elf: DynElf, result: RuntimeTrace) -> None:
        first = pipe.recv()
        if first["stack"] is None:
            raise _GdbError("cannot read the initial stack")
        auxv = _parse_auxv(bytes.fromhex(first["stack"]), elf)
        if AT_ENTRY not in auxv:
            raise _GdbError("no AT_ENTRY in the auxiliary vector")
        proc = _Process(pipe, exe, elf, auxv[AT_ENTRY] - elf.e_entry, auxv)
        entry = proc.code_address(auxv[AT_ENTRY])
        r_brk = None  # the loader's debugger hook, called after it changed the link map
        if elf.interp and auxv.get(AT_BASE):
            value = _find_symbol(self.elf(self.loader.canonical(elf.interp)), "_dl_debug_state")
            if value:
                r_brk = proc.code_address(self._interp_bias(proc) + value)
        pipe.ask({"op": "break", "addrs": [entry] + ([r_brk] if r_brk is not None else [])})
        snapshot: tuple[list[_Loaded], list[list[int | None]]] | None = None
        last_key: tuple | None = None
        init_bps: set[int] = set()
        init_started = False
        hit_errors: list[str] = []
        for _ in range(10_000):
            stop = pipe.ask({"op": "cont"})
            if stop["stop"] == "exited":
                code, sig = stop.get("code"), stop.get("signal")
                if sig is not None:
                    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
                    result.reason = f"killed by signal {name} before the entry point"
                elif code is not None:
                    result.reason = f"exited before the entry point (status {code})"
                else:  # qemu 7.2 reports no status to gdb when the guest dies of a signal
                    result.reason = "ended before the entry point (no exit status from the gdbstub)"
                return
            pc = stop["pc"]
            if pc == entry:
                break
            if pc == r_brk:
                if init_started:
                    continue  # an initialiser dlopen()ed something: not the loader's initial work
                try:
                    entries = self._entries(proc)
                except _GdbError as exc:
                    hit_errors.append(str(exc))
                    continue
                key = tuple((a, ld) for a, _, ld in entries)
                if key == last_key:
                    continue
                last_key = key
                try:
                    loaded = self._match(proc, entries)
                except _GdbError as exc:  # e.g. names not set yet
                    hit_errors.append(str(exc))
                    continue
                snapshot = (loaded, self._read_slots(proc, loaded))
                new = self._init_addresses(proc, loaded) - init_bps - {entry, r_brk}
                if new:
                    pipe.ask({"op": "break", "addrs": sorted(new)})
                    init_bps |= new
                continue
            if pc in init_bps:
                init_started = True  # the first initialiser: the loader's relocation is complete
                pipe.ask({"op": "delete", "addrs": sorted(init_bps | ({r_brk} if r_brk is not None else set()))})
                continue
            signals = [s for _, s in stop.get("stops", []) if s]
            result.reason = f"stopped at {pc:#x} before the entry point {entry:#x}: signal {signals}"
            return
        else:
            raise _GdbError("more than 10000 stops before the entry point")
        final = self._match(proc, self._entries(proc))
        if snapshot is None:  # no debugger hook: read at the entry point
            used, values = final, self._read_slots(proc, final)
            result.snapshot = "entry" + (f" (r_brk hits failed: {hit_errors[-1]})" if hit_errors else "")
        else:
            used, values = snapshot
            result.snapshot = "relocated"
            before = {(o.path, o.base) for o in used}
            result.late_objects = [o.path for o in final if (o.path, o.base) not in before]
            now = self._read_slots(proc, used)
            for obj, old, new in zip(used, values, now, strict=True):
                for slot, a, b in zip(obj.elf.slots(), old, new, strict=True):
                    if a != b and not slot.local and slot.kind != "copy":
                        result.changed_by_init.add((obj.path, slot.name, slot.version))
        if used[0].path != exe or used[0].base != proc.bias:
            raise _GdbError(f"the link map does not start with the program: {used[0].path} at {used[0].base:#x}")
        result.objects = [obj.path for obj in used]
        result.prelinked = DT_GNU_LIBLIST in elf.tags and all(obj.base == 0 for obj in used[1:])
        self._bindings(used, values, result)
        result.covered = True


def runtime_bindings(
    root: str | os.PathLike[str],
    executables: Iterable[str],
    jobs: int = 2,
    timeout: float = TIMEOUT,
    cache: bool = True,
) -> dict[str, RuntimeTrace]:
    """Run each program (device path) of the root to its entry point and read what it was bound to.

    Keys are canonical device paths.  Results are cached per (root contents, oracle source); a
    program not covered is cached too (with its reason), so the next call does not wait again.
    """
    root = Path(root).resolve()
    exes = list(dict.fromkeys(executables))
    path = cache_path(root) if cache else None
    cached = _load(path) if path is not None else {}
    canon = {e: qo.resolve_in_root(root, e) for e in exes}
    todo = [e for e in exes if canon[e] not in cached]
    fresh: dict[str, RuntimeTrace] = {}
    if todo:
        with RuntimeOracle(root, timeout=timeout) as oracle_:
            fresh = oracle_.trace_many(todo, jobs=jobs)
        if path is not None:
            _store(path, {k: t.to_json() for k, t in fresh.items()})
    out = {}
    for e in exes:
        key = canon[e]
        out[key] = fresh[key] if key in fresh else RuntimeTrace.from_json(cached[key])
    return out
