"""File counts, root detection, Ctrl-C and internal-error traces (issue 29).

The archive cases build their input here, at the sizes the issue names, scan it with the
installed ``linkgraph`` into a database that already holds another firmware, and measure that
process alone (tests/support/measured.py): exit 0 or 1, no traceback, under 30 s and 1 GiB, the
problem record where a limit was reached, and the other firmware's graph unchanged.
"""

from __future__ import annotations

import io
import json
import lzma
import os
import select
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import linkgraph, linkgraph_cmd
from linkgraph.loader.store import open_store
from linkgraph.loader.unpack.roots import find_roots
from linkgraph.loader.unpack.safe_tree import MAX_ENTRIES
from linkgraph.viewer import create_app
from support.fixture_root import two_library_root
from support.measured import run_measured

GIB = 1 << 30
OTHER = "other"


def _graph(db: Path, firmware: str) -> tuple[set, set]:
    out = linkgraph("report", "--db", str(db), "--format", "json", "--firmware", firmware, "-q").stdout
    rep = json.loads(out)
    modules = {m["path"] for m in rep["modules"]}
    bindings = {(b["module"], b["symbol"], b["version"], b["provider"]) for b in rep["bindings"]}
    return modules, bindings


def db_with_other(tmp_path: Path) -> tuple[Path, tuple[set, set]]:
    """A database holding a small firmware ``other``, and its modules and bindings."""
    root = two_library_root(tmp_path / OTHER, program="/usr/bin/otherprog")
    db = tmp_path / "graph.lbdb"
    linkgraph("scan", str(root.path), "--db", str(db), "-q", check=False)
    before = _graph(db, OTHER)
    assert "/usr/bin/otherprog" in before[0] and before[1]
    return db, before


def _root_members(root: Path, skip: tuple[str, ...] = ()) -> bytes:
    """The tar members of the folder ``root`` (names ``./...``), without the end-of-archive blocks."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        tar.add(root, arcname=".", filter=lambda m: None if m.name.startswith(skip) else m)
        end = tar.offset
    return buf.getvalue()[:end]


def _file_headers(folder: str, count: int, size: int = 0) -> Iterator[bytes]:
    """Tar members ``folder/0000000`` ... of ``size`` bytes each ("x" * size), in runs of 20,000:
    one header made by tarfile, the others from it with the name's digits and the checksum set."""
    info = tarfile.TarInfo(f"{folder}/0000000")
    info.size, info.mode, info.mtime = size, 0o644, 0
    template = bytearray(info.tobuf(tarfile.USTAR_FORMAT))
    start = template.index(b"0000000")
    template[148:156] = b" " * 8
    base = sum(template) - 7 * ord("0")
    head, middle, tail = bytes(template[:start]), bytes(template[start + 7 : 148]), bytes(template[156:])
    data = b"x" * size + b"\0" * (-size % 512)
    run: list[bytes] = []
    for i in range(count):
        digits = b"%07d" % i
        run.append(head + digits + middle + b"%06o\0 " % (base + sum(digits)) + tail + data)
        if len(run) == 20_000:
            yield b"".join(run)
            run = []
    yield b"".join(run)


def write_tar_xz(path: Path, parts: Iterator[bytes]) -> None:
    compressor = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
    with open(path, "wb") as out:
        for part in parts:
            out.write(compressor.compress(part))
        out.write(compressor.compress(b"\0" * 1024))
        out.write(compressor.flush())


def firmware_names(db: Path) -> dict[str, str]:
    """Name -> id of every firmware in the database."""
    store = open_store(db=str(db), read_only=True)
    try:
        return {row["name"]: row["id"] for row in store.query("firmware")}
    finally:
        store.close()


def scan_measured(target: Path, db: Path) -> list[dict]:
    """Scan ``target`` measured; the problems of the firmware it added (the only one besides ``other``)."""
    run = run_measured("scan", str(target), "--db", str(db), "-q")
    print(f"{target.name}: exit {run.rc}, peak {run.max_rss >> 20} MiB, {run.seconds:.1f} s")
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert run.rc in (0, 1), run.stderr
    assert run.max_rss < GIB and run.seconds < 30
    added = [fw for name, fw in firmware_names(db).items() if name != OTHER]
    assert len(added) == 1, firmware_names(db)
    out = linkgraph("report", "--db", str(db), "--format", "json", "--firmware", added[0], "-q").stdout
    return json.loads(out)["problems"]


def test_a_million_empty_files_in_a_tar_xz(tmp_path: Path) -> None:
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    target = tmp_path / "million.tar.xz"
    write_tar_xz(target, iter([_root_members(root.path), *_file_headers("usr/share/junk", 1_000_000)]))
    print(f"{target.name}: {target.stat().st_size >> 10} KiB")
    problems = scan_measured(target, db)
    limits = [p for p in problems if p["code"] == "too-many-entries"]
    assert len(limits) == 1 and limits[0]["path"].startswith("million.tar.xz/"), limits
    assert f"{MAX_ENTRIES:,}" in limits[0]["message"]
    assert _graph(db, OTHER) == before


def test_a_hundred_thousand_small_files_beside_the_root(tmp_path: Path) -> None:
    """Loose files outside the root are searched for chunks, not each handed to unblob (10 ms each)."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    target = tmp_path / "loose.tar.xz"
    members = [_root_members(root.path, skip=("./usr/share",)), *_file_headers("loose", 100_000, size=24)]
    write_tar_xz(target, iter(members))
    problems = scan_measured(target, db)
    assert [p["code"] for p in problems if p["code"] == "too-many-entries"] == ["too-many-entries"]
    assert not [p for p in problems if p["code"] == "unpack" and "/loose/" in p["path"]]
    assert _graph(db, OTHER) == before


def test_junk_files_do_not_hide_a_root(tmp_path: Path) -> None:
    """A root without /etc, its ELF files in lib/ and usr/, and 60,000 empty files in
    usr/share/junk, which a walk in name order meets first."""
    top = tmp_path / "tree"
    root = two_library_root(top / "rootfs")
    for etc in sorted(root.path.glob("etc"), reverse=True):
        subprocess.run(["rm", "-rf", str(etc)], check=True)
    junk = root.path / "usr/share/junk"
    junk.mkdir(parents=True)
    fd = os.open(junk, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(60_000):
            os.close(os.open(f"{i:07d}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    assert not (root.path / "etc").exists()
    assert find_roots(top, filesystem=False) == [root.path]


def _read_until(fd: int, wanted: bytes, seconds: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


def test_ctrl_c_exits_130_and_leaves_the_graph(tmp_path: Path) -> None:
    """SIGINT to a real ``linkgraph scan`` once it is unpacking (its progress bar says so on its
    terminal): exit 130, one line, no traceback, the work folder removed, the other graph intact."""
    db, before = db_with_other(tmp_path)
    root = two_library_root(tmp_path / "src")
    target = tmp_path / "million.tar.xz"
    write_tar_xz(target, iter([_root_members(root.path), *_file_headers("usr/share/junk", 1_000_000)]))
    temp = tmp_path / "temp"
    temp.mkdir()
    main, terminal = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    proc = subprocess.Popen(
        [*linkgraph_cmd(), "scan", str(target), "--db", str(db)],
        stdout=terminal,
        stderr=terminal,
        env={**env, "TMPDIR": str(temp), "COLUMNS": "120"},
    )
    os.close(terminal)
    try:
        seen = _read_until(main, b"unpack", 60)
        assert b"unpack" in seen, seen
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        seen += _read_until(main, b"\0", 2)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    text = seen.decode(errors="replace")
    assert rc == 130, text
    assert "Traceback" not in text and "Aborted!" not in text and "linkgraph: interrupted (Ctrl-C)" in text
    assert list(temp.iterdir()) == []  # the work folder went with the scan
    assert _graph(db, OTHER) == before
    assert list(firmware_names(db)) == [OTHER]


TRACE_CHILD = """
import sys
import click
from linkgraph.cli.main import main, run
from linkgraph.cli.options import store_options

@main.command("fail-here")
@store_options(None)
def fail_here(open_, where):
    {}["missing"]  # a bug: KeyError

sys.argv = ["linkgraph", "fail-here", "--db", sys.argv[1]]
run()
"""


def test_internal_error_trace_goes_next_to_the_database(tmp_path: Path) -> None:
    """``run()``, the installed command's entry, meets a real exception in a command given
    ``--db``: exit 3, one line naming the trace file, and that file in the database's folder,
    not in the system's temporary folder (TMPDIR points at an empty folder to show it)."""
    db_folder, temp = tmp_path / "dbs", tmp_path / "temp"
    db_folder.mkdir()
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    child = subprocess.run(
        [sys.executable, "-c", TRACE_CHILD, str(db_folder / "fw.lbdb")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert child.returncode == 3, child.stderr
    assert "Traceback" not in child.stderr and child.stderr.count("\n") == 1, child.stderr
    traces = list(db_folder.glob("linkgraph-internal-error-*.txt"))
    assert len(traces) == 1 and str(traces[0]) in child.stderr
    text = traces[0].read_text()
    assert "Traceback" in text and "KeyError: 'missing'" in text and "fail-here" in text
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("opened", [False, True], ids=["db-path", "open-store-as-serve-gives-it"])
def test_viewer_shows_the_database_a_scan_replaced(tmp_path: Path, opened: bool) -> None:
    """A viewer started before a scan replaced its database answers from the new one at the next
    request (docs/viewer.md): the firmware list grows, and the new firmware's files are served."""
    db = tmp_path / "graph.lbdb"
    linkgraph("scan", str(two_library_root(tmp_path / "first").path), "--db", str(db), "-q", check=False)
    config: dict = {"LINKGRAPH_DB": str(db), "TESTING": True}
    if opened:  # what ``linkgraph serve`` hands the app
        config["LINKGRAPH_STORE"] = open_store(db=str(db), read_only=True)
    client = create_app(config).test_client()
    assert [f["name"] for f in client.get("/api/firmware").get_json()] == ["first"]
    linkgraph("scan", str(two_library_root(tmp_path / "second", program="/usr/bin/two").path), "--db", str(db), "-q")
    listing = client.get("/api/firmware").get_json()
    assert sorted(f["name"] for f in listing) == ["first", "second"]
    second = next(f["id"] for f in listing if f["name"] == "second")
    answer = client.get(f"/api/firmware/{second}/file", query_string={"path": "/usr/bin/two"})
    assert answer.status_code == 200, answer.get_json()
