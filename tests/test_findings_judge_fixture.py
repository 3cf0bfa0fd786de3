"""The judge of licence finding (a) (tests/support/findings_judge.py) on a root built from C
(tests/fixtures/judge) whose answer is known by hand, then the product on the same root.

libgpl.so is GPL, every other module of the fixture proprietary (glibc keeps its own facts: LGPL):

* prog1 (not PIE) declares libmid, libwrap, libpeek, libcopy and libgpl, in that order, and reads
  libgpl's ``gpl_data`` through a copy relocation;
* libmid declares libgpl and calls ``gpl_fn``: used;
* libpeek calls ``gpl_fn`` without declaring libgpl: hidden in prog1, which loads libgpl; prog3
  loads libpeek without libgpl, so no path of prog3 reaches libgpl;
* libwrap declares libown, which defines ``shared_fn``; in prog1 libgpl (loaded before libown)
  defines it too and libwrap's call binds there: interposed, no hop;
* libcopy reads ``gpl_data`` without declaring libgpl: in prog1 it reads prog1's copy (a copy
  binding, no hop), in prog2 (which has no copy) it binds to libgpl: hidden.

Versions (glibc's ``check_match``): prog4 declares libvdef (GPL), libvu2 and libvu3, in that order;
libvdef's ``vfn`` comes first in its process's lookup scope. libvu2 and libvu3 declare libv2 and libv3
and call ``vfn`` without a version (linked against a stand-in without versions), so both calls bind
to libvdef. libv2 defines ``vfn`` only at its first version, hidden (index 2): glibc would take it
for an unversioned reference, so libvu2's binding is interposed. libv3 defines it only at its second
version, hidden (index 3): glibc would not, so libvu3 needs libvdef: hidden, and prog4 reaches it
through libvu3. (libvdef does not load libvu3: were the definition prog4's own, which loads libvu3,
the call would be an upcall, no use.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import linkgraph
from support.findings_judge import Judge, differences, query_rows, rows_of
from support.fixture_root import Root, scan

J = "judge/"
GPL, MID, PEEK, OWN, WRAP, COPY = (f"/lib/lib{n}.so" for n in ("gpl", "mid", "peek", "own", "wrap", "copy"))
PROG1, PROG2, PROG3, PROG4 = "/usr/bin/prog1", "/usr/bin/prog2", "/usr/bin/prog3", "/usr/bin/prog4"
V2, V3, VU2, VU3 = "/lib/libv2.so", "/lib/libv3.so", "/lib/libvu2.so", "/lib/libvu3.so"
VDEF = "/lib/libvdef.so"
UNDEFS = ["-Wl,-z,undefs"]
LOOSE = ["-Wl,--allow-shlib-undefined"]
OVERRIDES = f"""\
{GPL}: GPL-2.0-only
{VDEF}: GPL-2.0-only
/lib/lib*.so: LicenseRef-Proprietary
/usr/bin/*: LicenseRef-Proprietary
"""

EXPECTED = {
    (PROG1, GPL, (PROG1, GPL), ("used",), (PROG1,)),
    (PROG1, GPL, (PROG1, MID, GPL), ("used", "used"), (PROG1,)),
    (PROG1, GPL, (PROG1, PEEK, GPL), ("used", "hidden"), (PROG1,)),
    (MID, GPL, (MID, GPL), ("used",), (PROG1,)),
    (PEEK, GPL, (PEEK, GPL), ("hidden",), (PROG1,)),
    (COPY, GPL, (COPY, GPL), ("hidden",), (PROG2,)),
    (PROG2, GPL, (PROG2, COPY, GPL), ("used", "hidden"), (PROG2,)),
    (VU3, VDEF, (VU3, VDEF), ("hidden",), (PROG4,)),
    (PROG4, VDEF, (PROG4, VU3, VDEF), ("used", "hidden"), (PROG4,)),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Root, Path, dict]:
    base = tmp_path_factory.mktemp("judge-fixture")
    root = Root(base / "root")
    root.install_glibc()
    root.lib(GPL, [J + "gpl.c"])
    root.lib(MID, [J + "mid.c"], needs=[GPL])
    root.lib(PEEK, [J + "peek.c"], ldflags=UNDEFS)
    root.lib(OWN, [J + "own.c"])
    root.lib(WRAP, [J + "wrap.c"], needs=[OWN])
    root.lib(COPY, [J + "copy.c"], ldflags=UNDEFS)
    root.exe(PROG1, [J + "prog1.c"], needs=[MID, WRAP, PEEK, COPY, GPL], pie=False, ldflags=LOOSE)
    root.exe(PROG2, [J + "prog2.c"], needs=[COPY, GPL], ldflags=LOOSE)
    root.exe(PROG3, [J + "prog3.c"], needs=[PEEK], ldflags=LOOSE)
    for lib, user, number in ((V2, VU2, "2"), (V3, VU3, "3")):
        root.lib(lib, [J + f"v{number}.c"], version_script=J + f"v{number}.map")
        stand_in = root.stub(f"libv{number}.so", [J + "vstub.c"])
        root.lib(user, [J + "vu.c"], needs=[stand_in], cflags=[f"-DVU_FN=vu{number}_fn"])
    root.lib(VDEF, [J + "vdef.c"])
    root.exe(PROG4, [J + "prog4.c"], needs=[VDEF, VU2, VU3])
    overrides = base / "licences.yaml"
    overrides.write_text(OVERRIDES)
    result = scan(root, base / "scan", extra=["--licences", str(overrides)])
    return root, base / "scan" / "fixture.lbdb", result.report


def test_the_judge_gives_the_answer_known_by_hand(built: tuple[Root, Path, dict]) -> None:
    root, _db, report = built
    judge = Judge(report, root.path)
    assert judge.rows() == EXPECTED
    assert judge.counts["interposed bindings"] >= 1 and judge.counts["copy bindings"] >= 1


def test_the_query_and_the_report_give_the_judges_rows(built: tuple[Root, Path, dict]) -> None:
    _root, db, report = built
    proc = linkgraph("query", "licence-gpl-used-by", "--db", str(db), "--json")
    found = differences("fixture", EXPECTED, query_rows(json.loads(proc.stdout)), "the query on LadybugDB")
    if found:
        pytest.fail(found)
    if "licence_findings" not in report:
        pytest.fail("the JSON report has no licence_findings")
    found = differences("fixture", EXPECTED, rows_of(report["licence_findings"]["gpl_used_by"]), "the JSON report")
    if found:
        pytest.fail(found)
