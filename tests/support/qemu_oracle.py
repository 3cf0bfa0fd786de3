"""The device's own dynamic loader as the oracle: a firmware root's loader run under qemu-user.

How the oracle runs (checked with the two MIPS images in ``../shared/firmware``):

* ``qemu-mips -L ROOT ...`` (the form in the firmware README) is **not** sound: qemu's ``-L``
  prefix only redirects a path when the file exists under ROOT, otherwise the guest opens the
  *host's* file.  uClibc's loader then reads the host's glibc ``/etc/ld.so.cache`` ("cache
  '/etc/ld.so.cache' is corrupt" on stderr), and a library missing from the root could be found
  on the host.  So the loader runs in a ``chroot`` of a hard-linked copy of the root, through
  the static ``qemu-ARCH-static`` (Debian ``qemu-user-static``) copied into that copy; nothing
  of the host is visible, the working directory is ``/`` and the environment is empty.
  Hard links keep the inodes of the root, which both loaders use to recognise a file they
  have already loaded.
* qemu's CPU is chosen from the program's ELF header (``-cpu``, qemu_cpu.py; ``ElfInfo.cpu``,
  :meth:`DeviceLoader.qemu_command`): qemu-mips's default 24Kf has no DSP ASE, which MIPS32r2
  roots built for the 24KEc use.
* **uClibc** (0.9.33.2 in the Freifunk image; ``ldso/ldso/ldso.c``, ``_dl_get_ready_to_run``):
  ``qemu-mips-static -E LD_TRACE_LOADED_OBJECTS=1 EXE``.  The kernel (qemu) starts the
  program's ``PT_INTERP``; the loader walks the DT_NEEDED entries breadth-first and prints
  ``\\tNAME => PATH (ADDR)`` when an object is loaded for the first time (``usage_count == 1``;
  a name that reaches an object already loaded prints nothing) and ``\\tNAME => not found``
  for a name it cannot load, then exits before relocating anything.  The executable itself is
  not printed.  A NEEDED entry whose last path component is the loader's own name
  (``ld-uClibc.so.0``) is the loader: it joins the list there and is printed as
  ``ld-uClibc.so.0 => PT_INTERP``; if no object needs it, the loader appends itself after the
  walk (``add_ldso``) *without* printing it, so the parser puts it last.  The build has no
  ``LD_DEBUG`` (``SUPPORT_LD_DEBUG`` is off: ``LD_DEBUG=all`` changes nothing, see the tests)
  and no standalone mode (``ld-uClibc.so.0 EXE`` says "Standalone execution is not enabled"),
  so only executables can be traced and no bindings can be observed.
* **musl** (1.1.16 in the LEDE image; ``ldso/dynlink.c``): ``qemu-mips-static INTERP --list
  EXE`` with INTERP the program's own ``PT_INTERP``.  The first line is ``\\tLDSO (ADDR)`` where
  LDSO is the program's ``PT_INTERP`` string (the loader's own path when the object has none,
  e.g. a library); then ``\\tNAME => PATH (ADDR)`` as each object is loaded; a reserved name
  (``libc.so``, ``libpthread.so.0``, ...) prints the loader's name as PATH, once per reserved
  family.  Missing libraries go to stderr as ``Error loading shared library NAME: ERR (needed
  by OBJ)``; after loading, every relocation is performed and each reference nothing defines
  prints ``Error relocating OBJ: SYM: symbol not found`` (weak ones stay 0 silently); the exit
  status is then 127.  ``--list`` also works on a library (it is mapped as the program), so
  library-rooted link maps and their unresolved references can be checked too.
* **Older uClibc** (0.9.28 in the Hi-Link HLK-RM04 root, 0.9.32.1 in the D-Link DIR-880L root,
  ARM through ``qemu-arm-static``) prints the same lines, with one difference in the loader's
  place: before 0.9.33 (uClibc commit 02f56b3ae "ldso: Do not add the ld.so at the end of the
  loaded modules list") the NEEDED walk *skips* every entry whose last component is
  ``ld-uClibc.so.0`` and the loader is always appended after the walk and printed as the last
  line (``ld-uClibc.so.0 => /lib/ld-uClibc.so.0``) just before the trace exits.  The parser
  takes every list in printed order, so both placements come out right.  0.9.28 also has no
  ``st_dev``/``st_ino`` check: one file reached under two names is mapped and printed twice,
  which the parser reports as unexplained output.
* **glibc** (2.21 in the JioFi 2 root, ARM ``ld-linux.so.3``; ``elf/rtld.c``): ``qemu-ARCH-static
  -E LD_TRACE_LOADED_OBJECTS=1 -E LD_WARN=1 -E LD_BIND_NOW=1 EXE``, what ``ldd -r`` runs.
  After loading everything, ld.so prints the link map chain in load order without the
  executable: ``\tNAME => PATH (ADDR)`` for each object, ``\tNAME => not found`` for a name it
  could not load (a "faked" map, at its place in the chain), and the loader itself as
  ``\tPT_INTERP (ADDR)`` where it sits in the chain; the list is parsed by tests/support/oracle.py's
  ``parse_trace_list`` (the host glibc oracle's parser).  With ``LD_WARN`` it then relocates
  every object but itself and prints ``undefined symbol: SYM\t(PATH)`` on stderr for each
  strong reference nothing defines (``LD_DEBUG=bindings`` works too: glibc's loader always has
  it).  A library, or a plugin linked with PT_INTERP but entry point 0 (qemu may refuse to
  start it), is listed the way ``ldd`` does it, ``INTERP FILE`` with the same environment;
  ``INTERP --list FILE`` would not relocate (``--list`` sets ``dl_lazy = -1``).

Printed paths are device paths as the loader opened them (relative ones against ``/``); they are
mapped to linkgraph's canonical form by resolving symlinks inside the root.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from . import oracle as glibc_oracle
from .images import FIRMWARE
from .qemu_cpu import cpu_for, mips_ases

REPO = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = FIRMWARE
TIMEOUT = 120.0
ORACLE_DIR = ".linkgraph-oracle"  # inside the chroot copy only, never in the scanned root
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"

# qemu-user target names by (e_machine, ELF class, byte order).
QEMU_ARCH = {
    ("EM_MIPS", 32, "big"): "mips", ("EM_MIPS", 32, "little"): "mipsel",
    ("EM_MIPS", 64, "big"): "mips64", ("EM_MIPS", 64, "little"): "mips64el",
    ("EM_ARM", 32, "little"): "arm", ("EM_ARM", 32, "big"): "armeb",
    ("EM_AARCH64", 64, "little"): "aarch64", ("EM_PPC", 32, "big"): "ppc",
    ("EM_PPC64", 64, "big"): "ppc64", ("EM_PPC64", 64, "little"): "ppc64le",
    ("EM_386", 32, "little"): "i386", ("EM_X86_64", 64, "little"): "x86_64",
    ("EM_RISCV", 64, "little"): "riscv64", ("EM_SH", 32, "little"): "sh4",
}  # fmt: skip
EF_MIPS_ABI2 = 0x20


class OracleError(AssertionError):
    """The device loader could not be run (missing tool, unreadable image, ...)."""


# --------------------------------------------------------------------------- firmware images


def firmware_image(prefix: str) -> Path:
    """The image in FIRMWARE_DIR whose file name starts with ``prefix`` (exactly one)."""
    found = sorted(FIRMWARE_DIR.glob(f"{prefix}*.bin"))
    if len(found) != 1:
        raise OracleError(f"expected one {prefix}*.bin in {FIRMWARE_DIR}, found {[p.name for p in found]}")
    return found[0]


def squashfs_spans(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of every squashfs 4.0 superblock (``hsqs``) that fits in ``data``."""
    spans = []
    at = data.find(b"hsqs")
    while at >= 0:
        if at + 96 <= len(data):
            major, minor = struct.unpack_from("<HH", data, at + 28)
            (bytes_used,) = struct.unpack_from("<Q", data, at + 40)
            if (major, minor) == (4, 0) and 96 < bytes_used <= len(data) - at:
                spans.append((at, bytes_used))
        at = data.find(b"hsqs", at + 1)
    return spans


def _extract_with_unsquashfs(image: Path, dest: Path) -> list[Path]:
    """Cut each squashfs out of the image (what ``dd skip=OFFSET`` does) and ``unsquashfs`` it."""
    data = image.read_bytes()
    roots = []
    for i, (offset, length) in enumerate(squashfs_spans(data)):
        blob = dest / f"squashfs-{i}.img"
        blob.write_bytes(data[offset : offset + length])
        root = dest / f"root-{i}"
        proc = subprocess.run(
            ["unsquashfs", "-no-progress", "-d", str(root), str(blob)], capture_output=True, text=True, timeout=600
        )
        blob.unlink()
        if proc.returncode != 0:
            raise OracleError(f"unsquashfs {image.name}@{offset} failed:\n{proc.stdout}\n{proc.stderr}")
        roots.append(root)
    return roots


def _extract_with_linkgraph(image: Path, dest: Path) -> list[Path]:
    """linkgraph's own unpacker (``linkgraph.loader.unpack``: unblob, squashfs by unsquashfs)."""
    from linkgraph.loader.unpack import unpack

    result = unpack(image, dest)
    if result.problems:
        raise OracleError(f"unpacking {image.name}: {result.problems}")
    return [root.path for root in result.roots]


# The one line that picks the unpacker (_extract_with_unsquashfs needs only squashfs-tools).
EXTRACT: Callable[[Path, Path], list[Path]] = _extract_with_linkgraph


def extract_root(image: Path, dest: Path) -> Path:
    """The root filesystem of a firmware image (the one file system with a ``lib`` folder)."""
    dest.mkdir(parents=True, exist_ok=True)
    roots = [r for r in EXTRACT(image, dest) if (r / "lib").is_dir()]
    if len(roots) != 1:
        raise OracleError(f"{image.name}: expected one root file system, found {roots}")
    return roots[0]


# --------------------------------------------------------------------------- ELF facts


@dataclass(frozen=True)
class ElfInfo:
    """What the oracle needs to know about one ELF file (read with pyelftools, not linkgraph)."""

    machine: str
    elf_class: int
    endian: str
    e_type: str
    e_flags: int
    interpreter: str | None
    pie: bool
    dynamic: bool
    soname: str | None = None
    entry: int = 0
    cpu: str | None = None  # qemu's -cpu for it (qemu_cpu.py; None: qemu's default)


def elf_info(host_path: Path) -> ElfInfo | None:
    try:
        with open(host_path, "rb") as fh:
            if fh.read(4) != b"\x7fELF":
                return None
            fh.seek(0)
            elf = ELFFile(fh)
            interp, pie, dynamic, soname = None, False, False, None
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_INTERP":
                    interp = seg.get_interp_name()
                elif seg["p_type"] == "PT_DYNAMIC":
                    dynamic = True
                    for tag in seg.iter_tags():
                        if tag.entry.d_tag == "DT_FLAGS_1" and tag.entry.d_val & 0x08000000:  # DF_1_PIE
                            pie = True
                        elif tag.entry.d_tag == "DT_SONAME":
                            soname = tag.soname
            return ElfInfo(
                elf["e_machine"],
                elf.elfclass,
                "little" if elf.little_endian else "big",
                elf["e_type"],
                elf["e_flags"],
                interp,
                pie,
                dynamic,
                soname,
                elf["e_entry"],
                cpu_for(elf["e_machine"], elf.elfclass, elf["e_flags"], mips_ases(elf)),
            )
    except (OSError, ELFError, ValueError, struct.error):
        return None


def walk_elf(root: Path) -> dict[str, ElfInfo]:
    """Every regular ELF file of the root (symlinks not followed), by device path."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            host = Path(dirpath) / name
            if host.is_symlink() or not host.is_file():
                continue
            info = elf_info(host)
            if info is not None:
                out["/" + str(host.relative_to(root))] = info
    return out


def dynamic_executables(elves: dict[str, ElfInfo], sonameless_pie: bool = False) -> list[str]:
    """Programs the kernel hands to a dynamic loader: ET_EXEC with PT_INTERP, or PIE (DF_1_PIE;
    with ``sonameless_pie`` also an ET_DYN with PT_INTERP, an entry point and no DT_SONAME, as
    older binutils link a PIE without DF_1_PIE; a library with PT_INTERP, like glibc's libc.so.6
    or old uClibc's libraries, has a soname, and a plugin with PT_INTERP, like the JioFi's
    xtables and Perl modules, has entry point 0)."""

    def pie(i: ElfInfo) -> bool:  # a plugin linked with PT_INTERP has no entry point
        return i.pie or (sonameless_pie and i.soname is None and i.entry != 0)

    return sorted(
        p for p, i in elves.items() if i.interpreter and (i.e_type == "ET_EXEC" or (i.e_type == "ET_DYN" and pie(i)))
    )


def loader_kind(interpreter: str | None) -> str:
    name = os.path.basename(interpreter or "")
    if name.startswith("ld-musl-"):
        return "musl"
    if name.startswith("ld-uClibc") or name == "ld.so.0":
        return "uclibc"
    return "glibc"


# --------------------------------------------------------------------------- paths


def resolve_in_root(root: Path, path: str, cwd: str = "/", max_links: int = 40) -> str:
    """The canonical device path of ``path``: symlinks resolved inside ``root`` (absolute link
    targets are relative to the root, ``..`` stops at it); relative paths start at ``cwd``."""
    if not path.startswith("/"):
        path = cwd.rstrip("/") + "/" + path
    pending = [c for c in path.split("/") if c not in ("", ".")]
    resolved: list[str] = []
    links = 0
    while pending:
        part = pending.pop(0)
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        host = root.joinpath(*resolved, part)
        if host.is_symlink():
            links += 1
            if links > max_links:
                raise OracleError(f"symlink loop resolving {path} in {root}")
            target = os.readlink(host)
            if target.startswith("/"):
                resolved = []
            pending = [c for c in target.split("/") if c not in ("", ".")] + pending
            continue
        resolved.append(part)
    return "/" + "/".join(resolved)


# --------------------------------------------------------------------------- traces


@dataclass
class Trace:
    """What the device loader printed for one program (or library), parsed."""

    executable: str  # canonical device path of the traced object
    kind: str  # "uclibc" | "musl" | "glibc"
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    entries: list[tuple[str, str | None]] = field(default_factory=list)  # (NEEDED name, path printed or None)
    objects: list[str] = field(default_factory=list)  # canonical paths, load order, the traced object first
    missing: list[str] = field(default_factory=list)  # names that could not be loaded, first-seen order
    unresolved: set[tuple[str, str]] = field(default_factory=set)  # musl, glibc: (canonical module, symbol)
    ldso_line: str | None = None  # musl's first line: the loader's name
    unparsed: list[str] = field(default_factory=list)  # output lines no rule explains

    def describe(self) -> str:
        return f"$ {' '.join(self.command)}\n[rc={self.returncode}]\n{self.stdout}{self.stderr}"


_ENTRY = re.compile(r"^\t(?P<name>.+?) => (?P<path>.+) \((?P<addr>0x[0-9a-f]+)\)$")
_NOT_FOUND = re.compile(r"^\t(?P<name>.+?) => not found$")
_MUSL_LDSO = re.compile(r"^\t(?P<path>[^\t]+) \((?P<addr>0x[0-9a-f]+)\)$")
_MUSL_MISSING = re.compile(r"^Error loading shared library (?P<name>.+?): .* \(needed by (?P<by>.+)\)$")
_MUSL_UNDEFINED = re.compile(r"^Error relocating (?P<module>.+?): (?P<symbol>[^:]+): symbol not found$")
# Harmless uClibc stderr lines: each file it opened and rejected while searching, and an
# /etc/ld.so.cache it does not accept (then it searches without one).
_UCLIBC_NOTICE = re.compile(r"^.+: ('.+' is not an ELF (file|executable for \S+)|cache '.+' is corrupt)$")


class DeviceLoader:
    """Runs the root's own loader under qemu-user, in a chroot of a hard-linked copy of the root."""

    def __init__(self, root: Path, workdir: Path) -> None:
        self.root = root
        self.tree = workdir / "chroot"
        if self.tree.exists():
            shutil.rmtree(self.tree)
        proc = subprocess.run(["cp", "-al", str(root), str(self.tree)], capture_output=True, text=True)
        if proc.returncode != 0:  # another file system: a plain copy keeps the semantics
            shutil.rmtree(self.tree, ignore_errors=True)
            subprocess.run(["cp", "-a", str(root), str(self.tree)], check=True)
        (self.tree / ORACLE_DIR).mkdir()
        self.elves = walk_elf(root)
        self._canonical: dict[str, str] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ running

    def _qemu(self, info: ElfInfo) -> str:
        arch = QEMU_ARCH.get((info.machine, info.elf_class, info.endian))
        if arch == "mips64" and info.e_flags & EF_MIPS_ABI2:
            arch = "mipsn32"
        if arch is None:
            raise OracleError(f"no qemu-user target for {info.machine}/{info.elf_class}/{info.endian}")
        inside = self.tree / ORACLE_DIR / f"qemu-{arch}-static"
        with self._lock:
            if not inside.exists():
                host = shutil.which(f"qemu-{arch}-static")
                if host is None:
                    raise OracleError(f"qemu-{arch}-static not found: apt-get install qemu-user-static")
                shutil.copy2(host, inside)
        return f"/{ORACLE_DIR}/{inside.name}"

    def qemu_command(self, info: ElfInfo) -> list[str]:
        """qemu-ARCH-static inside the chroot with the CPU the program needs (``-cpu``, qemu_cpu.py)."""
        return [self._qemu(info), *(["-cpu", info.cpu] if info.cpu else [])]

    def _run(self, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        qemu = argv[0]
        cmd = [CHROOT, str(self.tree), qemu]
        for key, value in env.items():
            cmd += ["-E", f"{key}={value}"]
        cmd += argv[1:]
        if os.geteuid() != 0:
            raise OracleError("the device-loader oracle needs root (chroot)")
        return subprocess.run(
            cmd, capture_output=True, text=True, timeout=TIMEOUT, env={}, cwd="/", errors="backslashreplace"
        )

    def canonical(self, printed: str) -> str:
        hit = self._canonical.get(printed)
        if hit is None:
            hit = self._canonical[printed] = resolve_in_root(self.root, printed)
        return hit

    def default_interpreter(self) -> str:
        """The loader most programs of the root use (libraries are listed with it)."""
        counts = Counter(self.elves[p].interpreter for p in dynamic_executables(self.elves))
        if not counts:
            raise OracleError("no dynamic program in the root")
        return counts.most_common(1)[0][0] or ""

    def trace(self, path: str, extra_env: dict[str, str] | None = None) -> Trace:
        """The device loader's list for the program (or, musl only, library) at device path
        ``path``; ``extra_env`` is added to the guest's (otherwise empty) environment."""
        info = self.elves.get(self.canonical(path))
        if info is None:
            raise OracleError(f"{path}: not an ELF file of the root")
        qemu, *cpu = self.qemu_command(info)
        interpreter = info.interpreter or self.default_interpreter()
        kind = loader_kind(interpreter)
        if kind == "uclibc":
            if not info.interpreter:
                raise OracleError(f"{path}: uClibc's loader cannot list a library (no standalone mode)")
            argv, env = [qemu, *cpu, path], {"LD_TRACE_LOADED_OBJECTS": "1"}
        elif kind == "musl":
            argv, env = [qemu, *cpu, interpreter, "--list", path], {}
        else:  # glibc: what ldd runs, relocating (LD_WARN) every slot (LD_BIND_NOW)
            env = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "1", "LD_BIND_NOW": "1"}
            # a library or plugin (entry 0: qemu may refuse to start it) as ldd does it, not with
            # --list, which turns relocation off
            argv = [qemu, *cpu, path] if info.interpreter and info.entry else [qemu, *cpu, interpreter, path]
        proc = self._run(argv, {**env, **(extra_env or {})})
        if kind == "glibc" and argv[-2] != interpreter and proc.returncode != 0 and not proc.stdout.strip():
            # a library with PT_INTERP and an entry point that qemu starts and loses without a word
            # (Debian wheezy's libanl, libnss_files on PowerPC: exit 1, nothing printed): as ldd does
            argv = [qemu, *cpu, interpreter, path]
            proc = self._run(argv, {**env, **(extra_env or {})})
        trace = Trace(
            self.canonical(path), kind, [CHROOT, str(self.tree), *argv], proc.returncode, proc.stdout, proc.stderr
        )
        if kind == "uclibc":
            self._parse_uclibc(trace, info)
        elif kind == "glibc":
            self._parse_glibc(trace)
        else:
            self._parse_musl(trace)
        return trace

    def trace_many(self, paths: Iterable[str]) -> dict[str, Trace]:
        paths = list(paths)
        with ThreadPoolExecutor(max_workers=min(16, (os.cpu_count() or 2) * 2)) as pool:
            return dict(zip(paths, pool.map(self.trace, paths), strict=True))

    # ------------------------------------------------------------------ parsing

    def _add(self, trace: Trace, name: str, printed: str | None) -> None:
        trace.entries.append((name, printed))
        if printed is None:
            if name not in trace.missing:
                trace.missing.append(name)
            return
        path = self.canonical(printed)
        if path not in trace.objects:
            trace.objects.append(path)
        elif trace.kind in ("uclibc", "glibc"):  # printed once: a repeat is a second mapping
            trace.unparsed.append(f"object printed twice: {name} => {printed}")

    def _parse_uclibc(self, trace: Trace, info: ElfInfo) -> None:
        trace.objects.append(trace.executable)
        for line in trace.stdout.splitlines():
            if m := _ENTRY.match(line):
                self._add(trace, m["name"], m["path"])
            elif m := _NOT_FOUND.match(line):
                self._add(trace, m["name"], None)
            elif line.strip():
                trace.unparsed.append(line)
        for line in trace.stderr.splitlines():
            if line.strip() and not _UCLIBC_NOTICE.match(line):
                trace.unparsed.append(line)
        interp = self.canonical(info.interpreter or "")
        if interp not in trace.objects:  # add_ldso after the walk: loaded last, not printed
            trace.objects.append(interp)

    def _parse_glibc(self, trace: Trace) -> None:
        trace.objects.append(trace.executable)
        lines, static = glibc_oracle.parse_trace_list(trace.stdout)
        if static:
            trace.unparsed.append("statically linked")
        for line in lines:  # the interpreter's line is "PT_INTERP (ADDR)": name == path
            self._add(trace, line.name, line.path)
        for line in trace.stdout.splitlines():  # anything parse_trace_list passed over silently
            if line.strip() and not (_ENTRY.match(line) or _NOT_FOUND.match(line) or _MUSL_LDSO.match(line)):
                trace.unparsed.append(line)
        for line in trace.stderr.splitlines():
            if m := glibc_oracle._UNDEFINED_RE.match(line):
                trace.unresolved.add((self.canonical(m["path"]) if m["path"] else trace.executable, m["symbol"]))
            elif line.strip() and not glibc_oracle._DEBUG_LINE_RE.match(line):  # LD_DEBUG's own lines
                trace.unparsed.append(line)  # version errors included: linkgraph has no such report
        if trace.returncode != 0:
            trace.unparsed.append(f"exit status {trace.returncode}")

    def _parse_musl(self, trace: Trace) -> None:
        trace.objects.append(trace.executable)
        lines = trace.stdout.splitlines()
        if lines and (m := _MUSL_LDSO.match(lines[0])):
            trace.ldso_line = m["path"]
            lines = lines[1:]
        for line in lines:
            if m := _ENTRY.match(line):
                self._add(trace, m["name"], m["path"])
            elif line.strip():
                trace.unparsed.append(line)
        for line in trace.stderr.splitlines():
            if m := _MUSL_MISSING.match(line):
                self._add(trace, m["name"], None)
            elif m := _MUSL_UNDEFINED.match(line):
                trace.unresolved.add((self.canonical(m["module"]), m["symbol"]))
            elif line.strip():
                trace.unparsed.append(line)


# --------------------------------------------------------------------------- comparison


@dataclass
class Agreement:
    """linkgraph's link maps against the device loader's lists, per traced object."""

    compared: list[str] = field(default_factory=list)
    equal: list[str] = field(default_factory=list)
    differences: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        return f"{len(self.equal)}/{len(self.compared)} link maps equal"

    def explain(self) -> str:
        return self.summary() + "\n" + "\n".join(self.differences.values())


def compare_link_maps(report: dict, traces: dict[str, Trace], unresolved: bool = False) -> Agreement:
    """Objects (order and files) and missing names of each link map; with ``unresolved``, also
    the strong references nothing defines (musl reports them)."""
    maps = {lm["executable"]: lm for lm in report["link_maps"]}
    out = Agreement()
    for path, trace in sorted(traces.items()):
        out.compared.append(path)
        problems = []
        lm = maps.get(trace.executable)
        if trace.unparsed:
            problems.append(f"unexplained loader output: {trace.unparsed}")
        if lm is None:
            problems.append("no link map in linkgraph's report")
        else:
            if lm["objects"] != trace.objects:
                problems.append(f"objects:\n    device    {trace.objects}\n    linkgraph {lm['objects']}")
            if sorted(lm["missing"]) != sorted(trace.missing):
                problems.append(f"missing: device {trace.missing}, linkgraph {lm['missing']}")
            if unresolved:
                ours = {
                    (u["module"], u["symbol"])
                    for u in report["unresolved"]
                    if u["executable"] == trace.executable and not u["weak"]
                }
                if ours != trace.unresolved:
                    problems.append(
                        f"unresolved: only device {sorted(trace.unresolved - ours)}, "
                        f"only linkgraph {sorted(ours - trace.unresolved)}"
                    )
        if problems:
            out.differences[path] = f"{path}:\n  " + "\n  ".join(problems) + "\n" + trace.describe()
        else:
            out.equal.append(path)
    return out
