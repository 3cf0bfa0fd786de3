"""glibc loader rules, one small root per rule, built from C (tests/fixtures/loader_rules) with gcc.

Each case is scanned with the ``linkgraph`` CLI and judged by the real glibc loader run inside
the root (fixture_root.real_loader: chroot + ld.so trace mode), so absolute device paths in
RPATH/RUNPATH, ``$ORIGIN``, the default directories and the root's own ld.so.cache mean to the
judge exactly what they mean to the scanner.  Where the judge needs a step the device performs
at boot (ldconfig building the cache from ld.so.conf), it runs on a clone of the root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from support.article import build_article_root
from support.fixture_root import (
    DT_AUDIT,
    DT_RUNPATH,
    EM_AARCH64,
    MULTIARCH,
    EdgeKey,
    Root,
    Scan,
    assert_matches_real_loader,
    assert_same_set,
    edges_from_traces,
    elf_dynamic,
    real_loader,
    retag_dynamic,
    run_in_root,
    scan,
    set_machine,
    sstrip,
)
from support.oracle import GlibcTrace

R = "loader_rules/"
LIBC = f"{MULTIARCH}/libc.so.6"
LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"


@dataclass
class Case:
    root: Root
    result: Scan
    traces: dict[str, GlibcTrace]

    def objects(self, exe: str) -> list[str]:
        return self.result.link_map(exe)["objects"]


def make_case(
    factory: pytest.TempPathFactory,
    name: str,
    build: Callable[[Root], None],
    traced: Sequence[str],
    judge_root: Callable[[Root, Path], Root] | None = None,
) -> Case:
    """Build the root, ask the real loader about *traced* (in *judge_root*'s clone if given), scan."""
    work = factory.mktemp(name)
    root = Root(work / "root")
    root.install_glibc()
    build(root)
    judge = judge_root(root, work / "judge") if judge_root is not None else root
    traces = {t: real_loader(judge, t) for t in traced}
    return Case(root, scan(root, work / "db", name), traces)


def _normalise(edges: Iterable[EdgeKey], nameless: set[str]) -> set[EdgeKey]:
    """Hidden edges to an object without a soname (an executable) carry no comparable soname."""
    return {(f, "*" if s == "hidden" and t in nameless else n, t, s, syms) for f, n, t, s, syms in edges}


def assert_edges_match_real_loader(case: Case, sources: Iterable[str] | None = None) -> None:
    """Every dependency edge from *sources* (default: every object built for the case, except
    those loaded by no traced map), as derived from the real loader's bindings, and no other."""
    traced_objects = {o for t in case.traces.values() for o in t.objects}
    keep = set(sources) if sources is not None else set(case.root.built) & traced_objects
    expected = {e for e in edges_from_traces(case.root, case.traces.values(), skip=[LDSO]) if e[0] in keep}
    got = {e for e in case.result.edge_set() if e[0] in keep}
    nameless = {o for o in traced_objects if elf_dynamic(case.root.host(o))[0] is None}
    assert_same_set("dependency edges", _normalise(expected, nameless), _normalise(got, nameless))


def edge(case: Case, source: str, soname: str) -> dict:
    hits = [e for e in case.result.edges(source) if e["soname"] == soname]
    assert len(hits) == 1, f"edge {source} -> {soname}: {hits}"
    return hits[0]


def judge_all(case: Case) -> None:
    """Every traced map (a library loaded by no executable is traced as ld.so's main object, the
    way ``ldd lib.so`` does) and every edge from the case's objects, against the real loader."""
    for trace in case.traces.values():
        assert_matches_real_loader(case.result, trace)
    assert_edges_match_real_loader(case)


# =========================================================================== RPATH chain

CHAIN = "/usr/bin/chain"
CHAIN_A, CHAIN_B = "/opt/chain/a/libchaina.so", "/opt/chain/b/libchainb.so"
CHAIN_C, CHAIN_D = "/opt/chain/a/libchainc.so", "/opt/chain/b/libchaind.so"


def build_chain(root: Root) -> None:
    root.lib(CHAIN_D, [R + "chain_d.c"])
    root.lib(CHAIN_C, [R + "chain_c.c"], needs=[CHAIN_D])
    root.lib(CHAIN_B, [R + "chain_b.c"], needs=[CHAIN_C])
    root.lib(CHAIN_A, [R + "chain_a.c"], needs=[CHAIN_B], rpath="/opt/chain/b")
    root.exe(CHAIN, [R + "chain_main.c"], needs=[CHAIN_A], rpath="/opt/chain/a")


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "chain", build_chain, [CHAIN])


def test_rpath_chain_two_levels(chain: Case) -> None:
    """libchainc (dir a) is found only through the executable's RPATH while loading libchainb's
    NEEDED; libchaind (dir b) only through libchaina's RPATH while loading libchainc's NEEDED."""
    order = [CHAIN, CHAIN_A, LIBC, CHAIN_B, LDSO, CHAIN_C, CHAIN_D]
    assert chain.traces[CHAIN].objects == order  # the judge agrees on the fixture
    assert chain.objects(CHAIN) == order
    assert edge(chain, CHAIN_B, "libchainc.so")["to"] == CHAIN_C
    assert edge(chain, CHAIN_C, "libchaind.so")["to"] == CHAIN_D
    judge_all(chain)


# =========================================================================== RUNPATH scope

RUNPATH_USER, RPATH_USER = "/usr/bin/runpath_user", "/usr/bin/rpath_user"
SCOPE_A, SCOPE_B = "/opt/rx/libscopea.so", "/opt/ry/libscopeb.so"
SCOPE_CX, SCOPE_CY = "/opt/rx/libscopec.so", "/opt/ry/libscopec.so"


def build_scope(root: Root) -> None:
    root.lib(SCOPE_CX, [R + "scope_c.c"])
    root.lib(SCOPE_CY, [R + "scope_c.c"])
    root.lib(SCOPE_A, [R + "scope_lib.c"], cflags=["-DSCOPE_FN=scopea_fn"], needs=[SCOPE_CX])
    root.lib(SCOPE_B, [R + "scope_lib.c"], cflags=["-DSCOPE_FN=scopeb_fn"], needs=[SCOPE_CY])
    root.exe(
        RUNPATH_USER,
        [R + "scope_main.c"],
        cflags=["-DSCOPE_FN=scopea_fn"],
        needs=[SCOPE_A],
        runpath="/opt/rx",
        link_dirs=["/opt/rx"],
    )
    root.exe(
        RPATH_USER,
        [R + "scope_main.c"],
        cflags=["-DSCOPE_FN=scopeb_fn"],
        needs=[SCOPE_B],
        rpath="/opt/ry",
        link_dirs=["/opt/ry"],
    )


@pytest.fixture(scope="module")
def scope(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "scope", build_scope, [RUNPATH_USER, RPATH_USER, SCOPE_CX])


def test_runpath_applies_only_to_the_requesting_object(scope: Case) -> None:
    assert scope.traces[RUNPATH_USER].missing == ["libscopec.so"]
    assert scope.objects(RUNPATH_USER) == [RUNPATH_USER, SCOPE_A, LIBC, LDSO]
    assert scope.result.link_map(RUNPATH_USER)["missing"] == ["libscopec.so"]
    e = edge(scope, SCOPE_A, "libscopec.so")
    assert (e["to"], e["status"]) == (None, "missing")
    assert (SCOPE_A, "scopec_fn", None, False) in scope.result.unresolved(RUNPATH_USER)
    judge_all(scope)


def test_rpath_is_inherited(scope: Case) -> None:
    assert scope.traces[RPATH_USER].missing == []
    assert scope.objects(RPATH_USER) == [RPATH_USER, SCOPE_B, LIBC, SCOPE_CY, LDSO]
    e = edge(scope, SCOPE_B, "libscopec.so")
    assert (e["to"], e["status"], sorted(e["symbols"])) == (SCOPE_CY, "used", ["scopec_fn"])
    assert_matches_real_loader(scope.result, scope.traces[RPATH_USER])


# =========================================================================== RPATH + RUNPATH

BOTH = "/usr/bin/both"
ONLY_RP, ONLY_RN, INHERIT = "/opt/rp/libonlyrp.so", "/opt/rn/libonlyrn.so", "/opt/rp/libinherit.so"


def build_both(root: Root) -> None:
    root.lib(INHERIT, [R + "onefn.c"], cflags=["-DFN=inherit_fn"])
    root.lib(ONLY_RP, [R + "onefn.c"], cflags=["-DFN=onlyrp_fn"])
    root.lib(ONLY_RN, [R + "callfn.c"], cflags=["-DFN=onlyrn_fn", "-DCALLEE=inherit_fn"], needs=[INHERIT])
    # ld writes either tag, never both: DT_RPATH=/opt/rp, plus DT_AUDIT=/opt/rn turned into DT_RUNPATH.
    root.exe(BOTH, [R + "both_main.c"], needs=[ONLY_RP, ONLY_RN], rpath="/opt/rp", ldflags=["-Wl,--audit,/opt/rn"])
    retag_dynamic(root.host(BOTH), DT_AUDIT, DT_RUNPATH)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "both", build_both, [BOTH])


def test_rpath_ignored_when_runpath_present(both: Case) -> None:
    with open(both.root.host(BOTH), "rb") as fh:
        dyn = ELFFile(fh).get_section_by_name(".dynamic")
        tags = {t.entry.d_tag: getattr(t, "rpath", None) or getattr(t, "runpath", None) for t in dyn.iter_tags()}
    assert tags.get("DT_RPATH") == "/opt/rp" and tags.get("DT_RUNPATH") == "/opt/rn"
    assert both.traces[BOTH].missing == ["libonlyrp.so", "libinherit.so"]
    assert both.objects(BOTH) == [BOTH, ONLY_RN, LIBC, LDSO]
    assert sorted(both.result.link_map(BOTH)["missing"]) == ["libinherit.so", "libonlyrp.so"]
    assert edge(both, BOTH, "libonlyrp.so")["status"] == "missing"
    assert edge(both, BOTH, "libonlyrn.so")["to"] == ONLY_RN
    assert edge(both, ONLY_RN, "libinherit.so")["status"] == "missing"
    judge_all(both)


# =========================================================================== DF_1_NODEFLIB

ND_LIB, ND_DEF, ND_CACHE, ND_RP = (
    "/lib/libndlib.so",
    "/usr/lib/libnddef.so",
    "/opt/ndc/libndcache.so",
    "/opt/ndrp/libndrp.so",
)
ND_USER, ND_CONTROL, ND_EXE = "/usr/bin/nd_user", "/usr/bin/nd_control", "/usr/bin/nd_exe"


def build_nodeflib(root: Root) -> None:
    root.write("/etc/ld.so.conf", "/opt/ndc\n")
    root.lib(ND_DEF, [R + "onefn.c"], cflags=["-DFN=nddef_fn"])
    root.lib(ND_CACHE, [R + "onefn.c"], cflags=["-DFN=ndcache_fn"])
    root.lib(ND_RP, [R + "onefn.c"], cflags=["-DFN=ndrp_fn"])
    root.lib(
        ND_LIB, [R + "ndlib.c"], needs=[ND_DEF, ND_CACHE, ND_RP], runpath="/opt/ndrp", ldflags=["-Wl,-z,nodefaultlib"]
    )
    root.exe(ND_USER, [R + "nd_user.c"], needs=[ND_LIB], ldflags=["-Wl,--allow-shlib-undefined"])
    root.exe(ND_CONTROL, [R + "nd_control.c"], needs=[ND_DEF, ND_CACHE])
    root.exe(ND_EXE, [R + "nd_exe.c"], needs=[ND_DEF], runpath=MULTIARCH, ldflags=["-Wl,-z,nodefaultlib"])
    root.ldconfig()


@pytest.fixture(scope="module")
def nodeflib(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "nodeflib", build_nodeflib, [ND_USER, ND_CONTROL, ND_EXE])


def test_nodeflib_library_skips_default_dirs_also_in_the_cache(nodeflib: Case) -> None:
    """-z nodefaultlib on libndlib: its NEEDED entries skip the default directories, and so do the
    ld.so.cache entries pointing into them (libnddef.so, cached as /usr/lib/libnddef.so); a cache
    entry elsewhere (/opt/ndc, from ld.so.conf) is still used, as is libndlib's RUNPATH."""
    assert nodeflib.traces[ND_USER].missing == ["libnddef.so"]
    assert nodeflib.objects(ND_USER) == [ND_USER, ND_LIB, LIBC, ND_CACHE, ND_RP, LDSO]
    assert nodeflib.result.link_map(ND_USER)["missing"] == ["libnddef.so"]
    assert edge(nodeflib, ND_LIB, "libnddef.so")["status"] == "missing"
    assert edge(nodeflib, ND_LIB, "libndcache.so")["to"] == ND_CACHE
    assert edge(nodeflib, ND_LIB, "libndrp.so")["to"] == ND_RP
    assert edge(nodeflib, ND_LIB, "libc.so.6")["to"] == LIBC  # already loaded: reused by soname
    assert (ND_LIB, "nddef_fn", None, False) in nodeflib.result.unresolved(ND_USER)
    judge_all(nodeflib)


def test_without_nodeflib_the_same_libraries_are_found(nodeflib: Case) -> None:
    assert nodeflib.objects(ND_CONTROL) == [ND_CONTROL, ND_DEF, ND_CACHE, LIBC, LDSO]
    assert_matches_real_loader(nodeflib.result, nodeflib.traces[ND_CONTROL])


def test_nodeflib_executable(nodeflib: Case) -> None:
    assert nodeflib.traces[ND_EXE].missing == ["libnddef.so"]
    assert nodeflib.result.link_map(ND_EXE)["missing"] == ["libnddef.so"]
    assert_matches_real_loader(nodeflib.result, nodeflib.traces[ND_EXE])


# =========================================================================== ld.so.conf includes

CONF_USER = "/usr/bin/conf_user"
CUSTOM, OTHER = "/opt/custom/lib/libcustom.so", "/opt/other/lib/libother.so"
DEEP, NEVER = "/opt/deep/lib/libdeep.so", "/opt/never/libnever.so"


def build_conf(root: Root) -> None:
    root.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    root.write("/etc/ld.so.conf.d/10-custom.conf", "/opt/custom/lib\n")
    root.write("/etc/ld.so.conf.d/20-other.conf", "# vendor libraries\n/opt/other/lib\ninclude more/*.conf\n")
    root.write("/etc/ld.so.conf.d/more/30-deep.conf", "/opt/deep/lib\n")
    root.write("/etc/ld.so.conf.d/README", "/opt/never\n")  # not *.conf: not included
    root.lib(CUSTOM, [R + "onefn.c"], cflags=["-DFN=custom_fn"])
    root.lib(OTHER, [R + "onefn.c"], cflags=["-DFN=other_fn"])
    root.lib(DEEP, [R + "onefn.c"], cflags=["-DFN=deep_fn"])
    root.lib(NEVER, [R + "onefn.c"], cflags=["-DFN=never_fn"])
    root.exe(CONF_USER, [R + "conf_user.c"], needs=[CUSTOM, OTHER, DEEP, NEVER])


def after_boot_ldconfig(root: Root, dest: Path) -> Root:
    """The device after ``ldconfig`` ran at boot: the judge's world for a root without a cache."""
    booted = root.clone(dest)
    booted.ldconfig()
    return booted


@pytest.fixture(scope="module")
def conf(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "conf", build_conf, [CONF_USER], judge_root=after_boot_ldconfig)


def test_ld_so_conf_include_globs(conf: Case) -> None:
    assert not conf.root.host("/etc/ld.so.cache").exists()
    assert conf.traces[CONF_USER].missing == ["libnever.so"]
    assert conf.objects(CONF_USER) == [CONF_USER, CUSTOM, OTHER, DEEP, LIBC, LDSO]
    assert conf.result.link_map(CONF_USER)["missing"] == ["libnever.so"]
    judge_all(conf)


# =========================================================================== ld.so.cache

CACHE_USER = "/usr/bin/cache_user"
CACHED, CACHED_DECOY = "/opt/cached/libcached.so", "/usr/lib/libcached.so"
STALE_GONE, STALE_DEFAULT = "/opt/cached/libstale.so", "/usr/lib/libstale.so"


def build_cache(root: Root) -> None:
    root.write("/etc/ld.so.conf", "/opt/cached\n")
    root.lib(CACHED, [R + "onefn.c"], cflags=["-DFN=cached_fn"])
    root.lib(STALE_GONE, [R + "onefn.c"], cflags=["-DFN=stale_fn"])
    root.exe(CACHE_USER, [R + "cache_user.c"], needs=[CACHED, STALE_GONE])
    root.ldconfig()
    # After the cache was built: /opt/cached leaves ld.so.conf, libstale.so leaves /opt/cached
    # and both sonames appear in a default directory.
    root.write("/etc/ld.so.conf", "# /opt/cached is no longer listed\n")
    root.remove(STALE_GONE)
    root.built.remove(STALE_GONE)
    root.lib(STALE_DEFAULT, [R + "onefn.c"], cflags=["-DFN=stale_fn"])
    root.lib(CACHED_DECOY, [R + "onefn.c"], cflags=["-DFN=cached_fn", "-DVALUE=9"])


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "cache", build_cache, [CACHE_USER, CACHED_DECOY])


def test_ld_so_cache_is_used(cache: Case) -> None:
    assert cache.traces[CACHE_USER].objects == [CACHE_USER, CACHED, STALE_DEFAULT, LIBC, LDSO]
    assert cache.objects(CACHE_USER) == [CACHE_USER, CACHED, STALE_DEFAULT, LIBC, LDSO]
    assert edge(cache, CACHE_USER, "libcached.so")["to"] == CACHED
    judge_all(cache)


# =========================================================================== symbol versions

LIBVER = "/lib/libver.so.1"
PROG_OLD, PROG_NEW, PROG_UNV = "/usr/bin/prog_old", "/usr/bin/prog_new", "/usr/bin/prog_unv"
SHADOW, SHADOW_V = "/lib/libshadow.so", "/lib/libshadowv.so"
PROG_SHADOW, PROG_SHADOW_V = "/usr/bin/prog_shadow", "/usr/bin/prog_shadow_v"


def build_versions(root: Root) -> None:
    old = root.stub("libver.so.1", [R + "ver_old.c"], version_script=R + "ver_old.map")
    plain = root.stub("plain/libver.so.1", [R + "ver_old.c"], soname="libver.so.1")
    root.lib(LIBVER, [R + "ver_final.c"], version_script=R + "ver_final.map")
    root.exe(PROG_OLD, [R + "ver_prog.c"], needs=[old], link_dirs=[])
    root.exe(PROG_NEW, [R + "ver_prog.c"], needs=[LIBVER], link_dirs=[])
    root.exe(PROG_UNV, [R + "ver_prog.c"], needs=[plain], link_dirs=[])
    # A library earlier in load order also defining vfunc: unversioned, or in its own version.
    shadow_stub = root.stub("libshadow.so", [R + "shadow_stub.c"])
    shadowv_stub = root.stub("libshadowv.so", [R + "shadow_stub.c"])
    root.lib(SHADOW, [R + "shadow.c"])
    root.lib(SHADOW_V, [R + "shadow.c"], version_script=R + "shadow.map")
    root.exe(PROG_SHADOW, [R + "shadow_prog.c"], needs=[shadow_stub, old], link_dirs=[])
    root.exe(PROG_SHADOW_V, [R + "shadow_prog.c"], needs=[shadowv_stub, old], link_dirs=[])


VERSION_EXES = [PROG_OLD, PROG_NEW, PROG_UNV, PROG_SHADOW, PROG_SHADOW_V]


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "versions", build_versions, VERSION_EXES)


def test_two_versions_of_one_symbol(versions: Case) -> None:
    b = versions.result.bindings
    assert (PROG_OLD, "vfunc", "V1", LIBVER) in versions.traces[PROG_OLD].bindings
    assert (PROG_OLD, "vfunc", "V1", LIBVER) in b(PROG_OLD)
    assert (PROG_NEW, "vfunc", "V2", LIBVER) in b(PROG_NEW)
    assert (PROG_UNV, "vfunc", None, LIBVER) in b(PROG_UNV)
    for exe in (PROG_OLD, PROG_NEW, PROG_UNV):
        assert not [u for u in versions.result.unresolved(exe) if u[1] == "vfunc"]
        assert_matches_real_loader(versions.result, versions.traces[exe])


def test_versioned_reference_and_unversioned_definition(versions: Case) -> None:
    """glibc accepts a definition without version information for a versioned reference (an
    object with no version definitions satisfies vfunc@V1), but not a definition in another
    version (vfunc@@SHADOW)."""
    assert (PROG_SHADOW, "vfunc", "V1", SHADOW) in versions.traces[PROG_SHADOW].bindings
    assert (PROG_SHADOW_V, "vfunc", "V1", LIBVER) in versions.traces[PROG_SHADOW_V].bindings
    assert (PROG_SHADOW, "vfunc", "V1", SHADOW) in versions.result.bindings(PROG_SHADOW)
    assert (PROG_SHADOW_V, "vfunc", "V1", LIBVER) in versions.result.bindings(PROG_SHADOW_V)
    assert_matches_real_loader(versions.result, versions.traces[PROG_SHADOW])
    assert_matches_real_loader(versions.result, versions.traces[PROG_SHADOW_V])


def test_version_edges(versions: Case) -> None:
    judge_all(versions)


# =========================================================================== weak undefined

WEAK_USER, HOOKS, PROVIDER = "/usr/bin/weak_user", "/lib/libhooks.so", "/lib/libprovider.so"


def build_weak_undef(root: Root) -> None:
    root.lib(HOOKS, [R + "hooks.c"])
    root.lib(PROVIDER, [R + "onefn.c"], cflags=["-DFN=later_fn"])
    root.exe(WEAK_USER, [R + "hooks_main.c"], needs=[HOOKS, PROVIDER])


@pytest.fixture(scope="module")
def weak_undef(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "weak_undef", build_weak_undef, [WEAK_USER])


def test_weak_undefined_left_unresolved(weak_undef: Case) -> None:
    result = weak_undef.result
    unresolved = result.unresolved(WEAK_USER)
    assert (WEAK_USER, "optional_hook", None, True) in unresolved
    assert (HOOKS, "optional_hook", None, True) in unresolved
    assert not [u for u in unresolved if u[1] == "optional_hook" and not u[3]]
    assert not [p for p in result.problems() if "optional_hook" in p["message"]]
    assert result.problems("error") == [] and result.rc == 0, result.problems()
    # A weak reference that something does define binds normally (here: a hidden dependency).
    assert (HOOKS, "later_fn", None, PROVIDER) in result.bindings(WEAK_USER)
    assert weak_undef.traces[WEAK_USER].undefined == []
    judge_all(weak_undef)


# =========================================================================== weak vs global definitions

WEAK_FIRST, STRONG_FIRST = "/usr/bin/weak_first", "/usr/bin/strong_first"
LIBWEAK, LIBSTRONG = "/lib/libweak.so", "/lib/libstrong.so"


def build_weak_def(root: Root) -> None:
    root.lib(LIBWEAK, [R + "weakdef.c"])
    root.lib(LIBSTRONG, [R + "strongdef.c"])
    root.exe(WEAK_FIRST, [R + "pick_main.c"], needs=[LIBWEAK, LIBSTRONG])
    root.exe(STRONG_FIRST, [R + "pick_main.c"], needs=[LIBSTRONG, LIBWEAK])


@pytest.fixture(scope="module")
def weak_def(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "weak_def", build_weak_def, [WEAK_FIRST, STRONG_FIRST])


def test_first_definition_wins_even_if_weak(weak_def: Case) -> None:
    result = weak_def.result
    assert (WEAK_FIRST, "pick", None, LIBWEAK) in weak_def.traces[WEAK_FIRST].bindings
    assert (WEAK_FIRST, "pick", None, LIBWEAK) in result.bindings(WEAK_FIRST)
    assert (STRONG_FIRST, "pick", None, LIBSTRONG) in result.bindings(STRONG_FIRST)
    for exe, first in ((WEAK_FIRST, LIBWEAK), (STRONG_FIRST, LIBSTRONG)):
        dup = result.duplicates(exe).get("pick")
        assert dup is not None, f"pick not among the duplicates of {exe}"
        assert set(dup["providers"]) == {LIBWEAK, LIBSTRONG} and dup["chosen"] == first
    judge_all(weak_def)


# =========================================================================== copy relocation

COUNTER_EXE, COUNTER_LIB = "/usr/bin/counter", "/lib/libcounter.so"


def build_copyreloc(root: Root) -> None:
    root.lib(COUNTER_LIB, [R + "counter.c"])
    root.exe(COUNTER_EXE, [R + "counter_main.c"], needs=[COUNTER_LIB], pie=False)


@pytest.fixture(scope="module")
def copyreloc(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "copyreloc", build_copyreloc, [COUNTER_EXE])


def copy_relocations(path: Path) -> list[str]:
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        dynsym = elf.get_section_by_name(".dynsym")
        return [
            dynsym.get_symbol(r["r_info_sym"]).name
            for sec in elf.iter_sections()
            if isinstance(sec, RelocationSection)
            for r in sec.iter_relocations()
            if r["r_info_type"] == 5  # R_X86_64_COPY
        ]


def test_copy_relocation(copyreloc: Case) -> None:
    root, result = copyreloc.root, copyreloc.result
    assert copy_relocations(root.host(COUNTER_EXE)) == ["counter"]
    run = run_in_root(root, [COUNTER_EXE], {"PATH": "/usr/bin"})
    assert run.returncode == 0, run.stderr  # the copy really is the one object both use
    trace = copyreloc.traces[COUNTER_EXE]
    assert (COUNTER_EXE, "counter", None, COUNTER_LIB) in trace.bindings
    assert (COUNTER_LIB, "counter", None, COUNTER_EXE) in trace.bindings
    bindings = result.bindings(COUNTER_EXE)
    assert (COUNTER_EXE, "counter", None, COUNTER_LIB) in bindings  # the copy: lookup skips the exe
    assert (COUNTER_LIB, "counter", None, COUNTER_EXE) in bindings  # the library uses the copy
    assert sorted(edge(copyreloc, COUNTER_EXE, "libcounter.so")["symbols"]) == ["bump", "counter"]
    assert_matches_real_loader(result, trace)


def test_copy_relocation_edges(copyreloc: Case) -> None:
    """libcounter's own reference to counter binds to the executable's copy of it: a binding
    (checked above), but no hidden edge libcounter -> executable, since the executable only holds
    a copy of libcounter's own data (docs/report.md)."""
    result = copyreloc.result
    hidden = [e for e in result.edges(COUNTER_LIB) if e["status"] == "hidden"]
    assert hidden == []
    assert_edges_match_real_loader(copyreloc)


# =========================================================================== wrong machine / class

WM_USER = "/usr/bin/wm_user"
WM_BAD, WM_GOOD = "/opt/wm/bad/libwm.so", "/opt/wm/good/libwm.so"
WM32_BAD, WM32_GOOD = "/opt/wm/bad/libwm32.so", "/opt/wm/good/libwm32.so"
WMDEF_BAD, WMDEF_GOOD = "/lib/libwmdef.so", "/usr/lib/libwmdef.so"


def build_wrong_machine(root: Root) -> None:
    root.lib(WM_GOOD, [R + "onefn.c"], cflags=["-DFN=wm_fn"])
    root.lib(WM32_GOOD, [R + "onefn.c"], cflags=["-DFN=wm32_fn"])
    root.lib(WMDEF_GOOD, [R + "onefn.c"], cflags=["-DFN=wmdef_fn"])
    root.copy_file(root.host(WM_GOOD), WM_BAD)
    set_machine(root.host(WM_BAD), EM_AARCH64)
    root.copy_file(root.host(WMDEF_GOOD), WMDEF_BAD)
    set_machine(root.host(WMDEF_BAD), EM_AARCH64)
    # A real ELFCLASS32 i386 library (no 32-bit libc needed for a self-contained object).
    root.lib(WM32_BAD, [R + "onefn.c"], cflags=["-DFN=wm32_fn"], m32=True, link_dirs=[])
    root.exe(
        WM_USER,
        [R + "wm_main.c"],
        needs=[WM_GOOD, WM32_GOOD, WMDEF_GOOD],
        rpath="/opt/wm/bad:/opt/wm/good",
        link_dirs=[],
    )


@pytest.fixture(scope="module")
def wrong_machine(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "wrong_machine", build_wrong_machine, [WM_USER])


def test_wrong_machine_and_class_skipped(wrong_machine: Case) -> None:
    result = wrong_machine.result
    order = [WM_USER, WM_GOOD, WM32_GOOD, WMDEF_GOOD, LIBC, LDSO]
    assert wrong_machine.traces[WM_USER].objects == order
    assert wrong_machine.objects(WM_USER) == order
    good = result.module(WM_GOOD)
    assert result.module(WM_BAD)["machine"] != good["machine"]
    assert result.module(WMDEF_BAD)["machine"] != good["machine"]
    assert result.module(WM32_BAD)["class"] == 32 and result.module(WM32_BAD)["machine"] != good["machine"]
    assert_matches_real_loader(result, wrong_machine.traces[WM_USER])
    assert_edges_match_real_loader(wrong_machine, [WM_USER, WM_GOOD, WM32_GOOD, WMDEF_GOOD])


# =========================================================================== symlinks

X_REAL, X_SONAME, X_DEV = "/lib/libx.so.1.0.0", "/lib/libx.so.1", "/lib/libx.so"
V_REAL = "/opt/vendor/lib/libv.so"
X_BY_SONAME, X_BY_DEVNAME, X_BOTH = "/usr/bin/x_soname", "/usr/bin/x_devname", "/usr/bin/x_both"


def build_symlinks(root: Root) -> None:
    root.lib(X_REAL, [R + "onefn.c"], soname="libx.so.1", cflags=["-DFN=x_fn"])
    root.symlink(X_SONAME, "libx.so.1.0.0")
    root.symlink(X_DEV, "/lib/libx.so.1")  # absolute: inside the root
    root.lib(V_REAL, [R + "onefn.c"], cflags=["-DFN=v_fn"])
    root.symlink("/usr/lib/vendor", "/opt/vendor/lib")  # a symlinked directory on the RPATH
    devname = root.stub("libx.so", [R + "onefn.c"], cflags=["-DFN=x_fn"])
    root.exe(X_BY_SONAME, [R + "x_main.c"], needs=[X_REAL, V_REAL], rpath="/usr/lib/vendor", link_dirs=[])
    root.exe(X_BY_DEVNAME, [R + "x_main.c"], needs=[devname, V_REAL], rpath="/usr/lib/vendor", link_dirs=[])
    root.exe(X_BOTH, [R + "x_main.c"], needs=[X_REAL, devname, V_REAL], rpath="/usr/lib/vendor", link_dirs=[])


@pytest.fixture(scope="module")
def symlinks(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return make_case(tmp_path_factory, "symlinks", build_symlinks, [X_BY_SONAME, X_BY_DEVNAME, X_BOTH])


def test_symlink_chain(symlinks: Case) -> None:
    result = symlinks.result
    assert elf_dynamic(symlinks.root.host(X_BY_SONAME))[1][0] == "libx.so.1"
    assert elf_dynamic(symlinks.root.host(X_BY_DEVNAME))[1][0] == "libx.so"
    assert elf_dynamic(symlinks.root.host(X_BOTH))[1][:2] == ["libx.so.1", "libx.so"]
    x = result.module(X_REAL)
    assert sorted(x["aliases"]) == [X_DEV, X_SONAME] and x["soname"] == "libx.so.1"
    paths = {m["path"] for m in result.report["modules"]}
    assert X_DEV not in paths and X_SONAME not in paths and "/usr/lib/vendor/libv.so" not in paths
    for exe in (X_BY_SONAME, X_BY_DEVNAME, X_BOTH):
        assert symlinks.traces[exe].objects == [exe, X_REAL, V_REAL, LIBC, LDSO]
        assert symlinks.objects(exe) == [exe, X_REAL, V_REAL, LIBC, LDSO]
    assert edge(symlinks, X_BY_DEVNAME, "libx.so")["to"] == X_REAL
    both = {e["soname"]: (e["to"], e["status"]) for e in result.edges(X_BOTH)}
    assert both["libx.so.1"] == (X_REAL, "used") and both["libx.so"][0] == X_REAL
    judge_all(symlinks)


# =========================================================================== sstripped binaries


def build_strippable(path: Path) -> Root:
    """The article's root plus the symbol-version programs: enough to need every dynamic table."""
    root = build_article_root(path)
    build_versions(root)
    return root


@pytest.fixture(scope="module")
def stripped_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Case, Case]:
    work = tmp_path_factory.mktemp("sstrip")
    plain = build_strippable(work / "plain")
    stripped = plain.clone(work / "stripped")
    for obj in stripped.built:
        sstrip(stripped.host(obj))
    execs = list(plain.executables)
    cases = []
    for name, root in (("plain", plain), ("stripped", stripped)):
        traces = {e: real_loader(root, e) for e in execs}
        cases.append(Case(root, scan(root, work / f"db-{name}", name), traces))
    return cases[0], cases[1]


def _without_sections(path: Path) -> bool:
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        return elf.header.e_shoff == 0 and elf.header.e_shnum == 0


def test_sstripped_same_as_unstripped(stripped_pair: tuple[Case, Case]) -> None:
    plain, stripped = stripped_pair
    for obj in stripped.root.built:
        assert _without_sections(stripped.root.host(obj)), obj
        assert stripped.root.host(obj).stat().st_size < plain.root.host(obj).stat().st_size
    # the real loader sees no difference ...
    for exe, trace in plain.traces.items():
        other = stripped.traces[exe]
        assert (trace.objects, trace.missing, trace.bindings, trace.undefined) == (
            other.objects,
            other.missing,
            other.bindings,
            other.undefined,
        ), exe
    # ... and neither may linkgraph
    for key in ("link_maps", "bindings", "unresolved", "duplicates", "dependencies"):
        a = {repr(sorted(x.items())) for x in plain.result.report[key]}
        b = {repr(sorted(x.items())) for x in stripped.result.report[key]}
        assert_same_set(f"report[{key!r}] unstripped vs sstripped", a, b)
    fields = ("path", "kind", "soname", "machine", "class", "endian", "interpreter", "needed", "aliases")
    for key_obj in stripped.root.built:
        a, b = plain.result.module(key_obj), stripped.result.module(key_obj)
        assert {f: a[f] for f in fields} == {f: b[f] for f in fields}, key_obj


def test_sstripped_matches_real_loader(stripped_pair: tuple[Case, Case]) -> None:
    _, stripped = stripped_pair
    for trace in stripped.traces.values():
        assert_matches_real_loader(stripped.result, trace)
    assert (PROG_OLD, "vfunc", "V1", LIBVER) in stripped.result.bindings(PROG_OLD)
    assert (PROG_NEW, "vfunc", "V2", LIBVER) in stripped.result.bindings(PROG_NEW)
