"""An empty file is a problem (``empty-file``) only where a loader would open it for code: a file
named like a shared object or a kernel module. Empty scripts, ``.gitkeep`` and lock files, with or
without an executable bit, are not reported."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import scan_and_report
from support.fixture_root import install_host_loader

EMPTY_CODE = ("/usr/lib/libzero.so.1", "/lib/modules/4.4.0/empty.ko")
EMPTY_OTHER = {  # path -> mode, as vendor roots hold them
    "/etc/init.d/noop": 0o755,
    "/usr/sbin/empty.sh": 0o777,
    "/www/.gitkeep": 0o777,
    "/var/lock/opkg.lock": 0o755,
    "/var/run/ubus.sock": 0o644,  # ".so" inside a name that is no shared object's
    "/etc/resolv.conf.solo": 0o644,
}


def test_only_empty_files_a_loader_would_open_are_reported(tmp_path: Path) -> None:
    root, src = tmp_path / "root", tmp_path / "src"
    src.mkdir()
    (src / "zero.c").write_text("int zero(void) { return 0; }\n")
    (src / "prog.c").write_text("int zero(void);\nint main(void) { return zero(); }\n")
    gcc = shutil.which("gcc")
    assert gcc, "gcc not found"
    lib = src / "libzero.so.1"
    subprocess.run(
        [gcc, "-shared", "-fPIC", "-o", str(lib), "-Wl,-soname,libzero.so.1", str(src / "zero.c")], check=True
    )
    prog = root / "usr/bin/prog"
    prog.parent.mkdir(parents=True)
    subprocess.run([gcc, "-o", str(prog), str(src / "prog.c"), str(lib)], check=True)
    install_host_loader(root, prog)  # without it the program could not start at all
    for path in EMPTY_CODE:
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_bytes(b"")  # the library the program needs, emptied
    for path, mode in EMPTY_OTHER.items():
        host = root / path.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(b"")
        os.chmod(host, mode)
    report = scan_and_report(root, tmp_path / "graph.lbdb")
    empty = {p["path"]: p for p in report["problems"] if p["code"] == "empty-file"}
    assert set(empty) == set(EMPTY_CODE), report["problems"]
    assert all(p["severity"] == "warning" for p in empty.values())
    link_map = next(lm for lm in report["link_maps"] if lm["executable"] == "/usr/bin/prog")
    assert "libzero.so.1" in link_map["missing"]  # what the program needs is not there as code
    reported = {p["path"] for p in report["problems"]}
    assert not reported & set(EMPTY_OTHER), report["problems"]
