"""linkgraph against the foreign glibc loaders of real Debian 12 roots (armhf, arm64, mipsel, i386).

Each root (debian_roots.py) holds busybox, libc6/libc-bin, curl, openssl, dropbear-bin and iptables
with their whole dependency closure for that architecture, unpacked as on a merged-/usr Debian
system, with an ``/etc/ld.so.cache`` made by the architecture's own ldconfig under qemu.  The judge
is that root's own ``ld.so`` run under qemu-user in trace mode (foreign_oracle.py).  For every
dynamic executable in /usr/bin, /usr/sbin, /bin and /sbin of the root:

(a) linkgraph's link map equals the loader's list, in order (interpreter included);
(b) cross-object bindings (module, symbol, version, provider), module != provider, agree with the
    loader's ``LD_DEBUG=bindings`` lines: recall and precision >= 99.5% per architecture.  ld.so's
    own references are left out on both sides because trace mode does not relocate ld.so; the
    ``trace mode`` test checks that on each architecture (none in the trace, some in a real run);
(c) declared-unused NEEDED edges of each executable equal ``ldd -u`` (``LD_DEBUG=unused``).

Nothing is skipped: without qemu-user-static, apt access to the Debian archive or root rights
(``dpkg --add-architecture``), the tests fail.  A whole architecture (root cached, scan, traces)
takes well under a minute, so the tests are not marked slow; the timings are printed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import debian_roots, foreign_oracle, hostroot, oracle

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

THRESHOLD = 0.995
ARCHES = list(debian_roots.ARCHES)
# Programs the root must hold (device paths after usrmerge), so the comparison keeps its purpose.
EXPECTED_PROGRAMS = [
    "/usr/bin/busybox", "/usr/bin/curl", "/usr/bin/openssl", "/usr/sbin/dropbear", "/usr/bin/dbclient",
    "/usr/sbin/xtables-legacy-multi", "/usr/sbin/xtables-nft-multi", "/usr/bin/getent",
]  # fmt: skip
MIN_ORACLE_BINDINGS = 5_000  # about 9,500 per architecture with Debian 12 (curl alone: 3,800)


@dataclass
class ForeignRun:
    """One architecture: its root, linkgraph's report, the foreign loader's traces, and timings."""

    arch: str
    root: Path
    manifest: dict
    report: dict
    executables: list[str]
    traces: dict[str, oracle.GlibcTrace]
    unused: dict[str, list[str]]
    agreement: oracle.Agreement
    seconds: dict[str, float] = field(default_factory=dict)

    def figures(self) -> str:
        m, a = self.manifest, self.agreement
        times = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        return (
            f"[{self.arch}] root: {len(m['packages'])} packages, {m['deb_bytes'] / 1e6:.1f} MB .deb, "
            f"{m['root_bytes'] / 1e6:.1f} MB unpacked; {len(self.executables)} executables; {times}\n"
            f"[{self.arch}] link maps: {a.executables - len(a.link_map_diffs) - len(a.no_link_map)}/{a.executables}"
            f" equal; cross-object bindings: oracle {a.oracle_bindings}, linkgraph {a.our_bindings}, common "
            f"{a.common_bindings}: recall {a.recall:.4%}, precision {a.precision:.4%}\n"
            + "".join(f"[{self.arch}] linkgraph problem: {p['path']}: {p['message']}\n" for p in self.problems()[:10])
            + a.summary()
        )

    def problems(self) -> list[dict]:
        """linkgraph's error-severity problems (files it could not use)."""
        return [p for p in self.report.get("problems", []) if p["severity"] == "error"]


@pytest.fixture(scope="module", params=ARCHES)
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ForeignRun:
    arch: str = request.param
    seconds: dict[str, float] = {}
    t0 = time.monotonic()
    root = debian_roots.cached_debian_root(arch)
    seconds["root"] = time.monotonic() - t0
    t0 = time.monotonic()
    report = hostroot.scan_and_report(root, tmp_path_factory.mktemp(f"foreign-{arch}") / "db", name=f"debian-{arch}")
    seconds["scan+report"] = time.monotonic() - t0
    t0 = time.monotonic()
    executables = foreign_oracle.root_executables(root)
    traces, unused = foreign_oracle.trace_root(arch, root, executables)
    seconds["oracle"] = time.monotonic() - t0
    agreement = oracle.compare_report(report, traces, unused)
    return ForeignRun(
        arch, root, debian_roots.load_manifest(root), report, executables, traces, unused, agreement, seconds
    )


def test_root_is_a_foreign_glibc_device(run: ForeignRun) -> None:
    info = debian_roots.ARCHES[run.arch]
    assert (run.root / "etc/ld.so.cache").is_file()
    assert (run.root / "etc/ld.so.conf").is_file()
    assert (run.root / f"etc/ld.so.conf.d/{info.triplet}.conf").is_file()
    missing = [p for p in EXPECTED_PROGRAMS if p not in run.executables]
    assert missing == [], f"{run.arch}: the root lacks {missing}"
    interpreter = foreign_oracle.PathMapper(run.root)(info.interpreter)
    for exe, trace in run.traces.items():
        assert trace.interpreter == interpreter, exe
        assert trace.objects[0] == exe and interpreter in trace.objects, (exe, trace.objects)
        assert not trace.missing and not trace.undefined and not trace.version_errors, (exe, trace)
    # linkgraph agrees on the machine of every executable it could read (the others fail (a)).
    machines = {m["path"]: m["machine"] for m in run.report["modules"] if m["path"] in run.executables}
    assert set(machines.values()) <= {info.machine}, machines


def test_trace_mode_does_not_relocate_ld_so(run: ForeignRun) -> None:
    """Why ld.so's own references are left out: the trace shows none, a real start of busybox does."""
    interpreter = foreign_oracle.interpreter_of(run.root, "/usr/bin/busybox")
    traced = {b for t in run.traces.values() for b in t.bindings if b[0] == interpreter}
    assert traced == set(), f"{run.arch}: trace mode relocated ld.so: {sorted(traced)[:5]}"
    real = foreign_oracle.real_run_bindings(run.arch, run.root, ["/usr/bin/busybox", "true"])
    own = {b for b in real if b[0] == interpreter and b[3] != interpreter}
    assert own, f"{run.arch}: a real run shows no binding of ld.so's own references"


def test_link_maps_equal_loader(run: ForeignRun, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print("\n" + run.figures())
    assert run.agreement.no_link_map == [], f"{run.arch}: no link map for {run.agreement.no_link_map}"
    assert run.agreement.link_map_diffs == [], run.figures()


def test_cross_object_bindings(run: ForeignRun) -> None:
    assert run.agreement.oracle_bindings >= MIN_ORACLE_BINDINGS, run.figures()  # the root really exercises ld.so
    assert run.agreement.recall >= THRESHOLD, run.figures()
    assert run.agreement.precision >= THRESHOLD, run.figures()


def test_declared_unused_equals_ldd_u(run: ForeignRun) -> None:
    assert run.agreement.unused_diffs == [], run.figures()
