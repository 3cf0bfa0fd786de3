"""Hard links are one file: a file's other names are aliases of one module, as symlinks are.

* A root whose program is hard-linked 500 times and whose library is hard-linked where the
  loader finds it gives the same link maps, bindings and modules (with the same aliases) as the
  same root with symlinks in place of the hard links; and glibc's own loader, run as one of the
  other names, loads what linkgraph's link map of the program says.
* A 1.2 MB host program hard-linked 2,000 times is scanned in under 1 GiB and 30 s (each name
  was its own module with its own link map and bindings: 500 names took 3.7 GB).
"""

from __future__ import annotations

import os
from pathlib import Path

from conftest import scan_and_report
from support.fixture_root import Root, real_loader, two_library_root
from support.host_programs import copy_with_libraries
from support.measured import run_measured

GIB = 1 << 30
NAMES = [f"/usr/bin/prog-{i:04d}" for i in range(1, 501)]


def _root(path: Path, link: str) -> Root:
    """The two-library fixture with /usr/bin/prog under 500 more names and libalpha.so also at
    /lib (searched before /usr/lib), each name a hard link (``link="hard"``) or a symlink to
    the name a walk of the root meets first."""
    root = two_library_root(path)
    base = root.path

    def alias(first: str, other: str) -> None:
        dest = base / other.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if link == "hard":
            os.link(base / first.lstrip("/"), dest)
        else:
            os.symlink(first, dest)

    for name in NAMES:
        alias("/usr/bin/prog", name)
    # /lib comes before /usr in the walk: /lib/libalpha.so is the file's first name
    (base / "lib").mkdir(exist_ok=True)
    os.replace(base / "usr/lib/libalpha.so", base / "lib/libalpha.so")
    alias("/lib/libalpha.so", "/usr/lib/libalpha.so")
    return root


def _facts(report: dict) -> tuple:
    link_maps = sorted((lm["executable"], tuple(lm["objects"])) for lm in report["link_maps"])
    bindings = sorted((b["executable"], b["module"], b["symbol"], b["provider"]) for b in report["bindings"])
    modules = sorted((m["path"], tuple(sorted(m.get("aliases", [])))) for m in report["modules"])
    return link_maps, bindings, modules


def test_hard_links_are_aliases_as_symlinks_are(tmp_path: Path) -> None:
    hard_root = _root(tmp_path / "hard", "hard")
    soft_root = _root(tmp_path / "soft", "soft")
    hard = scan_and_report(hard_root.path, tmp_path / "hard.lbdb")
    soft = scan_and_report(soft_root.path, tmp_path / "soft.lbdb")
    hard_maps, hard_bindings, hard_modules = _facts(hard)
    assert (hard_maps, hard_bindings, hard_modules) == _facts(soft)
    prog = dict(hard_modules)["/usr/bin/prog"]
    assert list(prog) == NAMES  # one module, 500 aliases
    assert [e for e, _ in hard_maps] == ["/usr/bin/prog"]
    (objects,) = [o for e, o in hard_maps if e == "/usr/bin/prog"]
    assert "/lib/libalpha.so" in objects and "/usr/lib/libalpha.so" not in objects
    # the device's loader, started under another name, loads the same files (its own paths)
    trace = real_loader(hard_root, NAMES[-1])
    assert [os.path.basename(p) for p in trace.objects[1:]] == [os.path.basename(p) for p in objects[1:]]
    assert trace.objects[0] == NAMES[-1]


def test_two_thousand_hard_links_in_little_memory(tmp_path: Path) -> None:
    root = tmp_path / "root"
    copy_with_libraries("/usr/bin/bash", root)
    program = root / "usr/bin/bash"
    assert program.stat().st_size > 700_000
    for i in range(2000):
        os.link(program, root / f"usr/bin/bash-{i:04d}")
    run = run_measured("scan", str(root), "--db", str(tmp_path / "db.lbdb"), "-q")
    print(f"2,000 hard links: exit {run.rc}, peak {run.max_rss >> 20} MiB, {run.seconds:.1f} s")
    assert "Traceback" not in run.stderr
    assert run.rc in (0, 1) and run.max_rss < GIB and run.seconds < 30, run.stderr[-2000:]
