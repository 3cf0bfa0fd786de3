"""A root judged by its device's own loader under qemu-user: :func:`check_root` scans it with linkgraph,
traces every dynamic executable with the root's loader and compares the link maps; :func:`derive`
copies a root to change it in one way."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from conftest import scan_and_report

from . import qemu_oracle as qo


@dataclass
class Checked:
    """One root, linkgraph's report of it and the device loader's traces of its programs."""

    root: Path
    loader: qo.DeviceLoader
    report: dict
    executables: list[str]
    traces: dict[str, qo.Trace]
    agreement: qo.Agreement


def check_root(root: Path, work: Path, libraries: bool = False) -> Checked:
    """Scan ``root`` with linkgraph, trace every dynamic executable (and with ``libraries`` every
    library linkgraph roots a link map at: musl only) with the device loader, and compare link
    maps, and for musl the strong references nothing defines."""
    work.mkdir(parents=True, exist_ok=True)
    loader = qo.DeviceLoader(root, work)
    report = scan_and_report(root, work / "graph.lbdb")
    executables = qo.dynamic_executables(loader.elves)
    targets = list(executables)
    if libraries:
        targets += sorted(lm["executable"] for lm in report["link_maps"] if lm["executable"] not in executables)
    traces = loader.trace_many(targets)
    musl = any(t.kind == "musl" for t in traces.values())  # musl relocates in --list mode
    return Checked(root, loader, report, executables, traces, qo.compare_link_maps(report, traces, unresolved=musl))


def derive(root: Path, dest: Path) -> Path:
    """A real copy of ``root`` (no hard links: files get patched; device nodes stay nodes)."""
    subprocess.run(["cp", "-a", str(root), str(dest)], check=True)
    return dest


def assert_agreement(checked: Checked) -> None:
    assert checked.traces, "nothing traced"
    assert not checked.agreement.differences, checked.agreement.explain()
