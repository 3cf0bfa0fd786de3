"""Hardening facts (loader/elf/hardening.py) against real judges.

* gcc-built programs compiled here with and without each hardening flag: the facts equal the flags
  used, pax-utils' ``scanelf`` and Debian's ``hardening-check``;
* every module (programs and libraries) of the host's ``/usr/bin`` root and of the Debian foreign
  roots against ``scanelf``, and every program of them against ``hardening-check``: each fact
  equal, or the difference explained (``support.hardening_judge``). ``hardening-check`` runs
  with an ``objdump`` that prints nothing: it disassembles every file only for its stack-clash
  and CET checks (minutes for a hundred big programs), which linkgraph does not make.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support import debian_roots, hostroot
from support.hardening_judge import (
    Agreement,
    checked_names,
    compare,
    compare_hardening_check,
    hardening_check,
    scanelf,
)

SOURCE = r"""
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char buf[32];
    strcpy(buf, argv[0]);
    printf("%s %d\n", buf, argc);
    return 0;
}
"""
CANARY = {True: ["-fstack-protector-strong"], False: ["-fno-stack-protector"]}
FORTIFY = {True: ["-D_FORTIFY_SOURCE=2"], False: ["-U_FORTIFY_SOURCE"]}
RELRO = {"full": ["-Wl,-z,relro,-z,now"], "partial": ["-Wl,-z,relro,-z,lazy"], "none": ["-Wl,-z,norelro"]}
PIE = {True: ["-fPIE", "-pie"], False: ["-fno-PIE", "-no-pie"]}
NX = {True: ["-Wl,-z,noexecstack"], False: ["-Wl,-z,execstack"]}
TEXTREL_ASM = '.text\n.globl f\nf: ret\n.globl p\np: .quad f\n.section .note.GNU-stack,"",@progbits\n'


def _gcc(*argv: str) -> None:
    assert shutil.which("gcc"), "gcc is needed to build the fixtures"
    subprocess.run(["gcc", *argv], check=True, capture_output=True)


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]], dict]:
    """A root of programs built with each combination of the flags: (root, flags per path, report)."""
    base = tmp_path_factory.mktemp("hardening")
    root, src = base / "root", base / "t.c"
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/lib").mkdir(parents=True)
    src.write_text(SOURCE)
    flags: dict[str, dict[str, Any]] = {}
    for canary, fortify, relro, pie, nx in itertools.product(CANARY, FORTIFY, RELRO, PIE, NX):
        name = f"/usr/bin/c{int(canary)}f{int(fortify)}r{relro}p{int(pie)}n{int(nx)}"
        argv = ["-O2", *CANARY[canary], *FORTIFY[fortify], *RELRO[relro], *PIE[pie], *NX[nx]]
        _gcc(*argv, str(src), "-o", str(root / name.lstrip("/")))
        flags[name] = {"stack_protector": canary, "fortify": fortify, "relro": relro, "pie": pie, "nx": nx}
    for tag, option in (("rpath", "--disable-new-dtags"), ("runpath", "--enable-new-dtags")):
        name = f"/usr/bin/{tag}"
        _gcc(str(src), "-o", str(root / name.lstrip("/")), f"-Wl,-rpath,/opt/lib:/tmp,{option}")
        flags[name] = {tag: "/opt/lib:/tmp", "risky_paths": ["rpath-world-writable"]}
    asm = base / "textrel.s"
    asm.write_text(TEXTREL_ASM)
    _gcc("-shared", str(asm), "-o", str(root / "usr/lib/libtextrel.so"), "-Wl,-z,notext")
    flags["/usr/lib/libtextrel.so"] = {"textrel": True, "pie": False}
    return root, flags, _scan(root, base / "graph.lbdb")


def _scan(root: Path, db: Path) -> dict:
    """The JSON report of a scan of ``root`` (exit 1: some files had problems, e.g. no C library)."""
    assert linkgraph("scan", str(root), "--db", str(db), "--quiet", check=False).returncode in (0, 1)
    return json.loads(linkgraph("report", "--db", str(db), "--format", "json").stdout)


def _hardening(report: dict) -> dict[str, dict[str, Any]]:
    return {m["path"]: m["hardening"] for m in report["modules"] if m["hardening"] is not None}


def test_fixtures_facts_are_the_flags_used(fixtures: tuple[Path, dict[str, dict[str, Any]], dict]) -> None:
    _root, flags, report = fixtures
    found = _hardening(report)
    assert set(found) == set(flags)
    for path, expected in flags.items():
        for fact, value in expected.items():
            got = found[path][fact]
            if fact == "fortify":
                assert got == value and (value == ("strcpy" in found[path]["fortified"])), path
            else:
                assert got == value, f"{path}: {fact} {got!r}, built with {value!r}"
    assert found["/usr/bin/rpath"]["runpath"] is None and found["/usr/bin/runpath"]["rpath"] is None
    assert found["/usr/lib/libtextrel.so"]["textrel"] and not found["/usr/bin/rpath"]["textrel"]


def test_fixtures_against_scanelf(fixtures: tuple[Path, dict[str, dict[str, Any]], dict]) -> None:
    root, _flags, report = fixtures
    result = _against_scanelf(root, report)
    assert not result.unexplained and not result.explained, result.unexplained
    assert result.agree["relro"] == len(_hardening(report))


def test_fixtures_against_hardening_check(fixtures: tuple[Path, dict[str, dict[str, Any]], dict]) -> None:
    """hardening-check's PIE, stack protector, FORTIFY, RELRO and immediate binding lines, per program.
    Its FORTIFY is "yes" when a listed ``__NAME_chk`` is referenced; a program built without
    FORTIFY says "no" (an unprotected strcpy/printf is referenced)."""
    root, _flags, report = fixtures
    found = _hardening(report)
    programs = {p: h for p, h in found.items() if p.startswith("/usr/bin/")}
    verdicts = hardening_check(root / p.lstrip("/") for p in programs)
    assert len(verdicts) == len(programs)
    for path, ours in programs.items():
        judged = verdicts[root / path.lstrip("/")]
        assert judged["Position Independent Executable"].startswith("yes") == ours["pie"], path
        assert judged["Stack protected"].startswith("yes") == ours["stack_protector"], path
        assert judged["Fortify Source functions"].startswith("yes") == ours["fortify"], path
        assert judged["Read-only relocations"].startswith("yes") == (ours["relro"] != "none"), path
        # the fixtures bind now only together with RELRO (-z relro -z now)
        assert judged["Immediate binding"].startswith("yes") == (ours["relro"] == "full"), path


def _against_scanelf(root: Path, report: dict) -> Agreement:
    result = Agreement()
    modules = {m["path"]: m for m in report["modules"] if m["hardening"] is not None}
    verdicts = scanelf(root / p.lstrip("/") for p in modules)
    for path, module in modules.items():
        verdict = verdicts.get(root / path.lstrip("/"))
        if verdict is None:
            result.unexplained.append(f"{path}: scanelf does not list it")
            continue
        static_pie = bool(module["static"]) and module["interpreter"] is None
        compare({**module["hardening"], "static_pie": static_pie}, verdict, module["machine"], path, result)
    return result


ROOTS = ["host", *debian_roots.ARCHES]


@pytest.mark.parametrize("name", ROOTS)
def test_roots_against_the_judges(
    name: str, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every program and library of the root against scanelf, every program against hardening-check:
    each fact equals the judge's or the difference is explained."""
    root = hostroot.cached_host_root() if name == "host" else debian_roots.cached_debian_root(name)
    base = tmp_path_factory.mktemp(f"hardening-{name}")
    report = _scan(root, base / "graph.lbdb")
    result = _against_scanelf(root, report)
    programs = {
        m["path"]: {**m["hardening"], "static_pie": bool(m["static"]) and m["interpreter"] is None}
        for m in report["modules"]
        if m["kind"] == "executable"
    }
    checked = _against_hardening_check(root, programs, base)
    with capsys.disabled():
        for judge, found in (("scanelf", result), ("hardening-check", checked)):
            explained = {fact: len(items) for fact, items in found.explained.items()}
            print(
                f"\nhardening vs {judge}, {name} ({len(programs)} programs): {found.figures()}; explained {explained}"
            )
    assert not result.unexplained, result.unexplained[:20]
    assert not checked.unexplained, checked.unexplained[:20]
    assert result.judged["relro"] >= len(programs) > 0 and checked.judged["relro"] == len(programs)


def _against_hardening_check(root: Path, programs: dict[str, dict[str, Any]], base: Path) -> Agreement:
    """Every program against hardening-check (with its disassembly left out: see ``hardening_check``)."""
    result = Agreement()
    answers = hardening_check((root / p.lstrip("/") for p in programs), no_disassembly=base)
    names = checked_names()
    for path, ours in programs.items():
        found = answers.get(root / path.lstrip("/"))
        if found is None:
            result.unexplained.append(f"{path}: hardening-check does not answer")
        else:
            compare_hardening_check(ours, found, names, path, result)
    return result
