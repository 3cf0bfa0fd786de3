"""A program whose interpreter the root does not hold cannot be started on the device: linkgraph
says so (an ``interpreter-missing`` error) and invents no link map for it.

One root, built from the host's gcc and glibc, holds programs that differ only in their PT_INTERP:

* ``/usr/bin/prog``: ``/lib64/ld-linux-x86-64.so.2``, a link to the loader (the usual case);
* ``/usr/bin/vendor``: ``/opt/vendor/ld.so``, another link to it under another name;
* ``/usr/bin/orphan``: ``/opt/bitdefender/lib/ld.so``, absent from the root;
* ``/usr/bin/elsewhere``: ``/lib/ld-linux-x86-64.so.2``: the loader's own name, in a folder that
  does not hold it (the kernel opens the path, it searches nothing);
* ``/usr/bin/static``: no PT_INTERP at all (statically linked).

The judge is the host kernel: each program is started chrooted in the root, and ``execve`` fails
with ENOENT for exactly the programs whose interpreter is missing; the link maps of the others
are compared with the root's own ld.so in trace mode.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import fixture_root as fixtures
from support.fixture_root import MULTIARCH, Root, Scan, run_in_root, scan, two_library_root

LDSO = f"{MULTIARCH}/ld-linux-x86-64.so.2"
NEEDS = ["/usr/lib/libalpha.so", "/usr/lib/libbeta.so"]
INTERPRETERS = {
    "/usr/bin/vendor": "/opt/vendor/ld.so",
    "/usr/bin/orphan": "/opt/bitdefender/lib/ld.so",
    "/usr/bin/elsewhere": "/lib/ld-linux-x86-64.so.2",
}
STARTABLE = ["/usr/bin/prog", "/usr/bin/vendor"]
UNSTARTABLE = ["/usr/bin/orphan", "/usr/bin/elsewhere"]
STATIC = "/usr/bin/static"


def build(path: Path) -> Root:
    root = two_library_root(path)
    root.symlink("/opt/vendor/ld.so", LDSO)
    for program, interpreter in INTERPRETERS.items():
        root.exe(program, ["loader_rules/x_main.c"], needs=NEEDS, ldflags=[f"-Wl,--dynamic-linker={interpreter}"])
    root.host("/usr/bin").mkdir(parents=True, exist_ok=True)
    source = root.build / "static.c"
    source.write_text("int main(void) { return 0; }\n")
    built = subprocess.run(
        [fixtures.GCC, "-static", "-O0", str(source), "-o", str(root.host(STATIC))], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    return root


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> tuple[Root, Scan]:
    base = tmp_path_factory.mktemp("interp")
    root = build(base / "root")
    return root, scan(root, base / "db")


def kernel_starts(root: Root, program: str) -> bool:
    """Whether the host kernel starts ``program`` chrooted in the root (ENOENT: its interpreter is
    not there; the program itself is)."""
    assert root.host(program).is_file()
    try:
        run_in_root(root, [program], {"PATH": "/usr/bin:/bin"})  # its exit status is the program's own
    except FileNotFoundError:  # execve's ENOENT
        return False
    return True


def test_the_kernel_starts_exactly_the_programs_whose_interpreter_is_there(case: tuple[Root, Scan]) -> None:
    root, _ = case
    started = {p for p in [*STARTABLE, *UNSTARTABLE, STATIC] if kernel_starts(root, p)}
    assert started == {*STARTABLE, STATIC}


def test_interpreter_missing_is_an_error_on_exactly_those_programs(case: tuple[Root, Scan]) -> None:
    root, result = case
    missing = {p["path"] for p in result.problems() if p["code"] == "interpreter-missing"}
    refused = {p for p in [*STARTABLE, *UNSTARTABLE, STATIC] if not kernel_starts(root, p)}
    assert missing == refused == set(UNSTARTABLE)
    for p in result.problems():
        if p["code"] == "interpreter-missing":
            assert p["severity"] == "error" and INTERPRETERS[p["path"]] in p["message"], p
    errors = {(p["path"], p["code"]) for p in result.problems("error")}
    assert errors == {(p, "interpreter-missing") for p in UNSTARTABLE}
    assert result.rc == 1  # README: error-severity problems


def test_no_invented_link_map_for_a_program_that_cannot_start(case: tuple[Root, Scan]) -> None:
    _, result = case
    report = result.report
    for program in UNSTARTABLE:
        module = result.module(program)  # still inventoried, with what its file declares
        assert module["kind"] == "executable" and module["needed"] == ["libalpha.so", "libbeta.so", "libc.so.6"]
        assert all(m["executable"] != program for m in report["link_maps"])
        assert all(b["executable"] != program for b in report["bindings"])
        assert all(u["executable"] != program for u in report["unresolved"])
        assert all(d["from"] != program for d in report["dependencies"])
        assert all(p["path"] != program or p["code"] == "interpreter-missing" for p in report["problems"])


def test_programs_with_their_interpreter_match_the_real_loader(case: tuple[Root, Scan]) -> None:
    root, result = case
    for program in STARTABLE:
        fixtures.assert_matches_real_loader(result, fixtures.real_loader(root, program))
    assert result.module(STATIC)["static"] is True
    assert all(m["executable"] != STATIC for m in result.report["link_maps"])
