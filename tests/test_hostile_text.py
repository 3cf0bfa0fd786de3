"""Hostile text in firmware: licence strings, package data and dlopen strings whose reading was
quadratic, cubic or exponential in their length (issue 29's text rows).

Each case builds its root from scratch at the size that killed or slowed a scan, scans it with
the real ``linkgraph scan`` (tests/support/measured.py) into a database that already holds
another small firmware, and checks: exit 0 or 1, no traceback, under 30 s and 1 GiB, the
problem record where a limit applies, the answer on the hostile root where one can be told, and
the other firmware's modules and bindings unchanged.

* a 120,000-character word as an opkg ``License:`` and as a kernel module's ``license=``, and
  "MIT MIT ... MIT" 3,000 times (``licences/spdx``: the or-later regex was quadratic, the search
  for known names cubic in words);
* an opkg status with 500,000 continuation lines, 8 MB (``licences/control``: each continuation
  line copied the field so far);
* a program with 60,000 printf patterns naming libraries beside 3,000 files in /lib, and a
  program whose pattern ``/%s/%s/%s/%s/%s/%s/%s/%sabc.so`` meets a library 120 folders deep
  (``dlopen/candidates``: folders listed afresh per pattern, Python's ``re`` backtracking).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import linkgraph
from linkgraph.loader.licences.spdx import MAX_TEXT
from support.fixture_root import Root, two_library_root
from support.measured import run_measured

GIB = 1 << 30
LIMIT_SECONDS = 30
PROG = "/usr/bin/prog"
ALPHA = "/usr/lib/libalpha.so"
OPKG = "/usr/lib/opkg"
WORD = "A" * 120_000
MITS = " ".join(["MIT"] * 3_000)


def report(db: Path, name: str) -> dict:
    return json.loads(linkgraph("report", "--db", str(db), "--firmware", name, "--format", "json", "-q").stdout)


def graph(db: Path, name: str) -> tuple[set, set]:
    """A firmware's modules and bindings, as the report gives them."""
    got = report(db, name)
    modules = {(m["path"], m["kind"], m["licence"]) for m in got["modules"]}
    return modules, {(b["module"], b["symbol"], b["version"], b["provider"]) for b in got["bindings"]}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database holding another small firmware (``other``)."""
    other = two_library_root(tmp_path / "other", program="/usr/bin/other")
    path = tmp_path / "db.lbdb"
    linkgraph("scan", str(other.path), "--db", str(path), "--name", "other", "-q")
    return path


def hostile_scan(root: Path, db: Path) -> dict:
    """Scan ``root`` as ``hostile`` into ``db`` (measured) and return its report; ``other`` stays as it was."""
    before = graph(db, "other")
    run = run_measured("scan", str(root), "--db", str(db), "--name", "hostile", "-q")
    print(f"{root.name}: exit {run.rc}, peak {run.max_rss >> 20} MiB, {run.seconds:.1f} s")
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr.lower(), run.stderr[-2000:]
    assert run.rc in (0, 1), run.stderr[-2000:]
    assert run.seconds < LIMIT_SECONDS and run.max_rss < GIB
    assert graph(db, "other") == before
    return report(db, "hostile")


def licences(got: dict) -> dict[str, str | None]:
    return {m["path"]: m["licence"] for m in got["modules"]}


def codes(got: dict) -> set[tuple[str, str]]:
    return {(p["path"], p["code"]) for p in got["problems"]}


def opkg_root(path: Path, status: str) -> Root:
    """The two-library root with an opkg database: ``status`` and each package's file list."""
    root = two_library_root(path)
    root.write(f"{OPKG}/status", status)
    root.write(f"{OPKG}/info/prog.list", f"{PROG}\n")
    root.write(f"{OPKG}/info/alpha.list", f"{ALPHA}\n")
    return root


def paragraph(name: str, *fields: str) -> str:
    return "\n".join([f"Package: {name}", "Version: 1", "Status: install ok installed", *fields]) + "\n\n"


# --------------------------------------------------------------------------- licence strings


def test_licence_strings_of_a_long_word_and_many_names(tmp_path: Path, db: Path) -> None:
    status = paragraph("prog", f"License: {WORD}") + paragraph("alpha", f"License: {MITS}")
    root = opkg_root(tmp_path / "licence-strings", status)
    got = hostile_scan(root.path, db)
    limit = [p for p in got["problems"] if (p["path"], p["code"]) == (f"{OPKG}/status", "licence-data")]
    assert any(f"more than {MAX_TEXT}" in p["message"] for p in limit)  # the word is not read
    assert licences(got)[PROG] is None
    alpha = licences(got)[ALPHA]  # 3,000 times MIT, all of which apply
    assert alpha is not None and set(alpha.split(" AND ")) == {"MIT"}


MODULE = """\
int answer(void) {{ return 42; }}
static const char licence[] __attribute__((section(".modinfo"), used)) = "license={licence}";
"""


def test_kernel_module_licence_of_a_long_word(tmp_path: Path, db: Path) -> None:
    root = two_library_root(tmp_path / "module-licence")
    folder = root.host("/lib/modules/5.10.0/kernel")
    folder.mkdir(parents=True)
    for name, licence in (("word", WORD), ("mits", MITS)):
        source = tmp_path / f"{name}.c"
        source.write_text(MODULE.format(licence=licence))
        subprocess.run(["gcc", "-c", "-O1", "-o", str(folder / f"{name}.ko"), str(source)], check=True)
    got = hostile_scan(root.path, db)
    found = licences(got)
    assert found["/lib/modules/5.10.0/kernel/word.ko"] is None
    assert ("/lib/modules/5.10.0/kernel/word.ko", "licence-data") in codes(got)
    mits = found["/lib/modules/5.10.0/kernel/mits.ko"]
    assert mits is not None and set(mits.split(" AND ")) == {"MIT"}


# --------------------------------------------------------------------------- package data


def test_opkg_status_of_half_a_million_continuation_lines(tmp_path: Path, db: Path) -> None:
    description = "Description: a package\n" + " more\n" * 500_000
    status = paragraph("prog", "License: GPL-2.0-only", description.rstrip("\n")) + paragraph("alpha", "License: MIT")
    root = opkg_root(tmp_path / "continuations", status)
    assert root.host(f"{OPKG}/status").stat().st_size > 3_000_000
    got = hostile_scan(root.path, db)
    assert (licences(got)[PROG], licences(got)[ALPHA]) == ("GPL-2.0-only", "MIT")


# --------------------------------------------------------------------------- dlopen strings

PATTERNS = 60_000
FILES = 3_000


def dlopen_program(root: Root, tmp_path: Path, strings: list[str]) -> None:
    """``PROG`` calling dlopen on one of ``strings`` (all kept in its read-only data)."""
    source = tmp_path / "dl.c"
    table = ",\n".join(json.dumps(s) for s in strings)
    source.write_text(
        "#include <dlfcn.h>\n"
        f"static const char *const names[] = {{\n{table}\n}};\n"
        "int main(int argc, char **argv) { (void)argv; return dlopen(names[argc], RTLD_NOW) != 0; }\n"
    )
    root.exe(PROG, [str(source)], needs=[ALPHA, "/usr/lib/libbeta.so"])


def test_sixty_thousand_patterns_beside_three_thousand_files(tmp_path: Path, db: Path) -> None:
    root = two_library_root(tmp_path / "patterns")
    dlopen_program(root, tmp_path, [f"libplug%s{i:05d}.so" for i in range(PATTERNS)] + ["libbeta.so"])
    lib = root.host("/lib")
    lib.mkdir(exist_ok=True)
    for i in range(FILES):
        (lib / f"libplugx{i:05d}.so").write_bytes(b"not a library")
    shutil.copy(root.host("/usr/lib/libbeta.so"), lib / "libplugin00007.so")
    got = hostile_scan(root.path, db)
    assert (PROG, "dlopen-capped") in codes(got)
    targets = {(e["from"], e["to"]) for e in got["dlopen"]}
    assert (PROG, "/lib/libplugin00007.so") in targets  # a pattern among the first 256 matched it


def test_pattern_of_eight_conversions_against_a_deep_library(tmp_path: Path, db: Path) -> None:
    root = two_library_root(tmp_path / "deep")
    dlopen_program(root, tmp_path, ["/%s/%s/%s/%s/%s/%s/%s/%sabc.so"])
    deep = root.host("/" + "/".join(f"d{i}" for i in range(120)))
    deep.mkdir(parents=True)
    shutil.copy(root.host("/usr/lib/libbeta.so"), deep / "libxabd.so")  # no match, after every cut
    near = root.host("/a/b/c/d/e/f/g")
    near.mkdir(parents=True)
    shutil.copy(root.host("/usr/lib/libbeta.so"), near / "hxabc.so")  # a match
    got = hostile_scan(root.path, db)
    targets = {e["to"] for e in got["dlopen"] if e["from"] == PROG}
    assert "/a/b/c/d/e/f/g/hxabc.so" in targets
    assert not any(t.endswith("libxabd.so") for t in targets)
