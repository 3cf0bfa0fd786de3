"""``/etc/ld.so.preload`` judged by the devices' own loaders under qemu-user.

* glibc (the Debian 12 armhf root of debian_roots.py, its own ``ld-linux-armhf.so.3``): a copy of
  the root gets a preload file with several names on one line and separated by space, tab and
  ``:``; a library that brings a dependency no program loads otherwise (``libnftnl.so.11`` →
  ``libmnl.so.0``); glibc's malloc debugger ``libc_malloc_debug.so.0``, whose ``malloc``,
  ``free`` … interpose libc's in every program; a name already loaded; a missing name and a
  missing path; and a second comment, which rtld.c's comment loop leaves as words (see
  ``loader/ldso/preload_file.py``). For every program of the root: linkgraph's link map equals the
  loader's list, its cross-object bindings equal ``LD_DEBUG=bindings``, and the names the loader
  says "cannot be preloaded" are linkgraph's ``preload-missing`` problems; and run to their
  entry points (runtime oracle), the bindings in their memory equal linkgraph's.
* uClibc (the Freifunk Ulm image, 0.9.33.2): its loader was built without
  ``LDSO_PRELOAD_FILE_SUPPORT`` (the path is not in its file): with a preload file naming a
  library no program loads, every program's list stays as it was, and linkgraph agrees.
* musl (the LEDE image, 1.1.16): musl reads no preload file (the path is not in its file either).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import debian_roots, foreign_oracle, hostroot, oracle
from support import qemu_oracle as qo
from support.device_roots import assert_agreement, check_root, derive
from test_runtime_agreement import root_agreement

pytestmark = pytest.mark.slow

ARCH = "armhf"
LIBDIR = "/usr/lib/arm-linux-gnueabihf"
# The first comment spans the first line; the second one lies beyond what rtld.c's memchr then
# searches, so "#", "loaded", "again" are names too (and missing).
GLIBC_PRELOAD = (
    "# every program: glibc's malloc debugger, netfilter's library (it brings libmnl.so.0)\n"
    f"libc_malloc_debug.so.0 libnftnl.so.11:libnotthere.so.7\t{LIBDIR}/libz.so.1\n"
    "libz.so.1 # loaded again\n"
    "/no/such/libgone.so.1"  # no newline at the end: rtld.c's "problem" word
)
PRELOADED = [f"{LIBDIR}/libc_malloc_debug.so.0", f"{LIBDIR}/libnftnl.so.11", f"{LIBDIR}/libz.so.1"]


def _preloaded_root(work: Path) -> Path:
    root = work / "root"
    shutil.copytree(debian_roots.cached_debian_root(ARCH), root, symlinks=True)
    (root / "etc/ld.so.preload").write_text(GLIBC_PRELOAD)
    return root


def _preload_problems(report: dict) -> list[dict]:
    return [p for p in report["problems"] if p["code"] == "preload-missing"]


def test_glibc_preload_file(tmp_path: Path) -> None:
    root = _preloaded_root(tmp_path)
    report = hostroot.scan_and_report(root, tmp_path / "db", name=f"debian-{ARCH}-preload")
    executables = foreign_oracle.root_executables(root)
    traces, unused = foreign_oracle.trace_root(ARCH, root, executables)
    agreement = oracle.compare_report(report, traces, unused)
    preloaded = [qo.resolve_in_root(root, p) for p in PRELOADED]  # the files behind the names
    figures = (
        f"{len(traces)} programs; link maps equal {len(traces) - len(agreement.link_map_diffs)}/{len(traces)}; "
        f"bindings: oracle {agreement.oracle_bindings}, linkgraph {agreement.our_bindings}, common "
        f"{agreement.common_bindings}"
    )
    print(figures)
    assert len(traces) == len(executables) >= 15, figures  # every program of the root (19)
    # the file reached the loader: each program has the preloaded objects right after itself,
    # libmnl.so.0 with them, and malloc bound to the debugger
    interposed = 0
    for exe, trace in traces.items():
        assert trace.objects[1:4] == preloaded, (exe, trace.objects)
        assert qo.resolve_in_root(root, f"{LIBDIR}/libmnl.so.0") in trace.objects, (exe, trace.objects)
        interposed += any(b[1] == "malloc" and b[3] == preloaded[0] for b in trace.bindings)
    assert interposed == len(traces), f"malloc bound to the debugger in {interposed}/{len(traces)} programs"
    assert agreement.no_link_map == [], agreement.no_link_map
    assert agreement.link_map_diffs == [], agreement.link_map_diffs[:3]
    assert agreement.binding_diffs == {}, dict(list(agreement.binding_diffs.items())[:3])
    # (not ``ldd -u``: rtld.c pairs the program's DT_NEEDED entries with the objects after it in
    # the chain, "This loop depends on the dependencies of the executable to correspond in number
    # and order to the DT_NEEDED entries", so with preloads it reports the preloaded objects)
    # the loader's "cannot be preloaded" lines, the same for every program, are linkgraph's problems
    said = {tuple(t.preload_errors) for t in traces.values()}
    assert len(said) == 1, said
    (errors,) = said
    print("cannot be preloaded:", [name for name, _, _ in errors])
    assert errors and {where for _, where, _ in errors} == {"/etc/ld.so.preload"}, errors
    assert {why for _, _, why in errors} == {"cannot open shared object file"}, errors
    problems = _preload_problems(report)
    assert sorted(p["message"] for p in problems) == sorted(
        f"ERROR: ld.so: object '{name}' from {where} cannot be preloaded ({why}): ignored."
        for name, where, why in errors
    ), problems
    assert {p["severity"] for p in problems} == {"warning"}
    # a library no program loads keeps the link map of its own dependencies (preloading is a process's)
    libraries = {lm["executable"]: lm for lm in report["link_maps"] if lm["executable"] not in traces}
    assert libraries and all(preloaded[0] not in lm["objects"] for lm in libraries.values())


def test_glibc_preload_file_runtime_bindings(tmp_path: Path) -> None:
    """The same root, every program run to its entry point under its own loader (runtime
    oracle): the bindings in memory equal linkgraph's, malloc's to the debugger included."""
    root = _preloaded_root(tmp_path)
    (tmp_path / "work").mkdir()
    result, traces = root_agreement(root, tmp_path / "work")
    print(result.summary(f"debian-{ARCH}-preload"))
    assert all(t.covered for t in traces.values()), [t.describe() for t in traces.values() if not t.covered]
    debugger = qo.resolve_in_root(root, PRELOADED[0])
    assert all(debugger in t.objects for t in traces.values())
    assert all(any(b[1] == "malloc" and b[3] == debugger for b in t.bindings) for t in traces.values())
    assert result.oracle > 1000, result.summary(ARCH)
    assert not result.differences, result.summary(ARCH)
    assert result.common == result.oracle == result.ours


@pytest.fixture(scope="module")
def uclibc_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qo.extract_root(qo.firmware_image("ffulm-0.6.5-"), tmp_path_factory.mktemp("ffulm"))


@pytest.fixture(scope="module")
def musl_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qo.extract_root(qo.firmware_image("lede-17.01.4-"), tmp_path_factory.mktemp("lede"))


def _loader_reads_preload_file(root: Path, loader: str) -> bool:
    """Whether the loader's file holds a preload file's path (uClibc: ``LDSO_PRELOAD``)."""
    return b"ld.so.preload\0" in (root / qo.resolve_in_root(root, loader).lstrip("/")).read_bytes()


def _ignored_preload(root: Path, work: Path, loader: str, library: str) -> None:
    """A copy of ``root`` with a preload file naming ``library`` (which few programs load) and a
    missing name: the loader's lists and linkgraph's link maps agree, and the library is still
    missing from the lists of the other programs."""
    assert not _loader_reads_preload_file(root, loader), f"{loader} names a preload file"
    derived = derive(root, work / "root")
    (derived / "etc/ld.so.preload").write_text(f"{library}:libnotthere.so.7\n")
    checked = check_root(derived, work / "check")
    assert_agreement(checked)
    canonical = qo.resolve_in_root(derived, library)
    without = [exe for exe, t in checked.traces.items() if canonical not in t.objects]
    print(f"{len(checked.traces)} programs, {len(without)} without {library}")
    assert len(without) >= 20, (len(without), len(checked.traces))
    assert _preload_problems(checked.report) == []


def test_uclibc_loader_without_preload_support(uclibc_root: Path, tmp_path: Path) -> None:
    _ignored_preload(uclibc_root, tmp_path, "/lib/ld-uClibc.so.0", "/usr/lib/libiwinfo.so")


def test_musl_reads_no_preload_file(musl_root: Path, tmp_path: Path) -> None:
    _ignored_preload(musl_root, tmp_path, "/lib/ld-musl-mips-sf.so.1", "/usr/lib/libiwinfo.so")
