"""uClibc's libdl binds to the loader's internals: judged by the loader of each uClibc root we hold.

``libdl.so.0`` of uClibc 0.9.x implements ``dlopen`` with the loader's own functions and data
(``_dl_find_hash``, ``_dl_load_shared_library``, ``_dl_loaded_modules``, ``_dl_debug_addr`` ...),
which ``ld-uClibc.so.0`` exports. For each root, one program that links libdl is run to its entry
point under the root's own loader (runtime oracle: qemu-user, gdb reading every relocated slot):
libdl's ``_dl_*`` bindings in memory must equal linkgraph's for that program, and every one of
them binds to the loader.

* Hi-Link HLK-RM04 (uClibc 0.9.28, MIPS little-endian): ``/bin/pppd``;
* the Freifunk Ulm image (uClibc 0.9.33.2, MIPS big-endian): ``/usr/sbin/pppd``;
* TP-Link MR3020 (uClibc 0.9.30, MIPS big-endian): ``/sbin/tc``;
* D-Link DIR-880L (uClibc 0.9.32.1, ARM): ``/bin/sqlite3``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import scan_and_report
from support import qemu_oracle as qo
from support import runtime_oracle as ro
from support import vendor_roots as vendor

pytestmark = pytest.mark.slow

CASES = {
    "hilink_hlk-rm04": "/bin/pppd",
    "ffulm-0.6.5-": "/usr/sbin/pppd",
    "tplink-mr3020v1-3.17.2-": "/sbin/tc",
    "dlink_dir880l": "/bin/sqlite3",
}


def _root(name: str, work: Path) -> Path:
    if name in vendor.VENDOR_ROOTS:
        return vendor.extracted_root(name)[0]
    return qo.extract_root(qo.firmware_image(name), work / "image")


@pytest.mark.parametrize("name", list(CASES))
def test_libdl_binds_to_the_loader(name: str, tmp_path: Path) -> None:
    root, program = _root(name, tmp_path), CASES[name]
    trace = ro.runtime_bindings(root, [program], jobs=1)[program]
    assert trace.covered, trace.describe()
    libdl = {b[0] for b in trace.bindings if "/libdl" in b[0]}
    assert len(libdl) == 1, f"{program} loads {libdl or 'no libdl'}"
    (module,) = libdl
    theirs = {b for b in trace.bindings if b[0] == module and b[1].startswith("_dl_")}
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    ours = {
        (b["module"], b["symbol"], b["version"], b["provider"])
        for b in report["bindings"]
        if b["executable"] == program and b["module"] == module and b["symbol"].startswith("_dl_")
    }
    print(f"[{name}] {program}: {module}'s _dl_* bindings: oracle {len(theirs)}, linkgraph {len(ours)}")
    assert len(theirs) >= 10, sorted(theirs)  # 13 to 28 on these roots
    providers = {b[3] for b in theirs}
    assert len(providers) == 1 and "ld-uClibc" in providers.pop(), sorted(theirs)
    assert ours == theirs, (sorted(theirs - ours), sorted(ours - theirs))
