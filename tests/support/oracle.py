"""Ask the real glibc dynamic linker what it loads and binds: the judge of correctness.

How the oracle works (glibc 2.36, x86-64; behaviour checked on Debian 12):

* ``LD_TRACE_LOADED_OBJECTS=1 /lib64/ld-linux-x86-64.so.2 EXE`` is what ``ldd`` runs.  ld.so maps
  every object exactly as for a real start, prints the ``ldd`` list on *stdout* (one line per
  object of its link chain, in load order, the executable itself left out) and exits before
  running any code of the program.
* Relocation is done in trace mode only when ``LD_WARN`` is set to a non-empty value
  (``if (GLRO(dl_lazy) >= 0 && GLRO(dl_verbose))`` in ``rtld.c``); without it ld.so prints the
  list and no binding at all.  ``LD_BIND_NOW=1`` makes that relocation non-lazy, so PLT slots
  are bound too (lazy mode would leave every ``JUMP_SLOT`` unbound).  IFUNC resolvers are not run
  (``__RTLD_NOIFUNC``), which does not change the lookups.
* ``LD_DEBUG=bindings`` prints, on *stderr*, one line per symbol lookup::

      <pid>:\tbinding file MODULE [NS] to PROVIDER [NS]: normal symbol `SYM' [VERSION]

  ``protected`` replaces ``normal`` when the *reference* has STV_PROTECTED visibility.  VERSION
  is the version the referencing module *requests* (its verneed entry), absent when it requests
  none.  Consecutive relocations against one symbol are served from ld.so's one-entry lookup
  cache and printed once, which is why the oracle works with sets.
* The trace loop relocates every object except ld.so itself (``l != &GL(dl_rtld_map)``): the
  interpreter's own references (``_dl_catch_exception`` etc. to libc in a real start) never
  appear in trace mode, while a real run (``LD_DEBUG=bindings /usr/bin/true``) shows them.
* The vDSO (``linux-vdso.so.1``) is listed and even binds its own symbols; it is not a file, so
  it is dropped.
* ld.so prints the path it opened: the ld.so.cache string (``/lib/x86_64-linux-gnu/...`` on
  Debian 12 whose /lib is a symlink to usr/lib), a RUNPATH-derived path, the interpreter as
  ``/lib64/ld-linux-x86-64.so.2``, and the executable as given on its command line.
  :class:`PathMapper` turns those into canonical device paths.
* ``$ORIGIN`` of the main program is the directory of the path given to ld.so, *not* resolved
  (a kernel-started program gets it from /proc/self/exe, which is resolved).  The executable is
  therefore always passed as its real path.
* Undefined non-weak symbols are printed on stderr as ``undefined symbol: SYM[, version V]\\t(PATH)``
  and missing versions as ``ld.so: PATH: version `V' not found (required by P)``.

``ldd -u EXE`` runs the same trace with ``LD_DEBUG=unused``: ld.so relocates only the executable
and lists the DT_NEEDED entries of the executable whose object no lookup of the executable ended
in (``l_used`` unset), under "Unused direct dependencies:"; it exits with 1 when there are some.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

LD_SO = "/lib64/ld-linux-x86-64.so.2"
LDD = "ldd"
TIMEOUT = 120.0
VDSO_NAMES = frozenset({"linux-vdso.so.1", "linux-gate.so.1", "linux-vdso64.so.1", "linux-vdso32.so.1"})

# (module, symbol, version or None, provider), all canonical device paths.
BindingKey = tuple[str, str, str | None, str]

_BINDING_RE = re.compile(
    r"^\s*(?:\d+:\s*)?binding file (?P<module>.+?) \[\d+\] to (?P<provider>.+?) \[\d+\]: "
    r"(?P<kind>normal|protected) symbol `(?P<symbol>[^']+)'(?: \[(?P<version>[^\]]+)\])?\s*$"
)
_UNDEFINED_RE = re.compile(r"^undefined symbol: (?P<symbol>[^,\t]+)(?:, version (?P<version>\S+))?\t\((?P<path>.*)\)$")
_DEBUG_LINE_RE = re.compile(r"^\s*\d+:\s")  # an LD_DEBUG line ("<pid>:\t...")
# rtld.c do_preload: a name of LD_PRELOAD or /etc/ld.so.preload that could not be loaded
_PRELOAD_ERROR_RE = re.compile(
    r"^ERROR: ld\.so: object '(?P<name>.*)' from (?P<where>.+) cannot be preloaded \((?P<why>.*)\): ignored\.$"
)
_MAPPED_RE = re.compile(r"^(?P<name>.+?) => (?P<path>.+) \(0x[0-9a-f]+\)$")
_PLAIN_RE = re.compile(r"^(?P<name>.+) \(0x[0-9a-f]+\)$")


def _is_vdso(printed: str) -> bool:
    return "/" not in printed and (printed in VDSO_NAMES or printed.startswith("linux-"))


class OracleError(RuntimeError):
    """The real loader could not trace the executable."""


# --------------------------------------------------------------------------- paths


def resolve_in_root(root: str, path: str, max_links: int = 40) -> str:
    """Canonical form of *path* as the device sees it: symlinks resolved inside *root*.

    Absolute link targets are taken relative to *root*, ``..`` never climbs above it.  Missing
    components are kept as they are (the result then simply does not exist in the root).
    """
    parts = [p for p in path.split("/") if p not in ("", ".")]
    resolved: list[str] = []
    links = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = [*resolved, part]
        host = os.path.join(root, *candidate)
        if os.path.islink(host):
            links += 1
            if links > max_links:
                raise OracleError(f"too many symbolic links resolving {path} in {root}")
            target = os.readlink(host)
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            continue
        resolved = candidate
    return "/" + "/".join(resolved)


class PathMapper:
    """Maps a path printed by the host's ld.so to the canonical device path in the scanned root.

    With ``root=None`` the host itself is the device: the answer is the host realpath.  With a
    root directory (a copy of part of the host, see hostroot.py), a path under the root loses
    the root prefix, and every path is then resolved with the root's own symlinks, so
    ``/lib/x86_64-linux-gnu/libc.so.6`` becomes ``/usr/lib/x86_64-linux-gnu/libc.so.6`` through
    the root's ``lib -> usr/lib`` link, exactly as the scanner must canonicalise it.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = os.path.realpath(root) if root is not None else None
        self._cache: dict[str, str] = {}

    def __call__(self, printed: str) -> str:
        hit = self._cache.get(printed)
        if hit is None:
            hit = self._map(printed)
            self._cache[printed] = hit
        return hit

    def _map(self, printed: str) -> str:
        if self.root is None:
            return os.path.realpath(printed)
        path = os.path.abspath(printed)
        if path == self.root or path.startswith(self.root + "/"):
            path = path[len(self.root) :] or "/"
        return resolve_in_root(self.root, path)

    def exists(self, device_path: str) -> bool:
        """Whether the device path is present in the root (always true on the host itself)."""
        if self.root is None:
            return os.path.exists(device_path)
        return os.path.lexists(self.root + device_path)


# --------------------------------------------------------------------------- running ld.so


def _clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any LD_* variable that would change the loader."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


def _run(argv: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True, errors="surrogateescape", timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise OracleError(f"{' '.join(argv)}: timed out after {timeout}s") from exc


@dataclass(slots=True)
class TraceLine:
    """One line of the ldd-style list: the name looked for and the path opened (None: not found)."""

    name: str
    path: str | None


def parse_trace_list(stdout: str) -> tuple[list[TraceLine], bool]:
    """Parse the ldd-style list; returns the lines (vDSO dropped) and whether it said 'statically linked'."""
    lines: list[TraceLine] = []
    static = False
    for raw in stdout.splitlines():
        if not raw.startswith("\t"):
            continue  # LD_WARN messages of older glibc, "Version information", ...
        text = raw.strip()
        if text == "statically linked":
            static = True
            continue
        if text.endswith(" => not found"):
            lines.append(TraceLine(text[: -len(" => not found")], None))
            continue
        m = _MAPPED_RE.match(text)
        if m:
            lines.append(TraceLine(m["name"], m["path"]))
            continue
        m = _PLAIN_RE.match(text)
        if m:
            name = m["name"]
            if _is_vdso(name):
                continue  # the vDSO: no file behind it
            lines.append(TraceLine(name, name))
    return lines, static


def parse_bindings(stderr: str) -> list[tuple[str, str, str | None, str, bool]]:
    """Every binding line as (module, symbol, version, provider, protected), paths as printed."""
    out = []
    for raw in stderr.splitlines():
        if "binding file " not in raw:
            continue
        m = _BINDING_RE.match(raw)
        if m is None:
            raise OracleError(f"unparsed binding line: {raw!r}")
        out.append((m["module"], m["symbol"], m["version"], m["provider"], m["kind"] == "protected"))
    return out


@dataclass(slots=True)
class GlibcTrace:
    """What glibc's ld.so loaded and bound for one executable (canonical device paths)."""

    executable: str
    interpreter: str | None
    objects: list[str]  # load order, executable first, interpreter included, vDSO excluded
    missing: list[str]  # sonames printed as "=> not found"
    bindings: set[BindingKey] = field(default_factory=set)
    protected: set[BindingKey] = field(default_factory=set)  # the "protected symbol" subset
    undefined: list[tuple[str, str | None, str]] = field(default_factory=list)  # (symbol, version, module)
    version_errors: list[str] = field(default_factory=list)
    preload_errors: list[tuple[str, str, str]] = field(default_factory=list)  # (name, file, reason)
    static: bool = False
    raw_list: list[TraceLine] = field(default_factory=list)

    def cross_object(self, exclude_modules: Iterable[str] = ()) -> set[BindingKey]:
        """Bindings whose provider is another object, minus those referenced from *exclude_modules*."""
        skip = set(exclude_modules)
        return {b for b in self.bindings if b[0] != b[3] and b[0] not in skip}


def glibc_list(exe_host_path: str, timeout: float = TIMEOUT) -> list[TraceLine]:
    """The ldd list only (no relocation): fast, used to collect dependency closures."""
    exe = os.path.realpath(exe_host_path)
    proc = _run([LD_SO, exe], _clean_env({"LD_TRACE_LOADED_OBJECTS": "1"}), timeout)
    if proc.returncode != 0:
        raise OracleError(f"{exe}: ld.so exited with {proc.returncode}: {proc.stderr.strip()[:500]}")
    return parse_trace_list(proc.stdout)[0]


def glibc_trace(
    exe_host_path: str,
    root_host_dir: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
) -> GlibcTrace:
    """Trace *exe_host_path* with the host's real ld.so; map its paths into *root_host_dir*.

    The executable is run through its real path (see the module docstring about $ORIGIN).
    *env* adds variables (e.g. LD_LIBRARY_PATH) on top of a cleaned environment.
    """
    exe = os.path.realpath(exe_host_path)
    mapper = PathMapper(root_host_dir)
    run_env = _clean_env(env)
    run_env.update(LD_TRACE_LOADED_OBJECTS="1", LD_WARN="yes", LD_BIND_NOW="1", LD_DEBUG="bindings")
    run_env.pop("LD_DEBUG_OUTPUT", None)
    proc = _run([LD_SO, exe], run_env, timeout)
    if proc.returncode != 0:
        raise OracleError(f"{exe}: ld.so exited with {proc.returncode}: {proc.stderr.strip()[-500:]}")
    lines, static = parse_trace_list(proc.stdout)
    exe_dev = mapper(exe)
    objects = [exe_dev] + [mapper(t.path) for t in lines if t.path is not None]
    missing = [t.name for t in lines if t.path is None]
    # In direct invocation ld.so names itself by its argv[0], i.e. LD_SO.
    trace = GlibcTrace(exe_dev, mapper(LD_SO), objects, missing, static=static, raw_list=lines)
    return add_debug_output(trace, proc.stderr, mapper, exe_dev)


def add_debug_output(trace: GlibcTrace, stderr: str, mapper: Callable[[str], str], exe_dev: str) -> GlibcTrace:
    """Add what ld.so printed on stderr (bindings, undefined symbols, version errors) to ``trace``."""
    for module, symbol, version, provider, protected in parse_bindings(stderr):
        if _is_vdso(module) or _is_vdso(provider):
            continue
        key = (mapper(module), symbol, version, mapper(provider))
        trace.bindings.add(key)
        if protected:
            trace.protected.add(key)
    for raw in stderr.splitlines():
        m = _UNDEFINED_RE.match(raw)
        if m:
            trace.undefined.append((m["symbol"], m["version"], mapper(m["path"]) if m["path"] else exe_dev))
        elif p := _PRELOAD_ERROR_RE.match(raw):
            trace.preload_errors.append((p["name"], p["where"], p["why"]))
        elif not _DEBUG_LINE_RE.match(raw) and ("version `" in raw or "no version information" in raw):
            trace.version_errors.append(raw)
    return trace


def ldd_unused(exe: str, root_host_dir: str | None = None, timeout: float = TIMEOUT) -> list[str]:
    """``ldd -u EXE``: the executable's unused direct dependencies, as canonical device paths.

    Exit code 1 is normal when some are listed; anything else is an error.
    """
    real = os.path.realpath(exe)
    proc = _run([LDD, "-u", real], _clean_env(), timeout)
    if proc.returncode not in (0, 1):
        raise OracleError(f"ldd -u {real}: exit {proc.returncode}: {proc.stderr.strip()[:500]}")
    mapper = PathMapper(root_host_dir)
    out: list[str] = []
    listing = False
    for raw in proc.stdout.splitlines():
        if raw.startswith("Unused direct dependencies:"):
            listing = True
            continue
        if listing and raw.strip():
            out.append(mapper(raw.strip()))
    if proc.returncode == 1 and not out:
        raise OracleError(f"ldd -u {real}: exit 1 without a list: {proc.stdout!r} {proc.stderr!r}")
    return out


# --------------------------------------------------------------------------- many executables


def trace_many(
    executables: Iterable[str], root_host_dir: str | None = None, workers: int | None = None
) -> tuple[dict[str, GlibcTrace], dict[str, list[str]]]:
    """glibc_trace and ldd_unused for many executables in parallel, keyed by device path."""
    exes = list(executables)

    def one(exe: str) -> tuple[GlibcTrace, list[str]]:
        return glibc_trace(exe, root_host_dir), ldd_unused(exe, root_host_dir)

    with ThreadPoolExecutor(max_workers=workers or min(16, (os.cpu_count() or 2) * 2)) as pool:
        results = list(pool.map(one, exes))
    traces = {t.executable: t for t, _ in results}
    unused = {t.executable: u for t, u in results}
    return traces, unused


# --------------------------------------------------------------------------- comparing a report


@dataclass(slots=True)
class Agreement:
    """How a linkgraph JSON report agrees with the oracle, per criterion."""

    executables: int = 0
    no_link_map: list[str] = field(default_factory=list)
    link_map_diffs: list[tuple[str, list[str], list[str], list[str], list[str]]] = field(default_factory=list)
    oracle_bindings: int = 0
    our_bindings: int = 0
    common_bindings: int = 0
    binding_diffs: dict[str, tuple[list[BindingKey], list[BindingKey]]] = field(default_factory=dict)
    unused_diffs: list[tuple[str, list[str], list[str]]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.common_bindings / self.oracle_bindings if self.oracle_bindings else 1.0

    @property
    def precision(self) -> float:
        return self.common_bindings / self.our_bindings if self.our_bindings else 1.0

    def summary(self, examples: int = 5) -> str:
        out = [
            f"executables compared: {self.executables}",
            f"(a) link maps differing from ldd: {len(self.link_map_diffs)}; without a link map: "
            f"{len(self.no_link_map)} {self.no_link_map[:examples]}",
        ]
        for exe, ours, theirs, our_missing, their_missing in self.link_map_diffs[:examples]:
            out.append(f"    {exe}:")
            out.append(f"      ours   {ours} missing={our_missing}")
            out.append(f"      ld.so  {theirs} missing={their_missing}")
        out.append(
            f"(b) cross-object bindings: oracle {self.oracle_bindings}, ours {self.our_bindings}, common "
            f"{self.common_bindings}: recall {self.recall:.4%}, precision {self.precision:.4%}; "
            f"executables with differences: {len(self.binding_diffs)}"
        )
        for exe, (lost, extra) in list(self.binding_diffs.items())[:examples]:
            out.append(f"    {exe}: {len(lost)} not found by us, {len(extra)} not bound by ld.so")
            out.extend(f"      - {b}" for b in lost[:examples])
            out.extend(f"      + {b}" for b in extra[:examples])
        out.append(f"(c) executables whose declared-unused edges differ from ldd -u: {len(self.unused_diffs)}")
        for exe, ours, theirs in self.unused_diffs[:examples]:
            out.append(f"    {exe}: ours {ours}, ldd -u {theirs}")
        return "\n".join(out)


def compare_report(report: dict, traces: Mapping[str, GlibcTrace], unused: Mapping[str, list[str]]) -> Agreement:
    """Compare a ``linkgraph report --format json`` document with oracle traces (keyed by executable).

    Bindings are compared as (module, symbol, version, provider) sets per executable, for
    cross-object bindings only (module != provider), leaving out those whose referencing module
    is the interpreter: trace mode never relocates ld.so itself (see the module docstring), so the
    oracle cannot judge them.
    """
    agreement = Agreement(executables=len(traces))
    link_maps = {lm["executable"]: lm for lm in report.get("link_maps", [])}
    ours_by_exe: dict[str, set[BindingKey]] = {exe: set() for exe in traces}
    for b in report.get("bindings", []):
        bucket = ours_by_exe.get(b["executable"])
        if bucket is not None and b["module"] != b["provider"]:
            bucket.add((b["module"], b["symbol"], b["version"], b["provider"]))
    unused_by_exe: dict[str, list[str]] = {exe: [] for exe in traces}
    for dep in report.get("dependencies", []):
        bucket_u = unused_by_exe.get(dep["from"])
        if bucket_u is not None and dep["status"] == "declared-unused":
            bucket_u.append(dep["to"])
    for exe, trace in sorted(traces.items()):
        lm = link_maps.get(exe)
        if lm is None:
            agreement.no_link_map.append(exe)
        elif lm["objects"] != trace.objects or sorted(lm.get("missing", [])) != sorted(trace.missing):
            diff = (exe, lm["objects"], trace.objects, lm.get("missing", []), trace.missing)
            agreement.link_map_diffs.append(diff)
        skip = {trace.interpreter} if trace.interpreter else set()
        theirs = trace.cross_object(skip)
        ours = {b for b in ours_by_exe[exe] if b[0] not in skip}
        common = ours & theirs
        agreement.oracle_bindings += len(theirs)
        agreement.our_bindings += len(ours)
        agreement.common_bindings += len(common)
        if ours != theirs:
            agreement.binding_diffs[exe] = (sorted(theirs - ours, key=str), sorted(ours - theirs, key=str))
        if sorted(unused_by_exe[exe]) != sorted(unused.get(exe, [])):
            agreement.unused_diffs.append((exe, sorted(unused_by_exe[exe]), sorted(unused.get(exe, []))))
    return agreement
