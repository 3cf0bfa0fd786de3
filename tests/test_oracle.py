"""The oracle itself: the real ld.so's behaviour the agreement tests rely on, and the parsers.

Fixture programs are compiled with the host's gcc into a temporary directory; every claim made
in oracle.py's docstring is checked here against the real loader.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import hostroot, oracle


def _raw_ld_so(exe: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
    clean.update(env)
    return subprocess.run([oracle.LD_SO, exe], env=clean, capture_output=True, text=True, timeout=60)


def _real_bindings(stderr: str) -> list[tuple[str, str, str | None, str, bool]]:
    return [b for b in oracle.parse_bindings(stderr) if "linux-vdso" not in b[0]]


def _libc(trace: oracle.GlibcTrace) -> str:
    line = next(t for t in trace.raw_list if t.name == "libc.so.6")
    assert line.path is not None
    return os.path.realpath(line.path)


# --------------------------------------------------------------------------- host programs


def test_ls_link_map_and_bindings() -> None:
    trace = oracle.glibc_trace("/usr/bin/ls")
    ls = os.path.realpath("/usr/bin/ls")
    libc = _libc(trace)
    assert trace.objects[0] == ls
    assert libc in trace.objects
    assert trace.interpreter in trace.objects
    assert not any("vdso" in o for o in trace.objects)
    assert all(o == os.path.realpath(o) for o in trace.objects), "paths must be canonical"
    assert len(set(trace.objects)) == len(trace.objects)
    malloc = [b for b in trace.bindings if b[0] == ls and b[1] == "malloc"]
    assert malloc and all(b[3] == libc and (b[2] or "").startswith("GLIBC_") for b in malloc)
    # libc binds some of its own references to itself, and to ld.so (_rtld_global_ro & co.)
    assert any(b[0] == libc and b[3] == libc for b in trace.bindings)
    assert any(b[0] == libc and b[3] == trace.interpreter for b in trace.bindings)
    assert trace.missing == [] and trace.undefined == []


def test_trace_relocates_only_with_ld_warn() -> None:
    base = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_BIND_NOW": "1", "LD_DEBUG": "bindings"}
    without = _raw_ld_so("/usr/bin/ls", **base)
    with_warn = _raw_ld_so("/usr/bin/ls", LD_WARN="yes", **base)
    assert without.returncode == 0 and with_warn.returncode == 0
    assert "libc.so.6" in without.stdout  # the list is printed either way...
    assert _real_bindings(without.stderr) == []  # ...but nothing is relocated without LD_WARN
    assert len(_real_bindings(with_warn.stderr)) > 50


def test_interpreter_is_not_relocated_in_trace_mode() -> None:
    trace = oracle.glibc_trace("/usr/bin/true")
    assert trace.interpreter is not None
    assert not [b for b in trace.bindings if b[0] == trace.interpreter]
    # A real start does relocate ld.so (e.g. _dl_catch_exception from libc): the trace lacks these.
    real = subprocess.run(
        ["/usr/bin/true"],
        env={"LD_DEBUG": "bindings", "LD_BIND_NOW": "1", "PATH": "/usr/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    mapper = oracle.PathMapper()
    modules = {mapper(b[0]) for b in _real_bindings(real.stderr)}
    assert trace.interpreter in modules


def test_ldd_unused_host() -> None:
    # the result is whatever ldd says; the invariant: every listed path is a loaded object
    for exe in ("/usr/bin/ls", "/usr/bin/make" if os.path.exists("/usr/bin/make") else "/usr/bin/cat"):
        unused = oracle.ldd_unused(exe)
        trace = oracle.glibc_trace(exe)
        assert set(unused) <= set(trace.objects[1:])


# --------------------------------------------------------------------------- compiled fixtures

DEP_C = """
int dep_value = 42;
int dep_func(void) { return dep_value; }
"""
DEP_MAP = "DEP_1.0 { global: dep_value; dep_func; local: *; };\n"
UNUSED_C = "int unused_func(void) { return 1; }\n"
MISS_C = "int miss_func(void) { return 2; }\n"
OTHER_C = "int other_func(void) { return 3; }\n"
MAIN_C = """
#include <stdio.h>
extern int dep_value;
int dep_func(void);
int miss_func(void);
int main(void) { printf("%d %d %d\\n", dep_value, dep_func(), miss_func()); return 0; }
"""


def _gcc(cwd: Path, *args: str) -> None:
    subprocess.run(["gcc", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


def _lib(cwd: Path, name: str, source: str, *extra: str) -> None:
    (cwd / f"{name}.c").write_text(source)
    _gcc(cwd, "-shared", "-fPIC", "-o", f"lib{name}.so", f"-Wl,-soname,lib{name}.so", *extra, f"{name}.c")


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main (non-PIE, lazy, RUNPATH $ORIGIN) -> libdep (versioned), libunused, libmiss, libc."""
    d = tmp_path_factory.mktemp("oracle-fixture")
    (d / "dep.map").write_text(DEP_MAP)
    _lib(d, "dep", DEP_C, "-Wl,--version-script=dep.map")
    _lib(d, "unused", UNUSED_C)
    _lib(d, "miss", MISS_C)
    (d / "main.c").write_text(MAIN_C)
    link = ["-L.", "-Wl,--no-as-needed", "-Wl,-z,lazy", "-ldep", "-lunused", "-lmiss", "-Wl,-rpath,$ORIGIN"]
    _gcc(d, "-no-pie", "-o", "main", "main.c", *link)
    out = subprocess.run([str(d / "main")], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "42 42 2"
    return d


def test_fixture_link_map_order(fixture_dir: Path) -> None:
    trace = oracle.glibc_trace(str(fixture_dir / "main"))
    d = os.path.realpath(fixture_dir)
    libc = _libc(trace)
    libs = [f"{d}/libdep.so", f"{d}/libunused.so", f"{d}/libmiss.so"]
    assert trace.objects == [f"{d}/main", *libs, libc, trace.interpreter]


def test_fixture_bindings_versions_and_copy_relocations(fixture_dir: Path) -> None:
    d = os.path.realpath(fixture_dir)
    main, dep, miss = f"{d}/main", f"{d}/libdep.so", f"{d}/libmiss.so"
    trace = oracle.glibc_trace(main)
    assert (main, "dep_func", "DEP_1.0", dep) in trace.bindings  # requested version printed
    assert (main, "miss_func", None, miss) in trace.bindings  # unversioned reference
    # R_X86_64_COPY: the executable's lookup skips itself and finds libdep...
    assert (main, "dep_value", "DEP_1.0", dep) in trace.bindings
    # ...and libdep's own GLOB_DAT reference binds to the copy in the executable
    assert (dep, "dep_value", "DEP_1.0", main) in trace.bindings
    assert not [b for b in trace.bindings if b[0] == f"{d}/libunused.so" and b[3] == f"{d}/libunused.so"]
    cross = trace.cross_object()
    assert all(b[0] != b[3] for b in cross) and (dep, "dep_value", "DEP_1.0", main) in cross


def test_bind_now_binds_plt_slots(fixture_dir: Path) -> None:
    env = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "yes", "LD_DEBUG": "bindings"}
    lazy = {(b[0], b[1]) for b in _real_bindings(_raw_ld_so(str(fixture_dir / "main"), **env).stderr)}
    now = {(b[0], b[1]) for b in _real_bindings(_raw_ld_so(str(fixture_dir / "main"), LD_BIND_NOW="1", **env).stderr)}
    main = str(fixture_dir / "main")
    assert (main, "dep_func") in now and (main, "dep_func") not in lazy  # a JUMP_SLOT
    assert (main, "dep_value") in lazy  # the COPY relocation is never lazy


def test_fixture_ldd_unused(fixture_dir: Path) -> None:
    d = os.path.realpath(fixture_dir)
    assert oracle.ldd_unused(str(fixture_dir / "main")) == [f"{d}/libunused.so"]


def test_origin_needs_the_real_path(fixture_dir: Path, tmp_path: Path) -> None:
    link = tmp_path / "prog"
    link.symlink_to(fixture_dir / "main")
    raw = _raw_ld_so(str(link), LD_TRACE_LOADED_OBJECTS="1")
    assert "libdep.so => not found" in raw.stdout and raw.returncode == 0  # $ORIGIN = the link's dir
    trace = oracle.glibc_trace(str(link))
    assert trace.missing == [] and trace.objects[0] == os.path.realpath(fixture_dir / "main")


def test_missing_library_and_undefined_symbol(fixture_dir: Path, tmp_path: Path) -> None:
    for name in ("main", "libdep.so", "libmiss.so"):
        shutil.copy2(fixture_dir / name, tmp_path / name)
    trace = oracle.glibc_trace(str(tmp_path / "main"))
    d = os.path.realpath(tmp_path)
    assert trace.missing == ["libunused.so"]
    assert f"{d}/libunused.so" not in trace.objects and trace.objects[1] == f"{d}/libdep.so"
    assert trace.undefined == []
    # a libmiss.so that no longer defines miss_func: a non-weak undefined symbol
    _lib(tmp_path, "miss", OTHER_C)
    trace = oracle.glibc_trace(str(tmp_path / "main"))
    assert trace.undefined == [("miss_func", None, f"{d}/main")]
    assert not [b for b in trace.bindings if b[1] == "miss_func"]


# --------------------------------------------------------------------------- parsers and paths


def test_parse_binding_lines() -> None:
    text = (
        "     123:\tbinding file /a/x [0] to /b/y [0]: normal symbol `foo' [V_1]\n"
        "     123:\tbinding file /a/x [0] to /a/x [0]: protected symbol `bar'\n"
        "     123:\tfile=libz.so.1 [0];  needed by /a/x [0]\n"
        "binding file /p q/r [1] to /s [1]: normal symbol `_ZNSt6vectorIiSaIiEE4sizeEv' [GLIBCXX_3.4]\n"
    )
    assert oracle.parse_bindings(text) == [
        ("/a/x", "foo", "V_1", "/b/y", False),
        ("/a/x", "bar", None, "/a/x", True),
        ("/p q/r", "_ZNSt6vectorIiSaIiEE4sizeEv", "GLIBCXX_3.4", "/s", False),
    ]
    with pytest.raises(oracle.OracleError):
        oracle.parse_bindings("  1:\tbinding file garbage\n")


def test_parse_trace_list() -> None:
    text = (
        "\tlinux-vdso.so.1 (0x00007ffd)\n"
        "\tlibfoo.so.1 => /lib/libfoo.so.1 (0x00007f00)\n"
        "\tlibbar.so => not found\n"
        "\t/opt/abs/libabs.so (0x00007f01)\n"
        "\t/lib64/ld-linux-x86-64.so.2 (0x00007f02)\n"
    )
    lines, static = oracle.parse_trace_list(text)
    assert not static
    assert [(t.name, t.path) for t in lines] == [
        ("libfoo.so.1", "/lib/libfoo.so.1"),
        ("libbar.so", None),
        ("/opt/abs/libabs.so", "/opt/abs/libabs.so"),
        ("/lib64/ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"),
    ]
    assert oracle.parse_trace_list("\tstatically linked\n") == ([], True)


def test_path_mapper_resolves_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "usr/lib/x86_64-linux-gnu").mkdir(parents=True)
    (root / "usr/lib/x86_64-linux-gnu/libx.so.1.2.3").write_bytes(b"x")
    (root / "usr/lib/x86_64-linux-gnu/libx.so.1").symlink_to("libx.so.1.2.3")
    (root / "lib").symlink_to("usr/lib")
    (root / "usr/lib64").mkdir()
    # absolute target: relative to the root, never to the host
    (root / "usr/lib64/libx.so").symlink_to("/lib/x86_64-linux-gnu/libx.so.1")
    (root / "lib64").symlink_to("usr/lib64")
    mapper = oracle.PathMapper(root)
    canonical = "/usr/lib/x86_64-linux-gnu/libx.so.1.2.3"
    assert mapper("/lib/x86_64-linux-gnu/libx.so.1") == canonical
    assert mapper(f"{root}/lib/x86_64-linux-gnu/libx.so.1") == canonical
    assert mapper("/lib64/libx.so") == canonical
    assert mapper("/lib/../../../lib64/libx.so") == canonical  # '..' stops at the root
    assert mapper.exists(canonical) and not mapper.exists("/nope")
    assert oracle.PathMapper(None)("/lib64/ld-linux-x86-64.so.2") == os.path.realpath(oracle.LD_SO)


def test_host_root_mirrors_what_ld_so_opens(tmp_path: Path) -> None:
    root = hostroot.build_host_root(tmp_path / "root", ["ls", "/usr/bin/true"])
    assert (root / "lib").is_symlink() and os.readlink(root / "lib") == os.readlink("/lib")
    manifest = hostroot.load_manifest(root)
    assert manifest["executables"] == sorted({os.path.realpath("/usr/bin/ls"), os.path.realpath("/usr/bin/true")})
    assert (root / "etc/ld.so.cache").read_bytes() == Path("/etc/ld.so.cache").read_bytes()
    mapper = oracle.PathMapper(root)
    for exe in manifest["entries"]:
        trace = oracle.glibc_trace(exe, str(root))
        for obj in trace.objects:
            copied = root / obj.lstrip("/")
            assert copied.is_file() and not copied.is_symlink(), obj
            assert copied.stat().st_size == os.stat(obj).st_size
            assert mapper(obj) == obj
        # the symlinks ld.so went through exist in the root as symlinks
        for line in trace.raw_list:
            assert line.path is not None and os.path.lexists(str(root) + line.path)
    with pytest.raises(FileExistsError):
        hostroot.build_host_root(root, ["ls"])


def _report_from(trace: oracle.GlibcTrace, unused: list[str]) -> dict:
    """A linkgraph-style report that says exactly what the oracle says."""
    bindings = [
        {"executable": trace.executable, "module": m, "symbol": s, "version": v, "provider": p}
        for m, s, v, p in sorted(trace.bindings, key=str)
    ]
    deps = [{"from": trace.executable, "soname": os.path.basename(u), "to": u, "status": "declared-unused",
             "symbols": []} for u in unused]  # fmt: skip
    link_maps = [{"executable": trace.executable, "objects": list(trace.objects), "missing": list(trace.missing)}]
    return {"link_maps": link_maps, "bindings": bindings, "dependencies": deps}


def test_compare_report_detects_each_kind_of_difference(fixture_dir: Path) -> None:
    trace = oracle.glibc_trace(str(fixture_dir / "main"))
    unused = oracle.ldd_unused(str(fixture_dir / "main"))
    traces, unused_map = {trace.executable: trace}, {trace.executable: unused}
    exact = oracle.compare_report(_report_from(trace, unused), traces, unused_map)
    assert (exact.recall, exact.precision) == (1.0, 1.0)
    assert not exact.link_map_diffs and not exact.unused_diffs and not exact.binding_diffs
    assert exact.oracle_bindings == len(trace.cross_object({trace.interpreter or ""}))

    report = _report_from(trace, [])
    report["link_maps"][0]["objects"][1:3] = reversed(report["link_maps"][0]["objects"][1:3])
    dep_func = next(b for b in report["bindings"] if b["symbol"] == "dep_func")
    dep_func["provider"] = trace.objects[-2]  # libc instead of libdep
    report["bindings"].append(dict(dep_func, module=trace.interpreter, symbol="ignored"))  # from ld.so
    report["bindings"].append(dict(dep_func, module=dep_func["provider"], symbol="self"))  # not cross-object
    worse = oracle.compare_report(report, traces, unused_map)
    assert len(worse.link_map_diffs) == 1 and len(worse.unused_diffs) == 1
    assert worse.recall < 1.0 and worse.precision < 1.0
    lost, extra = worse.binding_diffs[trace.executable]
    assert [b[1] for b in lost] == ["dep_func"] and [b[1] for b in extra] == ["dep_func"]
    assert "recall" in worse.summary() and oracle.compare_report({}, traces, unused_map).no_link_map
