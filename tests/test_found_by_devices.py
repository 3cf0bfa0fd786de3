"""How linkgraph says each library was found (``rule``, ``directory``, ``via``, ``tried``,
``found_by`` of the JSON report), judged by each device's own loader through its system calls.

The four vendor roots of ``../shared/firmware/roots`` (uClibc 0.9.28 MIPS LE, uClibc 0.9.32.1
ARM, glibc 2.21 ARM, musl 1.1.19 MIPS LE) and the two TP-Link images (uClibc 0.9.33.2 and musl
1.1.16, MIPS BE) are scanned with the ``linkgraph`` CLI; every dynamic program (and with glibc
and musl every other link map linkgraph roots) is run by the root's loader in trace mode under
``qemu-ARCH-static -strace`` in a chroot of the root (tests/support/strace_oracle.py tells how the
``open`` calls are read).  Criterion, for every NEEDED entry of every link map, in load order:

* found by a search: the folder of the path the loader took equals ``directory`` (and the file
  is ``to``); ``rule`` fits it (``default-dir``: one of the report's ``loader_defaults``;
  ``rpath``/``runpath``: an entry of ``via``'s DT_RPATH/DT_RUNPATH; ``interpreter-dir``: the
  folder of PT_INTERP);
* missing: the paths the loader tried equal ``tried``;
* ``already-loaded`` / ``interpreter``: the loader opened nothing for it;
* no open of the loader is left that no NEEDED entry explains.

Extracted roots and the loader's output (with its strace log) are cached under
``~/.cache/linkgraph-tests`` keyed by the archive's or image's and the qemu binary's sha256, so a
warm run only scans and compares.  A missing archive, image or qemu is a failure, not a skip.
"""

from __future__ import annotations

import posixpath
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import scan_and_report
from support import qemu_oracle as qo
from support import strace_oracle as so
from support import vendor_roots as tvr

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

# name -> (how to get the root, qemu target)
IMAGES = {"ffulm-0.6.5": "mips", "lede-17.01.4": "mips"}
TARGETS = [*tvr.VENDOR_ROOTS, *IMAGES]


def _root(name: str) -> tuple[Path, str, str]:
    if name in tvr.VENDOR_ROOTS:
        root, sha = tvr.extracted_root(name)
        return root, sha, tvr.VENDOR_ROOTS[name].qemu
    root, sha = so.extracted_image(name + "-")
    return root, sha, IMAGES[name]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], so.Checked]:
    """All six roots scanned in parallel on first use (each scan is a CLI process); every test
    gets its root's result, or the error that root raised (so that a missing archive or qemu
    fails that test, naming the root)."""
    results: dict[str, so.Checked | BaseException] = {}

    def one(name: str, work: Path) -> so.Checked:
        t0 = time.monotonic()
        root, sha, arch = _root(name)
        tvr.qemu_host_binary(arch)
        t1 = time.monotonic()
        report = scan_and_report(root, work / "graph.lbdb")
        t2 = time.monotonic()
        result = so.check(name, root, sha, arch, work, report)
        result.seconds = {"extract": t1 - t0, "scan+report": t2 - t1, **result.seconds}
        return result

    def get(name: str) -> so.Checked:
        if not results:
            with ThreadPoolExecutor(max_workers=len(TARGETS)) as pool:
                works = {n: tmp_path_factory.mktemp(n) for n in TARGETS}  # mktemp is not thread-safe
                futures = {n: pool.submit(one, n, works[n]) for n in TARGETS}
                for n, future in futures.items():
                    try:
                        results[n] = future.result()
                    except BaseException as exc:
                        results[n] = exc
        result = results[name]
        if isinstance(result, BaseException):
            raise result
        return result

    return get


@pytest.mark.parametrize("name", TARGETS)
def test_found_by_agrees_with_device(name: str, checked: Callable[[str], so.Checked]) -> None:
    """100% agreement: the folder of every name found, the paths tried for every name missing,
    no open for every name reused, a rule that fits the folder."""
    result = checked(name)
    print(result.figures())
    a = result.agreement
    assert a.programs == len(result.traced) and a.programs > 0
    assert a.found > 0 and a.opens > 0, result.figures()
    assert a.agrees, result.figures() + "\n" + a.explain()


BUILD_HOST = ("/home", "/build", "/builds", "/work", "/workspace", "/usr/src", "/var/lib/jenkins")
WORLD_WRITABLE = ("/tmp", "/var", "/var/tmp", "/dev/shm")


def expected_risky(result: so.Checked) -> Counter:
    """The risky entries of every ELF file of the root by docs/report.md's rules, read with
    pyelftools (not linkgraph): (file, code) -> number of distinct entries."""
    root = result.loader.root
    out: Counter = Counter()

    def exists(path: str) -> bool:
        return (root / qo.resolve_in_root(root, path).lstrip("/")).exists()

    def world_writable(path: str) -> bool:
        if any(path == w or path.startswith(w + "/") for w in WORLD_WRITABLE):
            return True
        parts = path.strip("/").split("/")
        for n in range(1, len(parts) + 1):
            host = root / qo.resolve_in_root(root, "/" + "/".join(parts[:n])).lstrip("/")
            if host.is_dir() and host.stat().st_mode & 0o002:
                return True
        return False

    for path in result.loader.elves:
        for entries in so.search_entries(root / path.lstrip("/")).values():
            for entry in dict.fromkeys(entries):
                if not entry:
                    if result.kind != "musl":  # musl's path_open skips empty entries
                        out[path, "rpath-empty"] += 1
                    continue
                origin = entry.startswith(("$ORIGIN", "${ORIGIN}"))
                if not entry.startswith("/") and not origin:
                    out[path, "rpath-relative"] += 1
                    continue
                full = entry.replace("${ORIGIN}", posixpath.dirname(path)).replace("$ORIGIN", posixpath.dirname(path))
                if "$" in full:
                    continue
                full = posixpath.normpath(full)
                build = any(full == b or full.startswith(b + "/") for b in BUILD_HOST) or full.startswith(
                    "/opt/toolchain"
                )
                if build and not exists(full):
                    out[path, "rpath-build-host"] += 1
                elif world_writable(full):
                    out[path, "rpath-world-writable"] += 1
    return out


def test_risky_search_paths(checked: Callable[[str], so.Checked]) -> None:
    """The risky DT_RPATH/DT_RUNPATH warnings of the vendor roots (counts by code, one example
    each) equal those the rules of docs/report.md give on the entries pyelftools reads."""
    counts = {}
    for name in tvr.VENDOR_ROOTS:
        result = checked(name)
        risky = so.risky_paths(result.report)
        counts[name] = {code: len(items) for code, items in risky.items() if items}
        for code, items in risky.items():
            if items:
                print(f"{name}: {code} {len(items)}, e.g. {items[0]['path']}: {items[0]['message']}")
        got = Counter((p["path"], code) for code, items in risky.items() for p in items)
        assert got == expected_risky(result), name
    print(counts)
    assert counts["dlink_dir880l"].get("rpath-build-host"), counts
    # the Xiaomi root's files hold empty entries, which its musl loader skips: no warning
    xiaomi = checked("alt_xiaomi_r4a")
    root = xiaomi.loader.root
    holding = [p for p in xiaomi.loader.elves if any("" in e for e in so.search_entries(root / p.lstrip("/")).values())]
    assert holding and not counts["alt_xiaomi_r4a"].get("rpath-empty"), (len(holding), counts)


def test_comparison_notices_a_wrong_edge(checked: Callable[[str], so.Checked]) -> None:
    """The judge is not vacuous: on the JioFi (found, missing and reused names), one found
    edge moved to another folder, one missing edge's tried list shortened and one reused edge
    relabelled as searched are each reported as a disagreement."""
    import copy

    result = checked("jiofi2_m2")
    deps = result.report["dependencies"]
    found = next(i for i, d in enumerate(deps) if d["rule"] == "default-dir" and not d["found_by"])
    missing = next(i for i, d in enumerate(deps) if d["status"] == "missing" and len(d["tried"]) > 1)
    reused = next(i for i, d in enumerate(deps) if d["rule"] == "already-loaded" and not d["found_by"])
    for index, change in ((found, {"directory": "/usr/lib"}), (missing, {"tried": deps[missing]["tried"][:1]}),
                          (reused, {"rule": "default-dir"})):  # fmt: skip
        report = copy.deepcopy(result.report)
        report["dependencies"][index].update(change)
        edge = report["dependencies"][index]
        traced = [lm["executable"] for lm in report["link_maps"] if edge["from"] in lm["objects"]]
        traced = [p for p in result.traced if p in traced][:5]
        agreement = so.compare_searches(report, result.loader, traced)
        assert not agreement.agrees, (change, edge)
        assert any(f"{edge['from']} -> {edge['soname']}" in d for d in agreement.differences), agreement.explain()
