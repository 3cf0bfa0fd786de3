"""Hostile nesting: a scan of each root below finishes (exit 0 or 1, no traceback) in bounded time
and memory, where the recursive code it replaced died with RecursionError.

* a directory tree 1,500 levels deep with a program at the bottom, and a branch of long names
  whose host path passes PATH_MAX: the walk stops at ``MAX_WALK_DEPTH`` and short of PATH_MAX,
  one ``depth-limit`` warning each;
* an ``include`` chain 2,000 files long in /etc/ld.so.conf: ``depth-limit`` past 64 levels;
* an ld.so.conf that includes a file including it again: ``include-loop``;
* a program needing the first of 3,000 libraries, each needing the next (one library built with
  gcc, copied with its DT_SONAME and DT_NEEDED strings patched): the relocation order is computed.

And, in process, the iterative walk yields what the recursive ``os.walk`` one did, in its order.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from linkgraph.loader.rootfs import RootFS
from support.fixture_root import install_host_loader
from support.measured import Run, run_measured

HOST_ELF = Path("/bin/true")
LIMIT_SECONDS = 30
LIMIT_RSS = 1 << 30  # bytes
CLI_TIMEOUT = 120


def run_cli(*args: str) -> Run:
    return run_measured(*args, timeout=CLI_TIMEOUT)


def scan_and_report(root: Path, db: Path) -> tuple[dict, Run]:
    """Scan ``root`` and read its report; both within the limits, the scan's exit code 0 or 1."""
    scan = run_cli("scan", str(root), "--db", str(db), "--quiet")
    assert scan.rc in (0, 1), f"scan exit {scan.rc}:\n{scan.stderr[-4000:]}"
    assert "Traceback" not in scan.stderr, scan.stderr[-4000:]
    report = run_cli("report", "--db", str(db), "--format", "json")
    assert report.rc in (0, 1), f"report exit {report.rc}:\n{report.stderr[-4000:]}"
    total = Run(scan.rc, scan.stdout, scan.stderr, scan.seconds + report.seconds, max(scan.max_rss, report.max_rss))
    print(f"{db.parent.name}: scan+report {total.seconds:.1f} s, peak RSS {total.max_rss / 2**20:.0f} MiB")
    assert total.seconds < LIMIT_SECONDS, f"took {total.seconds:.1f} s"
    assert total.max_rss < LIMIT_RSS, f"peak RSS {total.max_rss / 2**20:.0f} MiB"
    return json.loads(report.stdout), total


def problems(report: dict, code: str) -> list[dict]:
    return [p for p in report["problems"] if p["code"] == code]


def remove_tree(top: Path) -> None:
    """``rm -rf``: shutil.rmtree recurses and cannot remove these trees."""
    subprocess.run(["rm", "-rf", str(top)], check=False)


@pytest.fixture
def root(tmp_path: Path):
    top = tmp_path / "root"
    (top / "bin").mkdir(parents=True)
    shutil.copy(HOST_ELF, top / "bin" / "true")
    install_host_loader(top, top / "bin" / "true")
    yield top
    remove_tree(top)


def test_deep_directory_tree(root: Path, tmp_path: Path) -> None:
    depth = 1500
    subprocess.run(["mkdir", "-p", str(root / "/".join(["d"] * depth))], check=True)
    bottom = root / "/".join(["d"] * depth) / "prog"
    shutil.copy(HOST_ELF, bottom)
    # a branch of long names going past PATH_MAX on the host, made through directory handles
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(24):
            os.mkdir("n" * 200, dir_fd=fd)
            inner = os.open("n" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("prog", os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=fd)
        os.write(out, HOST_ELF.read_bytes())
        os.close(out)
    finally:
        os.close(fd)

    report, _ = scan_and_report(root, tmp_path / "graph.lbdb")
    paths = {m["path"] for m in report["modules"]}
    assert "/bin/true" in paths
    assert not any(p.endswith("/prog") for p in paths), "nothing past the limits is scanned"
    limits = problems(report, "depth-limit")
    deep = [p for p in limits if "levels deep" in p["message"]]
    assert len(deep) == 1, limits
    assert deep[0]["path"] == "/" + "/".join(["d"] * 257) and deep[0]["severity"] == "warning"
    long = [p for p in limits if "PATH_MAX" in p["message"]]
    assert len(long) == 1, limits
    assert long[0]["path"].startswith("/" + "n" * 200 + "/") and long[0]["severity"] == "warning"


def test_include_chain(root: Path, tmp_path: Path) -> None:
    conf = root / "etc" / "conf.d"
    conf.mkdir(parents=True)
    (root / "etc" / "ld.so.conf").write_text("include /etc/conf.d/0000.conf\n/lib/top\n")
    for i in range(2000):
        (conf / f"{i:04d}.conf").write_text(f"include {i + 1:04d}.conf\n/lib/d{i:04d}\n")

    report, _ = scan_and_report(root, tmp_path / "graph.lbdb")
    limits = problems(report, "depth-limit")
    assert len(limits) == 1, report["problems"]
    assert limits[0]["path"] == "/etc/conf.d/0063.conf" and "/etc/conf.d/0064.conf" in limits[0]["message"]
    assert problems(report, "ld-conf-assumed"), report["problems"]
    assert "65 directories" in problems(report, "ld-conf-assumed")[0]["message"]


def test_include_loop(root: Path, tmp_path: Path) -> None:
    etc = root / "etc"
    etc.mkdir()
    (etc / "ld.so.conf").write_text("include loop.conf\n/lib/top\n")
    (etc / "loop.conf").write_text("include /etc/ld.so.conf\n/lib/loop\n")

    report, _ = scan_and_report(root, tmp_path / "graph.lbdb")
    loops = problems(report, "include-loop")
    assert len(loops) == 1, report["problems"]
    assert loops[0]["path"] == "/etc/loop.conf" and "/etc/ld.so.conf" in loops[0]["message"]
    assert loops[0]["severity"] == "warning"
    assert "2 directories" in problems(report, "ld-conf-assumed")[0]["message"]


def _name(i: int) -> str:
    return f"libq{i:04d}.so"


def test_long_needed_chain(root: Path, tmp_path: Path) -> None:
    """The program needs all 3,000 libraries, in order, and each needs the one before it: glibc's
    depth-first sort starts from the last one loaded and goes down the whole chain."""
    count = 3000
    build = tmp_path / "build"
    build.mkdir()
    (build / "lib.c").write_text("int q(void) { return 0; }\n")
    (build / "main.c").write_text("int q(void);\nint main(void) { return q(); }\n")
    cc = ["gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,--no-as-needed", build / "lib.c"]
    absent = "libq9999.so"  # what the first library needs: not in the root
    subprocess.run([*cc, "-o", build / _name(0), f"-Wl,-soname,{_name(0)}"], check=True)
    subprocess.run([*cc, "-o", build / _name(1), f"-Wl,-soname,{_name(1)}", build / _name(0)], check=True)
    subprocess.run([*cc, "-o", build / absent, f"-Wl,-soname,{absent}"], check=True)
    template = (build / _name(1)).read_bytes()
    for old in (_name(0), _name(1)):
        assert template.count(b"\0" + old.encode() + b"\0") == 1, old
    lib = root / "lib"
    lib.mkdir()
    for i in range(count):  # same-length names patched in place: DT_NEEDED first, then DT_SONAME
        data = template.replace(b"\0" + _name(0).encode() + b"\0", b"\0libqNEED.so\0")
        data = data.replace(b"\0" + _name(1).encode() + b"\0", b"\0" + _name(i).encode() + b"\0")
        below = _name(i - 1) if i else absent
        (lib / _name(i)).write_bytes(data.replace(b"\0libqNEED.so\0", b"\0" + below.encode() + b"\0"))
    libs = [str(lib / _name(i)) for i in range(count)]
    link = ["gcc", "-o", root / "bin" / "prog", build / "main.c", "-Wl,--no-as-needed", *libs]
    subprocess.run([*link, f"-Wl,-rpath-link,{build}"], check=True)

    report, _ = scan_and_report(root, tmp_path / "graph.lbdb")
    (prog,) = [m for m in report["link_maps"] if m["executable"] == "/bin/prog"]
    assert prog["objects"][1 : count + 1] == libs_in_root(count)


def libs_in_root(count: int) -> list[str]:
    return [f"/lib/{_name(i)}" for i in range(count)]


def _os_walk_entries(top: str) -> list[tuple[str, bool, bool]]:
    """The walk as it was (os.walk, recursive): the reference for order and content."""
    out = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames.sort()
        rel = dirpath[len(top) :] or "/"
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            st = os.lstat(os.path.join(dirpath, name))
            out.append((posixpath.join(rel, name), stat.S_ISLNK(st.st_mode), stat.S_ISREG(st.st_mode)))
    return out


def test_walk_keeps_the_os_walk_order(tmp_path: Path) -> None:
    top = tmp_path / "tree"
    for d in ("a/b/c", "a/B", "a/b2", "z", "Z/y", "m"):
        (top / d).mkdir(parents=True)
    for f in ("a/b/c/f", "a/b/f", "a/f.so", "a/B/g", "z/h", "Z/y/i", "top", "m/j"):
        (top / f).write_bytes(b"x" * len(f))
    os.symlink("../z", top / "a" / "lz")  # a symlinked directory: listed, never entered
    os.symlink("nowhere", top / "a" / "dangling")
    os.symlink("/etc", top / "m" / "abs")
    os.mkfifo(top / "a" / "fifo")
    ours = [(e.path, e.is_symlink, e.is_regular) for e in RootFS(str(top)).walk([])]
    assert ours == _os_walk_entries(os.path.realpath(top))
