"""The runtime binding oracle (runtime_oracle.py) against the loaders' own word.

* **Debian roots** (armhf, arm64, mipsel, i386; debian_roots.py): for every dynamic program of the
  root, the bindings read from memory at run time equal glibc's own trace-mode ``LD_DEBUG=bindings``
  (foreign_oracle.py) exactly, both ways, after the documented alignment (ld.so's own references
  left out of both sides, copy relocations and unobserved slots left out of the LD_DEBUG side: none
  of either in these roots), and the link map read from ``r_debug`` equals the ``LD_TRACE`` list.
* **Freifunk Ulm 0.6.5** (uClibc 0.9.33.2) and **TP-Link's stock MR3020** (uClibc 0.9.30), both
  big-endian MIPS: the programs of :data:`UCLIBC_IMAGES` reach their entry point, each one's link
  map from ``r_debug`` equals the one uClibc's ``LD_TRACE_LOADED_OBJECTS`` prints
  (qemu_oracle.DeviceLoader.trace), and every symbol slot of each program (global GOT and
  relocations, slot_outcomes.py) has an outcome (no slot silently missing, no lazy stub taken for
  a binding); run without ``LD_BIND_NOW``, the stubs uClibc leaves are unobserved "not bound".
* **A synthetic x86-64 root** built here with gcc and the host's glibc: the cases the real roots do
  not show on demand -- a copy relocation, a weak reference nothing defines, TLS through both
  ``TPOFF`` and ``DTPMOD``, a TLS variable only another object reaches (its module id from the
  load order, runtime_tls.py, and the mapping refused when an anchor contradicts it), lazy PLT
  slots without ``LD_BIND_NOW`` (unobserved, not bound), an IFUNC whose resolver returns another
  library's function, a library initialiser that rewrites a relocated data slot, and programs
  that never reach their entry point
  (missing library, unresolved strong symbol under ``LD_BIND_NOW``, an initialiser that exits, one
  that crashes, one that never returns).

A missing ``gdb-multiarch`` or ``qemu-ARCH-static`` fails the tests; nothing is skipped.  Results of
the real roots are cached (runtime_oracle.runtime_bindings); a cold run takes about a minute.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import debian_roots, foreign_oracle, oracle, slot_outcomes
from support import qemu_oracle as qo
from support import runtime_oracle as ro
from support import runtime_tls as tls
from support.runtime_linkmap import _Loaded
from support.runtime_slots import _SlotReader

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

ARCHES = list(debian_roots.ARCHES)
MIN_BINDINGS = 5_000  # about 9,500 cross-object bindings per Debian architecture
# uClibc images by file-name prefix: programs that must reach their entry point (measured: all)
UCLIBC_IMAGES = {"ffulm-0.6.5-": 48, "tplink-mr3020v1-3.17.2-": 33}


def test_tools_are_installed() -> None:
    missing = [tool for tool in (ro.GDB, "chroot") if shutil.which(tool) is None]
    missing += [f"qemu-{q}-static" for q in ("arm", "aarch64", "mipsel", "i386", "mips", "x86_64")
                if shutil.which(f"qemu-{q}-static") is None]  # fmt: skip
    assert not missing, f"missing {missing}: apt-get install gdb-multiarch qemu-user-static coreutils"


# --------------------------------------------------------------------------- Debian roots


@dataclass
class DebianRun:
    arch: str
    root: Path
    executables: list[str]
    runtime: dict[str, ro.RuntimeTrace]
    glibc: dict[str, oracle.GlibcTrace]
    comparison: ro.LdDebugComparison
    seconds: dict[str, float]


@pytest.fixture(scope="module", params=ARCHES)
def debian(request: pytest.FixtureRequest) -> DebianRun:
    arch: str = request.param
    root = debian_roots.cached_debian_root(arch)
    executables = foreign_oracle.root_executables(root)
    t0 = time.monotonic()
    runtime = ro.runtime_bindings(root, executables, jobs=2)
    t1 = time.monotonic()
    glibc = {exe: foreign_oracle.foreign_trace(arch, root, exe) for exe in executables}
    t2 = time.monotonic()
    seconds = {"runtime oracle": t1 - t0, "LD_DEBUG": t2 - t1}
    return DebianRun(arch, root, executables, runtime, glibc, ro.compare_with_ld_debug(runtime, glibc), seconds)


def test_debian_every_program_reaches_its_entry_point(debian: DebianRun) -> None:
    missing = {exe: t.reason for exe, t in debian.runtime.items() if not t.covered}
    assert set(debian.runtime) == set(debian.executables)
    assert missing == {}, f"{debian.arch}: not covered: {missing}"
    assert all(t.snapshot == "relocated" for t in debian.runtime.values())


def test_debian_bindings_equal_ld_debug(debian: DebianRun, capsys: pytest.CaptureFixture[str]) -> None:
    c = debian.comparison
    times = ", ".join(f"{k} {v:.1f}s" for k, v in debian.seconds.items())
    with capsys.disabled():
        print(f"\n[{debian.arch}] {c.summary()} ({times})")
    assert c.equal, f"{debian.arch}: runtime oracle != LD_DEBUG=bindings\n{c.summary(examples=20)}"
    assert c.runtime == c.ld_debug == c.common >= MIN_BINDINGS, c.summary()
    # nothing was left out on the LD_DEBUG side: every slot of these roots is observed
    assert c.excluded == {"copy": 0, "unobserved": 0}, c.summary()
    unobserved = {exe: t.unobserved for exe, t in debian.runtime.items() if t.unobserved}
    assert unobserved == {}, unobserved


def test_debian_interpreter_bindings_only_at_run_time(debian: DebianRun) -> None:
    """Why the interpreter's references are left out: trace mode shows none, a real run some."""
    interp = foreign_oracle.interpreter_of(debian.root, "/usr/bin/busybox")
    traced = {b for t in debian.glibc.values() for b in t.bindings if b[0] == interp}
    assert traced == set()
    assert debian.comparison.interpreter_bindings > 0
    real = {b for t in debian.runtime.values() for b in t.bindings if b[0] == interp}
    assert all(b[3] != interp for b in real) and real, real


# --------------------------------------------------------------------------- uClibc images


@dataclass
class UclibcRun:
    prefix: str
    root: Path
    runtime: dict[str, ro.RuntimeTrace]
    loader: qo.DeviceLoader


@pytest.fixture(scope="module", params=list(UCLIBC_IMAGES))
def uclibc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> UclibcRun:
    prefix: str = request.param
    root = qo.extract_root(qo.firmware_image(prefix), tmp_path_factory.mktemp("uclibc-rt"))
    loader = qo.DeviceLoader(root, tmp_path_factory.mktemp("uclibc-trace"))
    executables = qo.dynamic_executables(loader.elves)
    return UclibcRun(prefix, root, ro.runtime_bindings(root, executables, jobs=2), loader)


def test_uclibc_link_maps_equal_ld_trace(uclibc: UclibcRun, capsys: pytest.CaptureFixture[str]) -> None:
    runtime, loader = uclibc.runtime, uclibc.loader
    covered = {exe: t for exe, t in runtime.items() if t.covered}
    with capsys.disabled():
        print(f"\n[{uclibc.prefix}] {len(covered)}/{len(runtime)} programs covered, "
              f"{sum(len(t.bindings) for t in covered.values())} cross-object bindings, "
              f"{sum(len(t.copies) for t in covered.values())} copy relocations left out")  # fmt: skip
    assert len(covered) >= UCLIBC_IMAGES[uclibc.prefix], {exe: t.reason for exe, t in runtime.items() if not t.covered}
    traces = loader.trace_many(covered)
    differing = {
        exe: (t.objects, traces[exe].objects) for exe, t in covered.items() if t.objects != traces[exe].objects
    }
    assert differing == {}, "\n".join(f"{e}:\n  r_debug  {a}\n  LD_TRACE {b}" for e, (a, b) in differing.items())
    assert all(t.snapshot == "relocated" and not t.unobserved for t in covered.values())
    assert all(t.bindings for t in covered.values())


def test_uclibc_every_program_got_slot_observed(uclibc: UclibcRun) -> None:
    """No blind spot on MIPS: for every covered program, each entry of its global GOT (read with
    pyelftools, slot_outcomes.py) has an outcome in the oracle's result (a binding, a self binding, an
    unresolved weak reference, a copy, or an unobserved slot with its reason: none here), so a slot
    left unread or a lazy stub the loader did not bind cannot go missing silently."""
    short, stubs, slots = {}, {}, 0
    for exe, trace in uclibc.runtime.items():
        if not trace.covered:
            continue
        got = slot_outcomes.program_slot_symbols(uclibc.root / exe.lstrip("/"))
        assert got, f"{exe}: no global GOT entry"
        slots += len(got)
        if missing := sorted(set(got) - slot_outcomes.outcome_names(trace, exe)):
            short[exe] = missing
        if stub := slot_outcomes.lazy_self_bindings(trace, exe, got):
            stubs[exe] = stub
    print(f"[{uclibc.prefix}] {slots} program slot symbols of covered programs, each with an outcome")
    assert short == {} and stubs == {}, (short, stubs)


def test_uclibc_lazy_stubs_are_not_bindings(uclibc: UclibcRun) -> None:
    """Without ``LD_BIND_NOW`` uClibc's MIPS loader leaves the lazy stubs of undefined functions in the
    global GOT (``_dl_perform_mips_global_got_relocations``) and the PLT slots at PLT0: the oracle,
    run so, must call each such slot unobserved ("not bound: ...") -- never a self binding -- and
    still give every slot of the program an outcome."""
    covered = sorted(exe for exe, t in uclibc.runtime.items() if t.covered)[:4]
    with ro.RuntimeOracle(uclibc.root, guest_env={}) as lazy_oracle:
        runs = lazy_oracle.trace_many(covered)
    not_bound = 0
    for exe, trace in runs.items():
        assert trace.covered, trace.describe()
        slots = slot_outcomes.program_slot_symbols(uclibc.root / exe.lstrip("/"))
        assert set(slots) <= slot_outcomes.outcome_names(trace, exe), sorted(
            set(slots) - slot_outcomes.outcome_names(trace, exe)
        )
        assert slot_outcomes.lazy_self_bindings(trace, exe, slots) == []
        reasons = {k: v for k, v in trace.unobserved.items() if k[0] == exe}
        assert all(v.startswith("not bound: ") and slots.get(k[1]) for k, v in reasons.items()), reasons
        not_bound += len(reasons)
    print(f"[{uclibc.prefix}] lazily bound: {not_bound} program slots of {len(runs)} programs not bound")
    assert not_bound > 0


# --------------------------------------------------------------------------- a synthetic x86-64 root

SOURCES = {
    "prov.c": """
int prov_data = 7;
__thread int prov_tls = 5;
static __thread int prov_own_tls __attribute__((tls_model("initial-exec"))) = 3;
int prov_func(void) { return ++prov_own_tls; }
int (*prov_ptr)(void) = prov_func;
int prov_ld(void) { static __thread int n __attribute__((tls_model("local-dynamic"))); return ++n; }
""",
    "tlsuser.c": """
extern __thread int prov_tls, only_tls;
extern int missing_weak(void) __attribute__((weak));
int tls_user(void) { return prov_tls + only_tls + (missing_weak ? 1 : 0); }
""",
    # TLS that only another object reaches (libtlsuser, general dynamic): no DTPMOD slot of its own
    "tlsonly.c": "__thread int only_tls = 9;\n",
    "hook.c": """
extern int (*prov_ptr)(void);
int hook_func(void) { return 42; }
__attribute__((constructor)) static void hook_init(void) { prov_ptr = hook_func; }
""",
    "ifunc.c": """
extern int prov_func(void);
static void *resolve_ifn(void) { return (void *)prov_func; }
int ifn(void) __attribute__((ifunc("resolve_ifn")));
""",
    "main.c": """
#include <stdio.h>
extern int prov_data;
extern __thread int prov_tls;
extern int prov_func(void), ifn(void), tls_user(void);
int main(void) { printf("%d %d %d %d %d\\n", prov_data, prov_tls, prov_func(), ifn(), tls_user()); return 0; }
""",
    "gone.c": "int gone(void) { return 1; }\n",
    "exit.c": "#include <unistd.h>\n__attribute__((constructor)) static void f(void) { _exit(3); }\nint exiter;\n",
    "crash.c": "#include <signal.h>\n__attribute__((constructor)) static void f(void) { raise(SIGSEGV); }\n"
    "int crasher;\n",
    "hang.c": "#include <unistd.h>\n__attribute__((constructor)) static void f(void) { for (;;) pause(); }\n"
    "int hanger;\n",
    "undef.c": "extern int nowhere(void);\nint undef_user(void) { return nowhere(); }\n",
    "uses.c": "extern int USED(void);\nint main(void) { return USED(); }\n",
    "usesvar.c": "extern int USED;\nint main(void) { return USED; }\n",
}
LIBDIR = "/usr/lib/rt"
RPATH = f"-Wl,-rpath,{LIBDIR}:/lib/x86_64-linux-gnu"


def _gcc(*args: str | Path) -> None:
    proc = subprocess.run(["gcc", *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == 0, f"gcc {args}:\n{proc.stderr}"


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """/usr/bin/main and the failing programs, their libraries in /usr/lib/rt, the host's glibc."""
    work = tmp_path_factory.mktemp("rt-synthetic")
    src, root = work / "src", work / "root"
    src.mkdir()
    for name, text in SOURCES.items():
        (src / name).write_text(text)
    lib, bin_ = root / LIBDIR.lstrip("/"), root / "usr/bin"
    lib.mkdir(parents=True)
    bin_.mkdir(parents=True)
    _gcc("-shared", "-fPIC", "-O1", "-o", lib / "libprov.so", src / "prov.c")
    for name, deps in (("tlsonly", []), ("tlsuser", ["-lprov", "-ltlsonly"]), ("hook", ["-lprov"]),
                       ("ifunc", ["-lprov"]), ("gone", []),
                       ("exit", []), ("crash", []), ("hang", []), ("undef", [])):  # fmt: skip
        _gcc("-shared", "-fPIC", "-O1", "-o", lib / f"lib{name}.so", src / f"{name}.c", f"-L{lib}", *deps, RPATH)
    main_libs = ["-lprov", "-lifunc", "-ltlsuser", "-lhook"]
    _gcc("-O1", "-no-pie", "-fno-pic", "-o", bin_ / "main", src / "main.c", f"-L{lib}", "-Wl,--no-as-needed",
         *main_libs, f"-Wl,-rpath-link,{lib}", RPATH)  # fmt: skip
    for prog, used, var in (("gone", "gone", False), ("exit", "exiter", True), ("crash", "crasher", True),
                            ("hang", "hanger", True), ("undef", "undef_user", False)):  # fmt: skip
        _gcc("-O1", f"-DUSED={used}", "-o", bin_ / prog, src / ("usesvar.c" if var else "uses.c"), f"-L{lib}",
             "-Wl,--no-as-needed", "-Wl,--allow-shlib-undefined", f"-l{prog}", RPATH)  # fmt: skip
    (lib / "libgone.so").unlink()  # /usr/bin/gone needs it
    interp = ro.DynElf(bin_ / "main").interp
    libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True, text=True).stdout.strip()
    for host, device in ((interp, interp), (libc, "/lib/x86_64-linux-gnu/libc.so.6")):
        target = root / device.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(host).resolve(), target)
    return root


@pytest.fixture(scope="module")
def synthetic_runs(synthetic: Path) -> dict[str, ro.RuntimeTrace]:
    with ro.RuntimeOracle(synthetic, timeout=30) as oracle_:
        runs = oracle_.trace_many(["/usr/bin/main", "/usr/bin/gone", "/usr/bin/exit", "/usr/bin/crash",
                                   "/usr/bin/undef"])  # fmt: skip
    with ro.RuntimeOracle(synthetic, timeout=3) as quick:
        runs.update(quick.trace_many(["/usr/bin/hang"]))
    return runs


def test_synthetic_bindings(synthetic_runs: dict[str, ro.RuntimeTrace]) -> None:
    main = synthetic_runs["/usr/bin/main"]
    assert main.covered, main.reason
    lib = LIBDIR
    exe, prov, tlsuser, only = "/usr/bin/main", f"{lib}/libprov.so", f"{lib}/libtlsuser.so", f"{lib}/libtlsonly.so"
    assert main.objects[:5] == [exe, prov, f"{lib}/libifunc.so", tlsuser, f"{lib}/libhook.so"], main.objects
    expected = {
        (exe, "prov_func", None, prov),  # PLT slot
        (exe, "prov_tls", None, prov),  # TLS, initial-exec: TPOFF64 in the program
        (tlsuser, "prov_tls", None, prov),  # TLS, general dynamic: DTPMOD64 (+ DTPOFF64)
        (tlsuser, "only_tls", None, only),  # the same, module id from the load order (no own anchor)
        (exe, "ifn", None, prov),  # the IFUNC in libifunc returned libprov's function
        (f"{lib}/libhook.so", "prov_ptr", None, prov),
    }
    assert expected <= main.bindings, sorted(expected - main.bindings)
    assert (exe, "ifn", None, prov) in main.redirected
    assert main.copies == {(exe, "prov_data", None)}  # R_X86_64_COPY: no provider claimed
    assert (tlsuser, "missing_weak", None) in main.unresolved
    # libhook's initialiser rewrote libprov's prov_ptr (relocated to prov_func): the oracle reports
    # the loader's value, from before the first initialiser, and that the slot changed afterwards
    assert (prov, "prov_func", None, prov) in main.self_bindings
    assert (prov, "prov_func", None, f"{lib}/libhook.so") not in main.bindings
    assert (prov, "prov_func", None) in main.changed_by_init
    assert main.snapshot == "relocated" and not main.unobserved
    # libprov's id is anchored by its own local-dynamic DTPMOD; libtlsonly's only by the load order
    assert main.tls_by_rule == {(tlsuser, "only_tls", None, only)}, main.tls_by_rule


def test_synthetic_against_ld_debug(
    synthetic: Path, synthetic_runs: dict[str, ro.RuntimeTrace], tmp_path: Path
) -> None:
    """The host glibc's trace-mode LD_DEBUG=bindings, run the same way (chroot, qemu-x86_64-static)."""
    loader = qo.DeviceLoader(synthetic, tmp_path)
    exe = "/usr/bin/main"
    main = synthetic_runs[exe]
    trace = ro.device_ld_debug(loader, exe)
    c = ro.compare_with_ld_debug({exe: main}, {exe: trace})
    prov, ifunc = f"{LIBDIR}/libprov.so", f"{LIBDIR}/libifunc.so"
    # the one documented difference: LD_DEBUG names the object whose IFUNC the lookup found, the
    # runtime oracle the object the resolver's result lies in; the copy relocation is left out
    assert c.only_ld_debug == {exe: [(exe, "ifn", None, ifunc)]}, c.summary()
    assert c.only_runtime == {exe: [(exe, "ifn", None, prov)]}, c.summary()
    assert c.explained == {"IFUNC redirect": 1} and c.excluded["copy"] == 1, c.summary()
    assert not c.link_map_diffs and not c.not_covered


def test_synthetic_lazy_plt_slots_are_not_bindings(synthetic: Path) -> None:
    """Without ``LD_BIND_NOW`` glibc leaves every PLT slot (``DT_JMPREL``) at its lazy stub: each of
    the program's is unobserved ("not bound"), none a self binding, and every slot has an outcome."""
    exe = "/usr/bin/main"
    with ro.RuntimeOracle(synthetic, timeout=30, guest_env={}) as lazy_oracle:
        main = lazy_oracle.trace(exe)
    assert main.covered, main.reason
    slots = slot_outcomes.program_slot_symbols(synthetic / exe.lstrip("/"))
    plt = {name for name, lazy in slots.items() if lazy}
    assert {"prov_func", "ifn", "printf"} <= plt, slots
    assert set(slots) <= slot_outcomes.outcome_names(main, exe)
    reasons = {k[1]: v for k, v in main.unobserved.items() if k[0] == exe}
    assert set(reasons) == plt and all(v.startswith("not bound: ") for v in reasons.values()), reasons
    assert slot_outcomes.lazy_self_bindings(main, exe, slots) == []
    assert (exe, "prov_tls", None, f"{LIBDIR}/libprov.so") in main.bindings  # not lazy: bound all the same


def test_synthetic_not_covered(synthetic_runs: dict[str, ro.RuntimeTrace]) -> None:
    runs = synthetic_runs
    for exe in ("/usr/bin/gone", "/usr/bin/exit", "/usr/bin/crash", "/usr/bin/undef", "/usr/bin/hang"):
        assert not runs[exe].covered and not runs[exe].bindings, (exe, runs[exe].describe())
    assert "status 127" in runs["/usr/bin/gone"].reason and "libgone.so" in runs["/usr/bin/gone"].reason
    assert "status 3" in runs["/usr/bin/exit"].reason
    assert "SIGSEGV" in runs["/usr/bin/crash"].reason
    assert "undefined symbol: nowhere" in runs["/usr/bin/undef"].reason
    assert runs["/usr/bin/hang"].reason.startswith("timeout")


def test_cache_round_trip(synthetic_runs: dict[str, ro.RuntimeTrace]) -> None:
    for trace in synthetic_runs.values():
        again = ro.RuntimeTrace.from_json(trace.to_json())
        assert again.to_json() == trace.to_json()
        assert again.bindings == trace.bindings and again.unobserved == trace.unobserved


def _tls_mapping(root: Path, objects: list[str], anchor: int, dtpoff: int) -> ro.RuntimeTrace:
    """runtime_slots' mapping of one process made of the synthetic files at made-up bases, every slot
    unreadable except libprov's own (lookup-free) DTPMOD slots, which hold ``anchor``, and libtlsuser's
    ``only_tls`` pair: DTPMOD 3 (libtlsonly's place in the load order) and DTPOFF ``dtpoff``."""
    loaded = [
        _Loaded(path, 0x1000_0000 * (k + 1), ro.DynElf(root / path.lstrip("/"))) for k, path in enumerate(objects)
    ]
    values: list[list[int | None]] = []
    for obj in loaded:
        row: list[int | None] = []
        for slot in obj.elf.slots():
            value = None
            if obj.path.endswith("/libprov.so") and slot.kind == "dtpmod" and slot.local:
                value = anchor
            elif obj.path.endswith("/libtlsuser.so") and slot.name == "only_tls":
                value = 3 if slot.kind == "dtpmod" else dtpoff
            row.append(value)
        values.append(row)
    result = ro.RuntimeTrace(objects[0], True)
    _SlotReader()._bindings(loaded, values, result)
    return result


def test_tls_module_ids_from_the_load_order(synthetic: Path, synthetic_runs: dict[str, ro.RuntimeTrace]) -> None:
    """The load-order rule is used only when it agrees with every anchor, and its DTPOFF fits the block."""
    objects = synthetic_runs["/usr/bin/main"].objects
    tls_objects = [p for p in objects if ro.DynElf(synthetic / p.lstrip("/")).tls is not None]
    lib = LIBDIR
    assert tls_objects[0] == f"{lib}/libprov.so" and tls_objects[2] == f"{lib}/libtlsonly.so", tls_objects
    ref = (f"{lib}/libtlsuser.so", "only_tls", None)
    good = _tls_mapping(synthetic, objects, anchor=1, dtpoff=0)
    assert (*ref, f"{lib}/libtlsonly.so") in good.bindings and ref not in good.unobserved
    assert good.tls_by_rule == {(*ref, f"{lib}/libtlsonly.so")}
    # libprov's own slot says 2: the rule (libprov first, id 1) is wrong for this process
    inconsistent = _tls_mapping(synthetic, objects, anchor=2, dtpoff=0)
    assert "disagrees" in inconsistent.unobserved.get(ref, ""), inconsistent.unobserved.get(ref)
    assert not {b for b in inconsistent.bindings if b[:3] == ref} and not inconsistent.tls_by_rule
    # an offset beyond libtlsonly's PT_TLS: the id is not believed either
    outside = _tls_mapping(synthetic, objects, anchor=1, dtpoff=0x10000)
    assert "outside" in outside.unobserved.get(ref, ""), outside.unobserved.get(ref)
    # the rule on its own: ids 1, 2, ... in link-map order, unless an anchor contradicts it
    assert tls.module_ids([0, 3, 5], {3: {2}}) == ({1: 0, 2: 3, 3: 5}, "")
    ids, why = tls.module_ids([0, 3, 5], {3: {1}})
    assert ids == {1: 3} and "disagrees" in why
