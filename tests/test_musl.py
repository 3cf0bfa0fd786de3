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

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph_cmd
from elftools.elf.elffile import ELFFile
from support.musl_roots import (
    EXECUTABLES,
    INTERP,
    LOADER_PATH,
    ROOT_KINDS,
    RUNNABLE,
    ListResult,
    RunResult,
    build_all,
    make_root,
    musl_list,
    musl_run,
    readelf_dynamic,
    run,
    snapshot,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

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
    with open(musl_build / "bin/nlrpath", "rb") as fh:  # one RPATH string holding a newline
        (dynamic,) = [s for s in ELFFile(fh).iter_segments() if s["p_type"] == "PT_DYNAMIC"]
        assert [t.rpath for t in dynamic.iter_tags("DT_RPATH")] == ["/nowhere\n/opt/nl"]
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
    nl = {(m, s): p for m, s, p in runs["/usr/bin/nlrpath"].binds}
    assert nl[("/usr/bin/nlrpath", "nl_fn")] == "/opt/nl/libnl.so.1"  # a newline separates RPATH entries
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
    """Edges the run-time report implies: libfirst's deep_fn goes to libsecond, which libfirst does
    not declare while its own libdeep defines deep_fn too (interposed: libsecond only comes first),
    so libfirst -> libdeep is declared-unused; libpriv's shadow_fn goes to the app-private
    libshadow it does not declare and nothing of its own defines (hidden)."""
    deps = scenario.report["dependencies"]

    def edges(src: str, dst: str) -> list[dict[str, Any]]:
        return [d for d in deps if d["from"] == src and d["to"] == dst]

    if scenario.kind == "pathfile":
        first, second = "/opt/custom/lib/libfirst.so.1", "/usr/lib/libsecond.so.1"
        assert ("/opt/custom/lib/libfirst.so.1", "deep_fn", second) in scenario.runs["/usr/bin/order"].binds
        interposed = edges(first, second)
        assert [d["status"] for d in interposed] == ["interposed"] and "deep_fn" in interposed[0]["symbols"], interposed
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
