"""Hostile root filesystems: the scan finishes, records every problem, and reads nothing outside.

One root holds, next to a program that needs most of them:

* ``/lib/libtrunc.so.1``: a real shared library cut in half (a valid copy is in /usr/lib);
* ``/lib/librandom.so.1``: random bytes behind an ELF magic;
* ``/lib/libhdr.so.1``: an ELF header whose table offsets and counts point far past the end;
* ``/lib/libloop.so.1 -> libloop2.so.1 -> libloop.so.1``: a symlink loop;
* ``/lib/evil.so -> ../../../../etc/passwd`` and ``/lib/shadow.so -> /etc/shadow``: links that
  would leave the root on the host; ``/lib/libsecret.so.1`` (relative, climbing) and
  ``/lib/libsecret2.so.1`` (absolute host path) point at a real library in a sibling folder
  *outside* the root: followed on the host they would make it a module;
* ``/lib/libfifo.so.1``: a FIFO (an open() for reading would block the scan forever);
* ``/lib/libdangle.so.1 -> libnothere.so.1``: a dangling link the program needs;
* ``/lib/lib\\xff\\xfe.so``: a real library under a name that is not UTF-8;
* ``/lib/libzero.so.1``: an empty file;
* ``/lib/<img src=x onerror=alert(1)>.so``: a real library whose file name, soname and one
  exported symbol are markup;
* the host's loader at the program's ``PT_INTERP`` (without it the program could not start and
  would get no link map).

Exit codes (the CLI contract): 0 = clean, 1 = finished with error-severity problems,
2 = could not run.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph_cmd
from support.fixture_root import install_host_loader

SCAN_TIMEOUT = 300
MARKUP = "<img src=x onerror=alert(1)>.so"
MARKUP_SYMBOL = "<script>alert(1)</script>"
SECRET_SYMBOL = "host_secret_marker_fn"
BAD_NAME = b"lib\xff\xfe.so"

LIB_C = """
static const char padding[16384] = {1};
const char *good_fn(void) { return padding + 1; }
int shared_fn(int x) { return x + 1; }
"""
SECRET_C = f"""
int {SECRET_SYMBOL}(void) {{ return 1337; }}
"""
MARKUP_C = """
int markup_fn(void) { return 42; }
"""
VICTIM_C = """
const char *good_fn(void);
int markup_fn(void);
int main(void) { return markup_fn() + (good_fn()[0] == 'x'); }
"""
# What the program needs, in order; each name is a case above.
VICTIM_NEEDED = (
    "libtrunc.so.1",
    "librandom.so.1",
    "libhdr.so.1",
    "libloop.so.1",
    "libsecret.so.1",
    "libsecret2.so.1",
    "libfifo.so.1",
    "libdangle.so.1",
    "libzero.so.1",
    MARKUP,
)


def run(cmd: Sequence[str], *, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, f"{cmd!r} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def run_bounded(cmd: Sequence[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run ``cmd`` in its own process group; on timeout kill the whole group and fail."""
    proc = subprocess.Popen(
        list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=SCAN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(
            f"{cmd[1:]!r} did not finish within {SCAN_TIMEOUT}s (blocked on the FIFO?)\n"
            f"{err.decode(errors='replace')[-3000:]}"
        )
    return proc.returncode, out, err


def snapshot(top: Path, skip: frozenset[Path] = frozenset()) -> dict[bytes, tuple[int, int, int, str]]:
    """lstat of everything below ``top`` (names as bytes), digests of regular files; FIFOs are
    never opened."""
    entries: dict[bytes, tuple[int, int, int, str]] = {}
    skip_b = {os.fsencode(p) for p in skip}
    for dirpath, dirnames, filenames in os.walk(os.fsencode(top)):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip_b]
        for name in dirnames + filenames:
            host = os.path.join(dirpath, name)
            if host in skip_b:
                continue
            st = os.lstat(host)
            if stat.S_ISLNK(st.st_mode):
                extra = os.fsdecode(os.readlink(host))
            elif stat.S_ISREG(st.st_mode):
                with open(host, "rb") as fh:
                    extra = hashlib.sha256(fh.read()).hexdigest()
            else:
                extra = ""
            entries[os.path.relpath(host, os.fsencode(top))] = (st.st_mode, st.st_size, st.st_mtime_ns, extra)
    return entries


def siblings(base: Path) -> dict[str, tuple[int, int]]:
    """The other entries next to ``base`` (``base`` itself changes: the database is created in it)."""
    out: dict[str, tuple[int, int]] = {}
    for p in base.parent.iterdir():
        if p != base:
            st = p.lstat()
            out[p.name] = (st.st_mode, st.st_mtime_ns)
    return out


def gcc_shared(out: Path, source: Path, soname: str, *, redefine: str | None = None) -> None:
    obj = out.with_suffix(".o")
    run(["gcc", "-O1", "-fPIC", "-c", str(source), "-o", str(obj)])
    if redefine:
        run(["objcopy", f"--redefine-sym={redefine}", str(obj)])
    run(["gcc", "-shared", "-o", str(out), f"-Wl,-soname,{soname}", str(obj)])


@dataclass
class Hostile:
    base: Path
    root: Path
    outside: Path
    db: Path
    rc: int
    stdout: bytes
    stderr: bytes
    report_text: str
    report: dict[str, Any]
    outside_before: dict[bytes, tuple[int, int, int, str]]
    outside_after: dict[bytes, tuple[int, int, int, str]]
    siblings_before: dict[str, tuple[int, int]]
    siblings_after: dict[str, tuple[int, int]]
    cwd: Path

    def problems_for(self, path: str) -> list[dict[str, Any]]:
        return [p for p in self.report["problems"] if p["path"] == path]

    def module(self, path: str) -> dict[str, Any] | None:
        mods = [m for m in self.report["modules"] if m["path"] == path]
        assert len(mods) <= 1, mods
        return mods[0] if mods else None


def build_hostile(base: Path) -> tuple[Path, Path]:
    src, build = base / "src", base / "build"
    src.mkdir()
    build.mkdir()
    for name, text in (("lib.c", LIB_C), ("secret.c", SECRET_C), ("markup.c", MARKUP_C), ("victim.c", VICTIM_C)):
        (src / name).write_text(text)
    gcc_shared(build / "libgood.so.1", src / "lib.c", "libgood.so.1")
    gcc_shared(build / "libtrunc.so.1", src / "lib.c", "libtrunc.so.1")
    gcc_shared(build / "libsecret.so.1", src / "secret.c", "libsecret.so.1")
    gcc_shared(build / "markup.so", src / "markup.c", MARKUP, redefine=f"markup_fn={MARKUP_SYMBOL}")
    # Link-time stand-ins for every other name the program needs.
    stubs = []
    for soname in VICTIM_NEEDED:
        if soname in ("libtrunc.so.1", MARKUP):
            continue
        stub = build / f"stub-{len(stubs)}.so"
        gcc_shared(stub, src / "secret.c" if soname.startswith("libsecret") else src / "lib.c", soname)
        stubs.append((soname, stub))
    by_name = dict(stubs)
    by_name["libtrunc.so.1"] = build / "libtrunc.so.1"
    by_name[MARKUP] = build / "markup.so"
    run(["gcc", "-O1", "-c", str(src / "victim.c"), "-o", str(build / "victim.o")])
    run(["objcopy", f"--redefine-sym=markup_fn={MARKUP_SYMBOL}", str(build / "victim.o")])
    run(
        [
            "gcc",
            "-o",
            str(build / "victim"),
            str(build / "victim.o"),
            "-Wl,--no-as-needed",
            "-Wl,--enable-new-dtags,-rpath,/lib:/usr/lib",
            *[str(by_name[n]) for n in VICTIM_NEEDED],
        ]
    )

    outside = base / "outside"
    outside.mkdir()
    shutil.copy2(build / "libsecret.so.1", outside / "libsecret.so.1")

    root = base / "root"
    for d in ("lib", "usr/lib", "usr/bin", "etc"):
        (root / d).mkdir(parents=True)
    lib = root / "lib"
    good = (build / "libgood.so.1").read_bytes()
    whole = (build / "libtrunc.so.1").read_bytes()
    (lib / "libtrunc.so.1").write_bytes(whole[: len(whole) // 2])
    shutil.copy2(build / "libtrunc.so.1", root / "usr/lib/libtrunc.so.1")  # a valid later candidate
    rnd = random.Random(20240607)
    (lib / "librandom.so.1").write_bytes(b"\x7fELF" + rnd.randbytes(8188))
    hdr = bytearray(whole[:64])  # ELF64 header, then absurd table positions and counts
    hdr[0x20:0x28] = (0x7FFF_FFFF_FFFF_0000).to_bytes(8, "little")  # e_phoff
    hdr[0x28:0x30] = (0x7FFF_FFFF_FFFF_0000).to_bytes(8, "little")  # e_shoff
    hdr[0x38:0x3A] = (0xFFFF).to_bytes(2, "little")  # e_phnum
    hdr[0x3C:0x3E] = (0xFFFF).to_bytes(2, "little")  # e_shnum
    hdr[0x3E:0x40] = (0xFFFE).to_bytes(2, "little")  # e_shstrndx
    (lib / "libhdr.so.1").write_bytes(bytes(hdr))
    os.symlink("libloop2.so.1", lib / "libloop.so.1")
    os.symlink("libloop.so.1", lib / "libloop2.so.1")
    os.symlink("../../../../etc/passwd", lib / "evil.so")
    os.symlink("/etc/shadow", lib / "shadow.so")
    (root / "etc/shadow").write_text("device-shadow-placeholder\n")
    climb = "../" * (len(root.parts) + 4)
    os.symlink(climb + str(outside / "libsecret.so.1").lstrip("/"), lib / "libsecret.so.1")
    os.symlink(str(outside / "libsecret.so.1"), lib / "libsecret2.so.1")
    os.mkfifo(lib / "libfifo.so.1")
    os.symlink("libnothere.so.1", lib / "libdangle.so.1")
    with open(os.path.join(os.fsencode(lib), BAD_NAME), "wb") as fh:
        fh.write(good)
    (lib / "libzero.so.1").write_bytes(b"")
    shutil.copy2(build / "markup.so", lib / MARKUP)
    shutil.copy2(build / "victim", root / "usr/bin/victim")
    install_host_loader(root, build / "victim")  # the host's loader: the device can start it
    return root, outside


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    base = tmp_path_factory.mktemp("hostile")
    root, outside = build_hostile(base)
    db = base / "db"
    cwd = base / "cwd"
    cwd.mkdir()
    env = dict(os.environ)
    before = snapshot(base, skip=frozenset({db}))
    siblings_before = siblings(base)
    rc, out, err = run_bounded(
        [*linkgraph_cmd(), "scan", str(root), "--db", str(db), "--name", "hostile", "--quiet"], cwd=cwd, env=env
    )
    after = snapshot(base, skip=frozenset({db}))
    siblings_after = siblings(base)
    assert rc in (0, 1), f"scan could not run (rc {rc}):\n{err.decode(errors='replace')[-5000:]}"
    rep_rc, rep_out, rep_err = run_bounded(
        [*linkgraph_cmd(), "report", "--db", str(db), "--format", "json"], cwd=cwd, env=env
    )
    assert rep_rc == 0, rep_err.decode(errors="replace")[-5000:]
    text = rep_out.decode("utf-8")  # strict: the report must be valid UTF-8
    return Hostile(
        base,
        root,
        outside,
        db,
        rc,
        out,
        err,
        text,
        json.loads(text),
        before,
        after,
        siblings_before,
        siblings_after,
        cwd,
    )


# ----------------------------------------------------------------------------- the scan itself


def test_scan_finishes_with_exit_code_matching_problem_severity(hostile: Hostile) -> None:
    errors = [p for p in hostile.report["problems"] if p["severity"] == "error"]
    assert errors, "a truncated ELF and random bytes behind an ELF magic must be error-severity problems"
    assert hostile.rc == 1, f"exit code {hostile.rc} although there are error problems: {errors}"
    for p in hostile.report["problems"]:
        assert set(p) >= {"path", "severity", "message"} and p["severity"] in ("warning", "error"), p
        assert p["message"].strip(), p


def test_the_program_is_still_analysed(hostile: Hostile) -> None:
    victim = hostile.module("/usr/bin/victim")
    assert victim is not None and victim["kind"] == "executable"
    assert victim["needed"] == [*VICTIM_NEEDED, "libc.so.6"]
    maps = [m for m in hostile.report["link_maps"] if m["executable"] == "/usr/bin/victim"]
    assert len(maps) == 1 and maps[0]["objects"][0] == "/usr/bin/victim"


# ----------------------------------------------------------------------------- malformed ELF


SHORT_WORDS = r"trunc|short|end of (the )?file|eof|corrupt|malformed|invalid|bad|cannot|beyond|past"
JUNK_WORDS = r"corrupt|malformed|invalid|bad|cannot|unsupported|unknown|not an? |garbage"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/lib/libtrunc.so.1", SHORT_WORDS),
        ("/lib/librandom.so.1", JUNK_WORDS),
        ("/lib/libhdr.so.1", SHORT_WORDS),
    ],
)
def test_malformed_elf_is_an_error_problem_naming_the_file(hostile: Hostile, path: str, words: str) -> None:
    probs = hostile.problems_for(path)
    assert probs, f"no problem recorded for {path}; problems: {hostile.report['problems']}"
    assert any(p["severity"] == "error" for p in probs), probs
    assert any(re.search(words, p["message"], re.I) for p in probs), f"unclear message: {probs}"
    # A file that cannot be parsed must never be offered as a provider or a load target.
    assert all(d["to"] != path for d in hostile.report["dependencies"]), path
    assert all(b["provider"] != path for b in hostile.report["bindings"]), path
    assert all(path not in m["objects"] for m in hostile.report["link_maps"] if m["executable"] != path)


def test_program_needing_the_truncated_library_gets_missing_or_the_valid_copy(hostile: Hostile) -> None:
    deps = [
        d for d in hostile.report["dependencies"] if d["from"] == "/usr/bin/victim" and d["soname"] == "libtrunc.so.1"
    ]
    assert len(deps) == 1, deps
    dep = deps[0]
    assert dep["to"] in (None, "/usr/lib/libtrunc.so.1"), dep
    assert (dep["to"] is None) == (dep["status"] == "missing"), dep
    for m in hostile.report["link_maps"]:
        if m["executable"] == "/usr/bin/victim":
            assert "/lib/libtrunc.so.1" not in m["objects"]


@pytest.mark.parametrize(
    "soname",
    [
        "librandom.so.1",
        "libhdr.so.1",
        "libloop.so.1",
        "libsecret.so.1",
        "libsecret2.so.1",
        "libfifo.so.1",
        "libdangle.so.1",
        "libzero.so.1",
    ],
)
def test_unusable_needed_entries_are_missing(hostile: Hostile, soname: str) -> None:
    deps = [d for d in hostile.report["dependencies"] if d["from"] == "/usr/bin/victim" and d["soname"] == soname]
    assert [(d["to"], d["status"]) for d in deps] == [(None, "missing")], f"/usr/bin/victim NEEDED {soname}: {deps}"
    maps = [m for m in hostile.report["link_maps"] if m["executable"] == "/usr/bin/victim"]
    assert soname in maps[0]["missing"], maps[0]


# ----------------------------------------------------------------------------- symlinks


def test_symlink_loop_is_a_problem(hostile: Hostile) -> None:
    probs = hostile.problems_for("/lib/libloop.so.1") + hostile.problems_for("/lib/libloop2.so.1")
    assert probs, f"no problem for the symlink loop; problems: {hostile.report['problems']}"
    assert any(re.search(r"loop|too many (levels of )?(symbolic )?links|eloop", p["message"], re.I) for p in probs), (
        probs
    )


@pytest.mark.parametrize("path", ["/lib/evil.so", "/lib/libsecret.so.1"])
def test_links_climbing_out_of_the_root_are_reported(hostile: Hostile, path: str) -> None:
    probs = hostile.problems_for(path)
    assert probs, f"no problem for {path}; problems: {hostile.report['problems']}"
    assert any(re.search(r"root|outside|above|escape|\.\.", p["message"], re.I) for p in probs), probs


def test_nothing_outside_the_root_is_read(hostile: Hostile) -> None:
    text = hostile.report_text
    assert SECRET_SYMBOL not in text, "the library outside the root was read"
    outside = str(hostile.outside)
    for m in hostile.report["modules"]:
        assert outside not in m["path"] and all(outside not in a for a in m["aliases"]), m
        assert SECRET_SYMBOL not in json.dumps(m)
    for b in hostile.report["bindings"]:
        assert b["provider"].startswith("/") and outside not in b["provider"], b
    assert all(m["soname"] != "libsecret.so.1" for m in hostile.report["modules"]), "outside library loaded"
    # The database either: nothing in it may come from the outside file.  (It is a file or a
    # folder; symbol names are stored readably, as the markup symbol shows.)
    db_files = (
        [hostile.db] if hostile.db.is_file() else [Path(d, f) for d, _dirs, files in os.walk(hostile.db) for f in files]
    )
    blobs = [p.read_bytes() for p in db_files]
    assert any(MARKUP_SYMBOL.encode() in b for b in blobs), "cannot see symbol names in the database"
    assert not any(SECRET_SYMBOL.encode() in b for b in blobs), "the database holds outside content"
    # Host files the links name (/etc/passwd, /etc/shadow) never show up.
    for host_file in ("/etc/passwd", "/etc/shadow"):
        try:
            lines = Path(host_file).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if len(line) >= 12:
                assert line not in text, f"content of the host's {host_file} is in the report"


def test_absolute_link_resolves_inside_the_root(hostile: Hostile) -> None:
    """/lib/shadow.so -> /etc/shadow means ROOT/etc/shadow (a text file): not an ELF module, no
    host content (checked above); /lib/libsecret2.so.1 -> /<host path> is dangling in the root."""
    assert hostile.module("/etc/shadow") is None
    assert hostile.module("/lib/shadow.so") is None
    assert all("/lib/libsecret2.so.1" not in m["aliases"] for m in hostile.report["modules"])


def test_dangling_needed_link_is_reported(hostile: Hostile) -> None:
    probs = hostile.problems_for("/lib/libdangle.so.1") + [
        p for p in hostile.problems_for("/usr/bin/victim") if "libdangle.so.1" in p["message"]
    ]
    assert probs, f"no problem names /lib/libdangle.so.1; problems: {hostile.report['problems']}"


# ----------------------------------------------------------------------------- odd files


def test_fifo_does_not_block_and_is_reported(hostile: Hostile) -> None:
    # Reaching this test at all means the scan did not block (see run_bounded).
    probs = hostile.problems_for("/lib/libfifo.so.1")
    assert probs, f"no problem for the FIFO; problems: {hostile.report['problems']}"
    assert hostile.module("/lib/libfifo.so.1") is None


def test_empty_file_named_like_a_library_is_a_warning(hostile: Hostile) -> None:
    probs = hostile.problems_for("/lib/libzero.so.1")
    assert [p["severity"] for p in probs] == ["warning"], probs
    assert re.search(r"empty|zero|0 bytes|size 0|no data", probs[0]["message"], re.I), probs
    assert hostile.module("/lib/libzero.so.1") is None


def test_non_utf8_name_gets_an_escaped_path_and_a_warning(hostile: Hostile) -> None:
    mods = [m for m in hostile.report["modules"] if m["path"].startswith("/lib/lib") and m["soname"] == "libgood.so.1"]
    assert len(mods) == 1, [m["path"] for m in hostile.report["modules"]]
    path = mods[0]["path"]
    path.encode("utf-8")  # no lone surrogates: valid UTF-8
    assert re.fullmatch(r"/lib/lib(\\x|%)[fF]{2}(\\x|%)[fF][eE]\.so", path), path  # escaped, not replaced
    probs = hostile.problems_for(path)
    assert [p["severity"] for p in probs] == ["warning"], (path, hostile.report["problems"])
    assert re.search(r"utf-?8|encod|decod|byte", probs[0]["message"], re.I), probs


def test_markup_in_names_stays_verbatim(hostile: Hostile) -> None:
    path = "/lib/" + MARKUP
    mod = hostile.module(path)
    assert mod is not None, [m["path"] for m in hostile.report["modules"]]
    assert mod["soname"] == MARKUP and mod["kind"] == "library"
    assert MARKUP in hostile.module("/usr/bin/victim")["needed"]  # type: ignore[index]
    assert json.dumps(path)[1:-1] in hostile.report_text  # JSON escaping only, no HTML escaping
    assert "&lt;" not in hostile.report_text and "&gt;" not in hostile.report_text
    deps = [d for d in hostile.report["dependencies"] if d["from"] == "/usr/bin/victim" and d["soname"] == MARKUP]
    assert [(d["to"], d["status"]) for d in deps] == [(path, "used")], deps
    assert MARKUP_SYMBOL in deps[0]["symbols"]
    binds = [
        b for b in hostile.report["bindings"] if b["executable"] == "/usr/bin/victim" and b["symbol"] == MARKUP_SYMBOL
    ]
    assert [(b["module"], b["provider"]) for b in binds] == [("/usr/bin/victim", path)], binds


# ----------------------------------------------------------------------------- no writes elsewhere


def test_nothing_written_outside_the_database(hostile: Hostile) -> None:
    changed = {
        k: (hostile.outside_before.get(k), hostile.outside_after.get(k))
        for k in hostile.outside_before.keys() | hostile.outside_after.keys()
        if hostile.outside_before.get(k) != hostile.outside_after.get(k)
    }
    assert not changed, f"the scan changed files outside its database: {changed}"
    assert hostile.siblings_after == hostile.siblings_before
    assert list(hostile.cwd.iterdir()) == [], "the scan wrote into its working directory"
    assert hostile.db.exists()
