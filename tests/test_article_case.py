"""The reference case: the TEW-636APB busybox of LWN's "Dynamic linking and derivative works" (2013).

Built from C (tests/fixtures/article) with gcc into a small root filesystem, scanned with the
``linkgraph`` CLI, and checked twice: against the picture the article draws (every dependency
edge, the symbols behind it, nothing else), and against the real glibc loader run inside the root
(fixture_root.real_loader).  Beside busybox the root holds traps: an unresolved strong
reference, a symbol two libraries export, a ``$ORIGIN`` RUNPATH and a missing library.
"""

from __future__ import annotations

import pytest
from support.article import (
    APCFG,
    APLOG,
    APP,
    BUSYBOX,
    BUSYBOX_NEEDED,
    CRYPT,
    EXECUTABLES,
    FIXTURE_LIBS,
    GCC_S,
    LDSO,
    LIB_APP,
    LIB_APP_DECOY,
    LIB_DUPA,
    LIB_DUPB,
    LIB_UNDEF,
    LIBC,
    NVRAM,
    TRAP_DUP,
    TRAP_MISSING,
    TRAP_UNDEF,
    UTIL,
    VENDOR,
    build_article_root,
)
from support.fixture_root import (
    INTERP,
    Root,
    Scan,
    assert_matches_real_loader,
    assert_same_set,
    edges_from_traces,
    elf_dynamic,
    real_loader,
    real_run,
    scan,
)
from support.oracle import GlibcTrace


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> tuple[Root, Scan, dict[str, GlibcTrace]]:
    work = tmp_path_factory.mktemp("article")
    root = build_article_root(work / "root")
    traces = {exe: real_loader(root, exe) for exe in EXECUTABLES}
    return root, scan(root, work / "db", "tew-636apb"), traces


# --------------------------------------------------------------------------- the build itself


def test_fixture_is_what_the_article_describes(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """The gcc build really produced the topology (guards the fixture, not linkgraph)."""
    root, _, traces = article
    assert elf_dynamic(root.host(BUSYBOX))[1] == BUSYBOX_NEEDED
    assert elf_dynamic(root.host(APCFG))[1] == ["libnvram.so", "libc.so.6"]
    t = traces[BUSYBOX]
    assert t.objects == [BUSYBOX, UTIL, NVRAM, APCFG, APLOG, CRYPT, GCC_S, LIBC, LDSO]
    assert t.missing == [] and t.undefined == []
    assert (APCFG, "util_bar", None, UTIL) in t.bindings
    assert (APCFG, "aplog_write", None, APLOG) in t.bindings
    assert traces[TRAP_MISSING].missing == ["libgone.so.1"]
    assert ("vendor_missing_fn", None, LIB_UNDEF) in traces[TRAP_UNDEF].undefined
    assert (TRAP_DUP, "dup_fn", None, LIB_DUPA) in traces[TRAP_DUP].bindings
    assert traces[APP].objects[1] == LIB_APP


# --------------------------------------------------------------------------- the article's picture


def libc_symbols(trace: GlibcTrace, module: str) -> tuple[str, ...]:
    return tuple(sorted({s for m, s, _, p in trace.bindings if m == module and p == LIBC}))


def test_busybox_edges(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    t = traces[BUSYBOX]
    expected = {
        (BUSYBOX, "libutility.so", UTIL, "used", ("util_foo",)),
        (BUSYBOX, "libnvram.so", NVRAM, "declared-unused", ()),
        (BUSYBOX, "libapcfg.so", APCFG, "used", ("apcfg_get",)),
        (BUSYBOX, "libaplog.so", APLOG, "declared-unused", ()),
        (BUSYBOX, "libcrypt.so.0", CRYPT, "declared-unused", ()),
        (BUSYBOX, "libgcc_s.so.1", GCC_S, "declared-unused", ()),
        (BUSYBOX, "libc.so.6", LIBC, "used", libc_symbols(t, BUSYBOX)),
    }
    assert "printf" in libc_symbols(t, BUSYBOX)
    assert_same_set("dependency edges of busybox", expected, result.edge_set(BUSYBOX))


def test_libapcfg_edges(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """libapcfg: libnvram declared and used; libutility and libaplog hidden."""
    _, result, traces = article
    expected = {
        (APCFG, "libnvram.so", NVRAM, "used", ("nvram_get",)),
        (APCFG, "libutility.so", UTIL, "hidden", ("util_bar",)),
        (APCFG, "libaplog.so", APLOG, "hidden", ("aplog_write",)),
        (APCFG, "libc.so.6", LIBC, "used", libc_symbols(traces[BUSYBOX], APCFG)),
    }
    assert_same_set("dependency edges of libapcfg", expected, result.edge_set(APCFG))


def test_other_vendor_libraries_only_use_libc(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    for lib in (UTIL, NVRAM, APLOG, CRYPT, GCC_S):
        syms = libc_symbols(traces[BUSYBOX], lib)
        expected = {(lib, "libc.so.6", LIBC, "used" if syms else "declared-unused", syms)}
        assert_same_set(f"dependency edges of {lib}", expected, result.edge_set(lib))
    assert "puts" in libc_symbols(traces[BUSYBOX], APLOG)


def test_hidden_edges_are_exactly_the_expected_ones(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """No other hidden edge anywhere among the fixture objects; libdupb's own dup_fn, bound to
    libdupa because libdupa comes first, is interposition: libdupb needs nothing of libdupa."""
    _, result, _ = article
    fixture = {*EXECUTABLES, *FIXTURE_LIBS}
    hidden = {e for e in result.edge_set() if e[3] == "hidden" and e[0] in fixture}
    expected = {
        (APCFG, "libutility.so", UTIL, "hidden", ("util_bar",)),
        (APCFG, "libaplog.so", APLOG, "hidden", ("aplog_write",)),
    }
    assert_same_set("hidden edges from fixture objects", expected, hidden)
    interposed = {e for e in result.edge_set() if e[3] == "interposed" and e[0] in fixture}
    assert_same_set("interposed edges", {(LIB_DUPB, "libdupa.so", LIB_DUPA, "interposed", ("dup_fn",))}, interposed)


def test_busybox_bindings_behind_the_edges(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """The exact vendor-library bindings in busybox's link map."""
    _, result, _ = article
    vendor = set(VENDOR)
    got = {b for b in result.bindings(BUSYBOX) if b[3] in vendor}
    expected = {
        (BUSYBOX, "util_foo", None, UTIL),
        (BUSYBOX, "apcfg_get", None, APCFG),
        (APCFG, "nvram_get", None, NVRAM),
        (APCFG, "util_bar", None, UTIL),
        (APCFG, "aplog_write", None, APLOG),
    }
    assert_same_set("bindings to vendor libraries in busybox's map", expected, got)


def test_modules(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, _ = article
    bb = result.module(BUSYBOX)
    assert bb["kind"] == "executable"
    assert bb["needed"] == BUSYBOX_NEEDED
    assert bb["interpreter"] == INTERP
    assert bb["soname"] is None
    assert sorted(bb["aliases"]) == ["/bin/sh", "/sbin/init"]
    assert (bb["class"], bb["endian"]) == (64, "little")
    for lib, soname in [
        (UTIL, "libutility.so"),
        (APCFG, "libapcfg.so"),
        (CRYPT, "libcrypt.so.0"),
        (GCC_S, "libgcc_s.so.1"),
    ]:
        m = result.module(lib)
        assert (m["kind"], m["soname"], m["class"], m["machine"]) == ("library", soname, 64, bb["machine"])
    assert result.module(APCFG)["needed"] == ["libnvram.so", "libc.so.6"]
    ldso = result.module(LDSO)
    assert ldso["aliases"] == [INTERP]
    paths = {m["path"] for m in result.report["modules"]}
    assert INTERP not in paths and "/bin/sh" not in paths


def test_busybox_link_map_and_bindings_match_real_loader(
    article: tuple[Root, Scan, dict[str, GlibcTrace]],
) -> None:
    """Load order, missing, every binding of the fixture objects, strong unresolved: as ld.so says."""
    _root, result, traces = article
    assert_matches_real_loader(result, traces[BUSYBOX], modules=[BUSYBOX, *VENDOR])


def test_busybox_whole_map_matches_real_loader(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """Every binding of the map, libc's own included (the interpreter's own: see the next test)."""
    _, result, traces = article
    assert_matches_real_loader(result, traces[BUSYBOX])


def test_interpreter_bindings_match_a_real_start(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """ld.so re-relocates itself against the global scope at start-up: a real run shows where."""
    root, result, _ = article
    proc, seen = real_run(root, BUSYBOX)
    assert proc.returncode == 0 and proc.stdout.split() == ["lan_ipaddr", "218"], proc.stderr[-2000:]
    expected = {b for b in seen if b[0] == LDSO}
    assert expected, "the real start showed no binding of the interpreter"
    assert_same_set("bindings of the interpreter", expected, result.bindings(BUSYBOX, [LDSO]))


def test_all_edges_match_real_loader(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """Every edge from every fixture object, derived from the real loader's bindings, and no others."""
    root, result, traces = article
    fixture = {*EXECUTABLES, *FIXTURE_LIBS} - {LIB_APP_DECOY}
    expected = {e for e in edges_from_traces(root, traces.values(), skip=[LDSO]) if e[0] in fixture}
    assert_same_set("edges from fixture objects", expected, {e for e in result.edge_set() if e[0] in fixture})


# --------------------------------------------------------------------------- the traps


def test_unresolved_strong_reference(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    assert ("vendor_missing_fn", None, LIB_UNDEF) in traces[TRAP_UNDEF].undefined
    strong = {u for u in result.unresolved(TRAP_UNDEF) if not u[3]}
    assert strong == {(LIB_UNDEF, "vendor_missing_fn", None, False)}
    assert_matches_real_loader(result, traces[TRAP_UNDEF])
    assert (TRAP_UNDEF, "undef_entry", None, LIB_UNDEF) in result.bindings(TRAP_UNDEF)
    assert all(u[3] for u in result.unresolved(BUSYBOX)), "busybox has no strong unresolved reference"


def test_duplicate_provider(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    dups = result.duplicates(TRAP_DUP)
    assert "dup_fn" in dups, f"dup_fn not among duplicates {sorted(dups)}"
    assert set(dups["dup_fn"]["providers"]) == {LIB_DUPA, LIB_DUPB}
    assert dups["dup_fn"]["chosen"] == LIB_DUPA
    fixture_dups = {s for s, d in dups.items() if set(d["providers"]) & {LIB_DUPA, LIB_DUPB, TRAP_DUP}}
    assert fixture_dups == {"dup_fn"}
    assert (TRAP_DUP, "dup_fn", None, LIB_DUPA) in result.bindings(TRAP_DUP)
    assert (LIB_DUPB, "dup_fn", None, LIB_DUPA) in result.bindings(TRAP_DUP)
    assert_matches_real_loader(result, traces[TRAP_DUP])
    assert_same_set(
        "edges of libdupb",
        {
            (LIB_DUPB, "libdupa.so", LIB_DUPA, "interposed", ("dup_fn",)),
            (LIB_DUPB, "libc.so.6", LIBC, "used", libc_symbols(traces[TRAP_DUP], LIB_DUPB)),
        },
        result.edge_set(LIB_DUPB),
    )
    vendor_dups = {s for s, d in result.duplicates(BUSYBOX).items() if set(d["providers"]) & set(VENDOR)}
    assert vendor_dups == set(), f"busybox's vendor libraries export nothing twice: {vendor_dups}"


def test_origin_runpath(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    assert traces[APP].objects[1] == LIB_APP
    assert result.edge_set(APP) == {
        (APP, "libapp.so", LIB_APP, "used", ("app_fn",)),
        (APP, "libc.so.6", LIBC, "used", libc_symbols(traces[APP], APP)),
    }
    assert_matches_real_loader(result, traces[APP])
    # The decoy in /lib is loaded by no executable: it gets a link map of its own.
    assert result.link_map(LIB_APP_DECOY)["objects"][0] == LIB_APP_DECOY


def test_missing_library(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    _, result, traces = article
    assert "libgone.so.1" in traces[TRAP_MISSING].missing
    assert (TRAP_MISSING, "libgone.so.1", None, "missing", ()) in result.edge_set(TRAP_MISSING)
    lm = result.link_map(TRAP_MISSING)
    assert lm["missing"] == ["libgone.so.1"]
    assert lm["objects"] == [TRAP_MISSING, LIBC, LDSO]
    assert (TRAP_MISSING, "gone_fn", None, False) in result.unresolved(TRAP_MISSING)
    assert_matches_real_loader(result, traces[TRAP_MISSING])


def test_scan_exit_code(article: tuple[Root, Scan, dict[str, GlibcTrace]]) -> None:
    """Exit code 1 exactly when error-severity problems were recorded (contract)."""
    _, result, _ = article
    assert result.rc == (1 if result.problems("error") else 0), (result.rc, result.problems())
