"""How each library was found (the rule, the folder, the object whose RPATH named it, the paths
tried for a missing one), judged by the real glibc loader's ``LD_DEBUG=libs,files`` output, and
the warnings for risky DT_RPATH/DT_RUNPATH entries.

The judge runs the root's ld.so in trace mode inside the root (fixture_root.run_in_root). For
every search it prints ``file=NAME [0];  needed by REQUESTER [0]``, ``find library=NAME [0];
searching``, then one header per search-path list (``search path=DIRS (RPATH from file X)``,
``(RUNPATH from file X)``, ``(system search path)``, ``search cache=/etc/ld.so.cache``) and a
``trying file=PATH`` line per file it opens; a name an already loaded object satisfies prints no
search at all. linkgraph's scan gets ``--cpu`` with the host's glibc-hwcaps levels so that it
tries the same ``glibc-hwcaps`` subfolders; glibc 2.36's legacy hwcap subfolders (``tls``,
``x86_64``; gone since glibc 2.37) are not emulated and are left out of the judge's list.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.fixture_root import HOST_LDSO, INTERP, MULTIARCH, TRACE_ENV, Root, Scan, run_in_root, scan

F = "found_by/"
R = "loader_rules/"
LIBC = f"{MULTIARCH}/libc.so.6"
LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"

E_RPATH, E_RUNPATH, E_CACHE = "/usr/bin/fb_rpath", "/usr/bin/fb_runpath", "/usr/bin/fb_cache"
E_RPATH2, E_MISSING = "/usr/bin/fb_rpath2", "/usr/bin/fb_missing"
FA, FB, FC, FD = "/opt/fa/libfa.so", "/opt/fb/libfb.so", "/opt/fa/libfc.so", "/opt/fb/libfd.so"
FR = "/opt/fr/libfr.so"
FCACHE, FX, FDEF = "/opt/fcache/libfcache.so", "/opt/fcache/libfx.so", "/usr/lib/libfdef.so"
RISKY, RISKY_RUN = "/usr/lib/librisky.so", "/usr/lib/libriskyrun.so"
RISKY_RPATH = "lib/rel::/tmp/x:/home/builder/out/lib:/opt/ww/lib:$ORIGIN/../lib:/usr/lib:/work/present"
RISKY_RUNPATH = "/var/tmp/plugins:/builds/ci/sysroot/usr/lib"
TRACED = [E_RPATH, E_RUNPATH, E_CACHE, E_RPATH2, E_MISSING]


def host_hwcaps() -> list[str]:
    """The glibc-hwcaps levels the host's ld.so searches (``ld.so --help``), best first."""
    text = subprocess.run([str(HOST_LDSO), "--help"], capture_output=True, text=True, check=True).stdout
    block = text.split("Subdirectories of glibc-hwcaps directories", 1)[-1].split("\n\n", 1)[0]
    return re.findall(r"^\s+(\S+) \(supported, searched\)", block, re.M)


def build(root: Root) -> None:
    one = [R + "onefn.c"]
    root.write("/etc/ld.so.conf", "/opt/fcache\n")
    # RPATH: the executable's (/opt/fa) and libfa's (/opt/fb), inherited down the chain
    root.lib(FC, one, cflags=["-DFN=fc_fn"])
    root.lib(FD, one, cflags=["-DFN=fd_fn"])
    root.lib(FB, one, cflags=["-DFN=fb_fn"], needs=[FC, FD])
    root.lib(FA, one, cflags=["-DFN=fa_fn"], needs=[FB], rpath="/opt/fb")
    root.exe(E_RPATH, [F + "main.c"], needs=[FA], rpath="/opt/fa")
    # RUNPATH
    root.lib(FR, one, cflags=["-DFN=fr_fn"])
    root.exe(E_RUNPATH, [F + "main.c"], needs=[FR], runpath="/opt/fr")
    # ld.so.cache (from ld.so.conf), and a default directory the cache does not know
    root.lib(FCACHE, one, cflags=["-DFN=fcache_fn"])
    root.lib(FX, one, cflags=["-DFN=fx_fn"], needs=[FCACHE])
    fdef = root.stub("libfdef.so", one, cflags=["-DFN=fdef_fn"])
    root.exe(E_CACHE, [F + "main.c"], needs=[FX, fdef])
    # the same edge (libfx -> libfcache) found by RPATH in another link map
    root.exe(E_RPATH2, [F + "main.c"], needs=[FX], rpath="/opt/fcache")
    # a missing name (the program's first search), through an RPATH with a folder that exists
    gone = root.stub("libfgone.so", one, cflags=["-DFN=fgone_fn"])
    root.exe(E_MISSING, [F + "main.c"], needs=[gone], rpath="/opt/fa:/opt/nowhere")
    # risky search paths, in libraries no program loads
    root.host("/opt/ww/lib").mkdir(parents=True)
    os.chmod(root.host("/opt/ww"), 0o777)
    root.host("/work/present").mkdir(parents=True)
    root.lib(RISKY, one, cflags=["-DFN=risky_fn"], rpath=RISKY_RPATH)
    root.lib(RISKY_RUN, one, cflags=["-DFN=riskyrun_fn"], runpath=RISKY_RUNPATH)
    root.ldconfig()
    root.lib(FDEF, one, cflags=["-DFN=fdef_fn"])  # after ldconfig: only the default directories have it


# --------------------------------------------------------------------------- the judge


@dataclass
class Search:
    """One search of glibc's for a NEEDED name of one requester."""

    requester: str
    name: str
    sections: list[tuple[str, str | None]] = field(default_factory=list)  # (rule, via) per header
    tried: list[tuple[str, int]] = field(default_factory=list)  # (path, index into sections)


_PID = re.compile(r"^\s*\d+:\s?")
# glibc 2.36's legacy hwcap folders: [tls/][PLATFORM/][HWCAP/]NAME, the platform and hwcap names
# depending on the CPU (x86_64, haswell or xeon_phi; x86_64 or avx512_1)
_LEGACY = re.compile(
    r"/(?=tls/|x86_64/|haswell/|xeon_phi/|avx512_1/)(tls/)?((x86_64|haswell|xeon_phi)/)?"
    r"((x86_64|avx512_1)/)?[^/]+$"
)


def glibc_searches(root: Root, executable: str) -> list[Search]:
    """Every search the real loader makes for *executable*, from ``LD_DEBUG=libs,files``."""
    env = {**TRACE_ENV, "LD_DEBUG": "libs,files"}
    proc = run_in_root(root, [INTERP, executable], env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    searches: list[Search] = []
    current: Search | None = None
    pending: tuple[str, str] | None = None
    for raw in proc.stderr.splitlines():
        line = _PID.sub("", raw, count=1)
        if m := re.match(r"file=(\S+) \[0\];  needed by (\S+) \[0\]", line):
            pending = (root.canonical(m.group(2)), m.group(1))
        elif m := re.match(r"find library=(\S+) \[0\]; searching", line):
            assert pending is not None and pending[1] == m.group(1), line
            current = Search(*pending)
            searches.append(current)
        elif current is not None and (m := re.match(r"\s*search path=\S*\s+\((.*)\)$", line)):
            how = m.group(1)
            if how == "system search path":
                current.sections.append(("default-dir", None))
            else:
                kind, _, obj = how.partition(" from file ")
                current.sections.append((kind.lower(), root.canonical(obj)))
        elif current is not None and re.match(r"\s*search cache=", line):
            current.sections.append(("ld.so.cache", None))
        elif current is not None and (m := re.match(r"\s*trying file=(\S+)", line)):
            if not _LEGACY.search(m.group(1)):
                current.tried.append((m.group(1), len(current.sections) - 1))
        elif line.strip() == "" or line.startswith("file="):
            current = None
    return searches


def judged(root: Root, search: Search) -> dict:
    """What linkgraph must say for this search: rule, directory and via, or the paths tried."""
    if search.tried:
        path, section = search.tried[-1]
        if root.host(root.canonical(path)).is_file():
            rule, via = search.sections[section]
            return {
                "to": root.canonical(path),
                "rule": rule,
                "directory": os.path.dirname(path),
                "via": via,
                "tried": [],
            }
    tried = list(dict.fromkeys(p for p, _ in search.tried))
    return {"to": None, "rule": None, "directory": None, "via": None, "tried": tried}


# --------------------------------------------------------------------------- the case


@dataclass
class Case:
    root: Root
    result: Scan
    searches: dict[str, list[Search]]

    def edge(self, source: str, soname: str) -> dict:
        hits = [e for e in self.result.edges(source) if e["soname"] == soname]
        assert len(hits) == 1, f"edge {source} -> {soname}: {hits}"
        return hits[0]


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    work = tmp_path_factory.mktemp("found-by")
    root = Root(work / "root")
    root.install_glibc()
    build(root)
    searches = {exe: glibc_searches(root, exe) for exe in TRACED}
    cpu = host_hwcaps()
    extra = ["--cpu", cpu[0]] if cpu else []
    return Case(root, scan(root, work / "db", "found-by", extra), searches)


def how(edge: dict) -> dict:
    return {k: edge[k] for k in ("to", "rule", "directory", "via", "tried")}


def assert_search_agrees(case: Case, exe: str, source: str, soname: str) -> dict:
    hits = [s for s in case.searches[exe] if (s.requester, s.name) == (source, soname)]
    assert len(hits) == 1, f"glibc searched {soname} for {source} {len(hits)} times under {exe}"
    expected = judged(case.root, hits[0])
    edge = case.edge(source, soname)
    got = how(edge)
    if edge["found_by"]:  # link maps disagree: compare this link map's way
        variant = next(v for v in edge["found_by"] if exe in v["executables"])
        got = {"to": edge["to"], **{k: variant[k] for k in ("rule", "directory", "via", "tried")}}
    assert got == expected, f"{source} -> {soname} under {exe}"
    return expected


def test_every_search_agrees_with_glibc(case: Case) -> None:
    """Each search glibc makes is reported with the same rule, folder, RPATH owner (or tried
    paths); every NEEDED entry glibc satisfies without a search is already-loaded/interpreter."""
    for exe, searches in case.searches.items():
        assert searches, exe
        for s in searches:
            assert_search_agrees(case, exe, s.requester, s.name)
        searched = {(s.requester, s.name) for s in searches}
        for obj in case.result.link_map(exe)["objects"]:
            for soname in case.result.module(obj)["needed"]:
                if (obj, soname) not in searched:
                    edge = case.edge(obj, soname)
                    rule = "interpreter" if edge["to"] == LDSO else "already-loaded"
                    assert edge["rule"] == rule, (obj, soname, edge)


def test_rpath_of_the_executable_and_inherited(case: Case) -> None:
    assert how(case.edge(E_RPATH, "libfa.so")) == {
        "to": FA,
        "rule": "rpath",
        "directory": "/opt/fa",
        "via": E_RPATH,
        "tried": [],
    }
    assert case.edge(FA, "libfb.so")["via"] == FA
    # libfb has no RPATH: libfc.so comes from the executable's, libfd.so from libfa's (its loader)
    assert (case.edge(FB, "libfc.so")["rule"], case.edge(FB, "libfc.so")["via"]) == ("rpath", E_RPATH)
    assert (case.edge(FB, "libfd.so")["rule"], case.edge(FB, "libfd.so")["via"]) == ("rpath", FA)
    assert case.edge(FA, "libc.so.6")["rule"] == "already-loaded"
    assert case.edge(LIBC, "ld-linux-x86-64.so.2")["rule"] == "interpreter"


def test_runpath_cache_and_default_dir(case: Case) -> None:
    assert how(case.edge(E_RUNPATH, "libfr.so")) == {
        "to": FR,
        "rule": "runpath",
        "directory": "/opt/fr",
        "via": E_RUNPATH,
        "tried": [],
    }
    assert how(case.edge(E_CACHE, "libfx.so")) == {
        "to": FX,
        "rule": "ld.so.cache",
        "directory": "/opt/fcache",
        "via": None,
        "tried": [],
    }
    assert how(case.edge(E_CACHE, "libfdef.so")) == {
        "to": FDEF,
        "rule": "default-dir",
        "directory": "/usr/lib",
        "via": None,
        "tried": [],
    }


def test_link_maps_that_disagree_keep_every_way(case: Case) -> None:
    """libfx -> libfcache: through the cache under fb_cache, through fb_rpath2's RPATH there."""
    edge = case.edge(FX, "libfcache.so")
    assert edge["to"] == FCACHE
    ways = {(v["rule"], v["via"], tuple(v["executables"])) for v in edge["found_by"]}
    assert ways == {("ld.so.cache", None, (E_CACHE,)), ("rpath", E_RPATH2, (E_RPATH2,))}
    first = edge["found_by"][0]
    assert (edge["rule"], edge["directory"], edge["via"]) == (first["rule"], first["directory"], first["via"])


def test_missing_name_lists_the_paths_tried(case: Case) -> None:
    expected = assert_search_agrees(case, E_MISSING, E_MISSING, "libfgone.so")
    edge = case.edge(E_MISSING, "libfgone.so")
    assert edge["status"] == "missing" and edge["rule"] is None and edge["directory"] is None
    assert edge["tried"] == expected["tried"]
    assert edge["tried"][-1] == "/usr/lib/libfgone.so" and "/opt/nowhere/libfgone.so" in edge["tried"]
    assert case.edge(E_RPATH, "libfa.so")["tried"] == []  # kept for missing names only


def test_risky_search_paths_are_warnings(case: Case) -> None:
    risky = {
        (p["path"], p["code"], re.match(r"DT_\w+ entry '([^']*)'", p["message"]).group(1))
        for p in case.result.problems("warning")
        if p["code"].startswith("rpath-")
    }
    assert risky == {
        (RISKY, "rpath-relative", "lib/rel"),
        (RISKY, "rpath-empty", ""),
        (RISKY, "rpath-world-writable", "/tmp/x"),
        (RISKY, "rpath-build-host", "/home/builder/out/lib"),
        (RISKY, "rpath-world-writable", "/opt/ww/lib"),  # /opt/ww has mode o+w in the root
        (RISKY_RUN, "rpath-world-writable", "/var/tmp/plugins"),
        (RISKY_RUN, "rpath-build-host", "/builds/ci/sysroot/usr/lib"),
    }  # $ORIGIN/../lib, /usr/lib and /work/present (in the root) are fine
    messages = [p["message"] for p in case.result.problems() if p["code"] == "rpath-world-writable"]
    assert any("/opt/ww is writable by anyone" in m for m in messages)


# --------------------------------------------------------------------------- musl


@pytest.fixture(scope="module")
def musl_roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Scan]]:
    """tests/test_musl.py's roots (support/musl_roots.py) with a path file and without one, scanned."""
    from support import musl_roots as musl

    build = tmp_path_factory.mktemp("found-by-musl-build")
    musl.build_all(build)
    out = {}
    for kind in ("pathfile", "default"):
        base = tmp_path_factory.mktemp(f"found-by-musl-{kind}")
        musl.make_root(base / "root", build, kind)
        out[kind] = (base / "root", scan(Root(base / "root"), base / "db", f"musl-{kind}"))
    return out


def musl_printed(root: Path, exe: str) -> dict[str, str]:
    """NAME -> the path musl's ``--list`` printed when it loaded it (as opened, not resolved)."""
    from support import musl_roots as musl

    proc = musl.run(["chroot", str(root), musl.INTERP, "--list", exe], check=False)
    return {m.group("name"): m.group("path") for m in map(musl.LIST_LINE.match, proc.stdout.splitlines()) if m}


def musl_edge(result: Scan, source: str, soname: str) -> dict:
    hits = [e for e in result.edges(source) if e["soname"] == soname]
    assert len(hits) == 1, (source, soname, hits)
    return {k: hits[0][k] for k in ("rule", "directory", "via")}


def test_musl_rules(musl_roots: dict[str, tuple[Path, Scan]]) -> None:
    _, pathfile = musl_roots["pathfile"]
    order = "/usr/bin/order"
    assert musl_edge(pathfile, order, "libfirst.so.1") == {
        "rule": "musl-path-file",
        "directory": "/opt/custom/lib",
        "via": None,
    }
    assert musl_edge(pathfile, order, "libm.so.6")["rule"] == "interpreter"  # a reserved name, not the decoy
    _, default = musl_roots["default"]
    assert musl_edge(default, "/usr/bin/defaults", "libonlylocal.so.1") == {
        "rule": "default-dir",
        "directory": "/usr/local/lib",
        "via": None,
    }
    prog, priv = "/usr/bin/rpathprog", "/usr/lib/app-private/libpriv.so.1"
    assert musl_edge(pathfile, prog, "libpriv.so.1") == {
        "rule": "runpath",
        "directory": "/usr/bin/../lib/app-private",  # $ORIGIN as opened, not resolved
        "via": prog,
    }
    assert musl_edge(pathfile, priv, "libplug.so.1") == {
        "rule": "runpath",
        "directory": "/usr/bin/../lib/app-private/plugins",
        "via": priv,
    }
    assert musl_edge(pathfile, "/usr/bin/names", "/opt/abs/libabs.so.1")["rule"] == "slash-name"
    # every program's own dependencies found by a search: the folder musl printed
    checked = 0
    for result, kind in ((pathfile, "pathfile"), (default, "default")):
        base = musl_roots[kind][0]
        for exe in ("/usr/bin/order", prog, "/usr/bin/names", "/usr/bin/defaults"):
            printed = musl_printed(base, exe)
            for e in result.edges(exe):
                if e["rule"] in ("musl-path-file", "default-dir", "runpath", "rpath") and e["soname"] in printed:
                    assert f"{e['directory']}/{e['soname']}" == printed[e["soname"]], (kind, exe, e)
                    checked += 1
    assert checked >= 10, checked
