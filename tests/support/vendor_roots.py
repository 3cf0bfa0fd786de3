"""The four stock vendor roots of ``../shared/firmware/roots`` (:data:`VENDOR_ROOTS`), extracted
into the test cache once per archive (:func:`extracted_root`), and one root's whole check
(:func:`check_vendor_root`): scanned with linkgraph, every program traced by the device's own
loader under qemu-user (:class:`CachedLoader` keeps the loader's output), the link maps compared;
for glibc also the bindings (:func:`glibc_bindings`).

tests/test_vendor_roots.py holds the criterion and the tests; bench/vendor_agreement.py runs the
same check outside pytest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from conftest import scan_and_report

from . import oracle
from . import qemu_oracle as qo
from . import runtime_oracle as ro
from .hostroot import cache_dir

ROOTS_DIR = qo.FIRMWARE_DIR / "roots"
# Bumped whenever the cached loader output would no longer match what the code asks for.
TRACE_CACHE_VERSION = 1


@dataclass(frozen=True)
class VendorRoot:
    """What the firmware README says about one root, and what the oracle must find in it."""

    name: str
    kind: str  # the loader of every program: "uclibc" | "glibc" | "musl"
    qemu: str  # qemu-user target
    programs: int  # dynamic programs the kernel hands to the loader


VENDOR_ROOTS = {
    r.name: r
    for r in (
        VendorRoot("hilink_hlk-rm04", "uclibc", "mipsel", 27),
        VendorRoot("dlink_dir880l", "uclibc", "arm", 91),
        VendorRoot("jiofi2_m2", "glibc", "arm", 253),
        VendorRoot("alt_xiaomi_r4a", "musl", "mipsel", 93),
    )
}


# --------------------------------------------------------------------------- cache


def sha256_of(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def archive_of(name: str) -> Path:
    archive = ROOTS_DIR / f"{name}.tar.xz"
    if not archive.is_file():
        raise qo.OracleError(f"vendor root archive {archive} is missing (see {ROOTS_DIR.parent}/README.md)")
    return archive


def extracted_root(name: str) -> tuple[Path, str]:
    """The archive's ``rootfs`` extracted into the cache (once per archive content), and the
    archive's sha256."""
    archive = archive_of(name)
    sha = sha256_of(archive)
    final = cache_dir() / "vendor-roots" / name / sha[:20]
    root = final / "rootfs"
    if (final / "extracted").is_file():
        return root, sha
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="extracting-", dir=final.parent))
    try:
        proc = subprocess.run(["tar", "-xJf", str(archive), "-C", str(work)], capture_output=True, text=True)
        if proc.returncode != 0 or not (work / "rootfs").is_dir():
            raise qo.OracleError(f"tar -xJf {archive} failed ({proc.returncode}):\n{proc.stderr}")
        (work / "extracted").write_text(f"{archive.name} {sha}\n")
        if final.exists():  # an interrupted or stale extraction
            shutil.rmtree(final)
        try:
            os.rename(work, final)
        except OSError:
            if not (final / "extracted").is_file():  # not a concurrent extraction that won the race
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return root, sha


def qemu_host_binary(arch: str) -> Path:
    found = shutil.which(f"qemu-{arch}-static")
    if found is None:
        raise qo.OracleError(f"qemu-{arch}-static not found: apt-get install qemu-user-static")
    return Path(found)


class CachedLoader(qo.DeviceLoader):
    """A DeviceLoader whose runs are kept in a JSON file (command line and environment ->
    exit status, stdout, stderr); the file's name carries everything else the output depends
    on (the archive's and the qemu binary's sha256)."""

    def __init__(self, root: Path, workdir: Path, cache_file: Path) -> None:
        super().__init__(root, workdir)
        self.cache_file = cache_file
        self.runs: dict[str, dict] = {}
        if cache_file.is_file():
            try:
                self.runs = json.loads(cache_file.read_text())
            except ValueError:
                self.runs = {}
        self.hits = self.misses = 0
        self._cache_lock = threading.Lock()

    def _key(self, argv: list[str], env: dict[str, str]) -> str:
        return json.dumps([argv, sorted(env.items())])

    def _fresh(self, argv: list[str], env: dict[str, str]) -> dict:
        """One real run of the device loader, as the cache keeps it."""
        proc = super()._run(argv, env)
        return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

    def _run(self, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        key = self._key(argv, env)
        with self._cache_lock:
            hit = self.runs.get(key)
        if hit is None:
            hit = self._fresh(argv, env)
            with self._cache_lock:
                self.runs[key] = hit
                self.misses += 1
        else:
            with self._cache_lock:
                self.hits += 1
        self._replayed(hit)
        return subprocess.CompletedProcess(argv, hit["returncode"], hit["stdout"], hit["stderr"])

    def _replayed(self, hit: dict) -> None:
        """Called with every run's cached record (a subclass keeps more of it)."""

    def save(self) -> None:
        if not self.misses:
            return
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.runs))
        os.replace(tmp, self.cache_file)


# --------------------------------------------------------------------------- one root


@dataclass
class VendorCheck:
    """One vendor root, linkgraph's report of it and the device loader's traces."""

    spec: VendorRoot
    root: Path
    loader: CachedLoader
    report: dict
    programs: list[str]
    others: list[str]  # other link-map roots (libraries, plugins) the loader could list
    traces: dict[str, qo.Trace]
    agreement: qo.Agreement  # programs
    others_agreement: qo.Agreement  # the other link-map roots
    errors: list[dict] = field(default_factory=list)  # error problems the device does not share
    refused: list[dict] = field(default_factory=list)  # error problems of files the device refuses
    seconds: dict[str, float] = field(default_factory=dict)

    def figures(self) -> str:
        a, o = self.agreement, self.others_agreement
        text = f"{self.spec.name}: programs {len(a.equal)}/{len(a.compared)} link maps equal"
        if o.compared:
            text += f", other link-map roots {len(o.equal)}/{len(o.compared)}"
        problems = self.report["problems"]
        n_errors = sum(1 for p in problems if p["severity"] == "error")
        text += f"; problems {len(problems)} ({n_errors} errors, {len(self.refused)} refused by the device too)"
        text += f"; loader runs {self.loader.hits} cached, {self.loader.misses} run"
        text += "; " + ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        return text


def refused_by_device(check: VendorCheck, path: str) -> bool:
    """Whether the device's loader refuses the file too: it is in no list the loader printed,
    and traced itself (as a program, or with glibc and musl as a library) it fails."""
    if any(path in t.objects[1:] for t in check.traces.values()):
        return False
    info = check.loader.elves.get(path)
    if info is None:  # not an ELF file as pyelftools reads it: no loader would map it
        return True
    if path in check.traces:
        trace = check.traces[path]
    elif info.interpreter or check.spec.kind != "uclibc":
        trace = check.loader.trace(path)
    else:
        return True  # uClibc cannot list a library: it is never loaded
    return trace.returncode != 0 and not trace.entries


def check_vendor_root(name: str, work: Path, qemu_cache: bool = True) -> VendorCheck:
    """Extract, scan and trace one vendor root; compare linkgraph's link maps with the traces."""
    spec = VENDOR_ROOTS[name]
    t0 = time.monotonic()
    qemu = qemu_host_binary(spec.qemu)
    root, sha = extracted_root(name)
    seconds = {"extract": time.monotonic() - t0}
    key = f"{sha[:20]}-{sha256_of(qemu)[:20]}-v{TRACE_CACHE_VERSION}"
    cache_file = cache_dir() / "vendor-roots" / name / f"traces-{key}.json"
    if not qemu_cache:
        cache_file = work / "traces.json"
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    report = scan_and_report(root, work / "graph.lbdb")
    seconds["scan+report"] = time.monotonic() - t0
    return check_root(spec, root, report, work, cache_file, seconds)


def check_root(
    spec: VendorRoot, root: Path, report: dict, work: Path, cache_file: Path, seconds: dict[str, float] | None = None
) -> VendorCheck:
    """Trace every program of an unpacked root (and, for glibc and musl, every other link-map root
    of linkgraph's *report*) with the root's own loader, and compare the link maps."""
    seconds = dict(seconds or {})
    t0 = time.monotonic()
    work.mkdir(parents=True, exist_ok=True)
    loader = CachedLoader(root, work, cache_file)
    programs = qo.dynamic_executables(loader.elves, sonameless_pie=True)
    kinds = {qo.loader_kind(loader.elves[p].interpreter) for p in programs}
    if kinds != {spec.kind}:
        raise qo.OracleError(f"{spec.name}: expected {spec.kind} programs only, found loaders {kinds}")
    others: list[str] = []
    if spec.kind in ("glibc", "musl"):  # these loaders list a library too
        others = sorted(
            lm["executable"]
            for lm in report["link_maps"]
            if lm["executable"] not in programs and lm["executable"] in loader.elves
        )
    traces = loader.trace_many(programs + others)
    loader.save()
    seconds["oracle"] = time.monotonic() - t0
    relocates = spec.kind in ("glibc", "musl")
    check = VendorCheck(
        spec, root, loader, report, programs, others, traces,
        qo.compare_link_maps(report, {p: traces[p] for p in programs}, unresolved=relocates),
        qo.compare_link_maps(report, {p: traces[p] for p in others}, unresolved=relocates),
        seconds=seconds,
    )  # fmt: skip
    for problem in report["problems"]:
        if problem["severity"] == "error":
            (check.refused if refused_by_device(check, problem["path"]) else check.errors).append(problem)
    loader.save()
    return check


def glibc_bindings(check: VendorCheck) -> oracle.Agreement:
    """Every program's cross-object bindings (``LD_DEBUG=bindings``) and declared-unused NEEDED
    edges (``LD_DEBUG=unused``, what ``ldd -u`` runs) as the device's glibc loader reports
    them, compared with linkgraph's by tests/support/oracle.py's ``compare_report`` (ld.so's own
    references left out: trace mode does not relocate it; names ld.so could not load left out
    of the unused list: linkgraph calls those edges ``missing``).

    Prelinked programs (``DT_GNU_LIBLIST``) are left out of the binding comparison: trace mode
    exits before glibc's prelink check and looks every symbol up, while a real start of such a
    program keeps the slots prelink wrote (loader/ldso/prelink.py); tests/test_prelink.py judges their
    bindings by the runtime oracle. Their link maps and unused edges are compared here."""
    loader = check.loader

    def one(path: str) -> tuple[oracle.GlibcTrace, list[str]]:
        base = check.traces[path]
        bound = loader.trace(path, {"LD_DEBUG": "bindings"})
        interpreter = loader.canonical(loader.elves[path].interpreter or "")
        trace = oracle.add_debug_output(
            oracle.GlibcTrace(path, interpreter, base.objects, base.missing), bound.stderr, loader.canonical, path
        )
        lines = loader.trace(path, {"LD_DEBUG": "unused"}).stdout.splitlines()
        names = []
        if "Unused direct dependencies:" in lines:
            names = [x.strip() for x in lines[lines.index("Unused direct dependencies:") + 1 :] if x.strip()]
        return trace, [loader.canonical(n) for n in names if n.startswith("/")]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(check.programs, pool.map(one, check.programs), strict=True))
    loader.save()
    traces = {p: t for p, (t, _) in results.items()}
    unused = {p: u for p, (_, u) in results.items()}
    prelinked = {p for p in check.programs if ro.DT_GNU_LIBLIST in ro.DynElf(check.root / p.lstrip("/")).tags}
    for path in prelinked:
        traces[path].bindings = set()
    report = dict(check.report, bindings=[b for b in check.report["bindings"] if b["executable"] not in prelinked])
    return oracle.compare_report(report, traces, unused)
