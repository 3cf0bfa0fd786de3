"""``__register_frame_info`` of a stock TP-Link program binds to ``libgcc_s.so.1``, as its loader binds it.

``/usr/arp`` of the TP-Link MR3020 root (uClibc 0.9.30, MIPS big-endian) declares ``libgcc_s.so.1``
then ``libc.so.0`` and references ``__register_frame_info`` and ``__deregister_frame_info`` weak and
versioned (``@GLIBC_2.0``: a glibc-configured compiler's crtbegin), as global GOT entries; libgcc_s
defines both (``@@GLIBC_2.0``), libc neither. uClibc ignores versions, and a weak undefined
reference is looked up as any other: the loader (runtime oracle: qemu-user, gdb reading every
relocated slot) binds both to libgcc_s, and linkgraph's bindings of the program equal the oracle's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import scan_and_report
from support import qemu_oracle as qo
from support import runtime_oracle as ro

pytestmark = pytest.mark.slow

PROGRAM, LIBGCC = "/usr/arp", "/lib/libgcc_s.so.1"
FRAME = ("__register_frame_info", "__deregister_frame_info")


def test_arp_frame_info_binds_to_libgcc_s(tmp_path: Path) -> None:
    root = qo.extract_root(qo.firmware_image("tplink-mr3020v1-3.17.2-"), tmp_path / "image")
    trace = ro.runtime_bindings(root, [PROGRAM], jobs=1)[PROGRAM]
    assert trace.covered, trace.describe()
    theirs = {(s, p) for m, s, _v, p in trace.bindings if m == PROGRAM and s in FRAME}
    assert theirs == {(s, LIBGCC) for s in FRAME}, sorted(trace.bindings)
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    ours = {
        (b["module"], b["symbol"], b["version"], b["provider"])
        for b in report["bindings"]
        if b["executable"] == PROGRAM and b["module"] != b["provider"]
    }
    assert {(s, p) for m, s, _v, p in ours if m == PROGRAM and s in FRAME} == theirs
    assert ours == set(trace.bindings), (sorted(ours - trace.bindings), sorted(trace.bindings - ours))
