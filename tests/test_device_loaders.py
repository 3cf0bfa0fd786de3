"""linkgraph's uClibc and musl emulation, judged by the devices' own loaders under qemu-user.

The three real TP-Link router images of ``../shared/firmware`` (big-endian MIPS 24Kc) are
unpacked, scanned with the ``linkgraph`` CLI, and every dynamic executable is traced by the
image's own loader (see qemu_oracle.py for how it runs and what it prints):

* Freifunk Ulm 0.6.5 (TL-WR841N v11): uClibc 0.9.33.2, ``LD_TRACE_LOADED_OBJECTS=1``;
* TP-Link's stock TL-MR3020 v1 3.17.2 (TP-Link's LZMA squashfs): uClibc 0.9.30, the same mode;
  before 0.9.33 the loader is always appended after the NEEDED walk and printed last;
* LEDE 17.01.4 (TL-WR841N v11): musl 1.1.16, ``ld-musl-mips-sf.so.1 --list``; musl also lists
  the libraries no program loads (linkgraph roots a link map at each) and reports every strong
  reference nothing defines, which linkgraph's ``unresolved`` must equal.

Criterion: for every traced object, linkgraph's link map equals the loader's list — the same
files in the same order, the interpreter where the loader puts it — and the same names are
missing.  No loader build can show bindings (the uClibc loaders are non-debug builds without
``LD_DEBUG``; musl has none), so symbol bindings are only checked through musl's unresolved
references.

The images exercise few search rules (no ld.so.cache, one RPATH, nothing missing), so each rule
is also checked on a *derived* root: a copy of an image's root changed in one way (a library
moved or duplicated, an interpreter path or a NEEDED string patched in place, a uClibc
ld.so.cache or a musl path file added).  The device loader is the judge there too, for every
program of the derived root; each test also asserts that the change reached the loader, so a
rule is never "checked" on a root where it does not matter.
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from support import qemu_oracle as qo
from support.device_roots import Checked, assert_agreement, check_root, derive
from support.images import MR3020

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

UCLIBC_IMAGE = "ffulm-0.6.5-"
MUSL_IMAGE = "lede-17.01.4-"


@pytest.fixture(scope="module")
def uclibc_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qo.extract_root(qo.firmware_image(UCLIBC_IMAGE), tmp_path_factory.mktemp("ffulm"))


@pytest.fixture(scope="module")
def musl_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qo.extract_root(qo.firmware_image(MUSL_IMAGE), tmp_path_factory.mktemp("lede"))


@pytest.fixture(scope="module")
def mr3020_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qo.extract_root(MR3020, tmp_path_factory.mktemp("mr3020"))


@pytest.fixture(scope="module")
def mr3020_image(mr3020_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Checked:
    return check_root(mr3020_root, tmp_path_factory.mktemp("mr3020-check"))


@pytest.fixture(scope="module")
def uclibc_image(uclibc_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Checked:
    return check_root(uclibc_root, tmp_path_factory.mktemp("ffulm-check"))


@pytest.fixture(scope="module")
def musl_image(musl_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Checked:
    return check_root(musl_root, tmp_path_factory.mktemp("lede-check"), libraries=True)


# --------------------------------------------------------------------------- derived roots


def _load_offset(elf: ELFFile, vaddr: int) -> int:
    for seg in elf.iter_segments():
        if seg["p_type"] == "PT_LOAD" and seg["p_vaddr"] <= vaddr < seg["p_vaddr"] + seg["p_filesz"]:
            return vaddr - seg["p_vaddr"] + seg["p_offset"]
    raise AssertionError(f"address {vaddr:#x} is in no PT_LOAD segment")


def patch_dynstr(path: Path, old: str, new: str) -> None:
    """Overwrite the dynamic string ``old`` with the no longer ``new`` (NUL padded), in place."""
    assert len(new) <= len(old)
    data = bytearray(path.read_bytes())
    elf = ELFFile(io.BytesIO(bytes(data)))
    tags = {
        t.entry.d_tag: t.entry.d_val
        for seg in elf.iter_segments()
        if seg["p_type"] == "PT_DYNAMIC"
        for t in seg.iter_tags()
    }
    start = _load_offset(elf, tags["DT_STRTAB"])
    table = bytes(data[start : start + tags["DT_STRSZ"]])
    needle = b"\0" + old.encode() + b"\0"
    assert table.count(needle) == 1, f"{old!r} is not one string of {path}"
    at = start + table.index(needle) + 1
    data[at : at + len(old)] = new.encode().ljust(len(old), b"\0")
    path.write_bytes(bytes(data))


def patch_interpreter(path: Path, new: str) -> None:
    """Overwrite the PT_INTERP string with the no longer ``new`` (NUL padded), in place."""
    data = bytearray(path.read_bytes())
    elf = ELFFile(io.BytesIO(bytes(data)))
    (seg,) = [s for s in elf.iter_segments() if s["p_type"] == "PT_INTERP"]
    assert len(new) < seg["p_filesz"]
    data[seg["p_offset"] : seg["p_offset"] + seg["p_filesz"]] = new.encode().ljust(seg["p_filesz"], b"\0")
    path.write_bytes(bytes(data))


def needed_of(path: Path) -> list[str]:
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        return [
            t.needed
            for seg in elf.iter_segments()
            if seg["p_type"] == "PT_DYNAMIC"
            for t in seg.iter_tags()
            if t.entry.d_tag == "DT_NEEDED"
        ]


def uclibc_cache(entries: list[tuple[int, str, str]], byteorder: str = ">") -> bytes:
    """An ``/etc/ld.so.cache`` in uClibc's format (``ldso/include/dl-defs.h``: ``header_t``
    ``{char magic[6] "ld.so-", version[5] "1.7.0"; int nlibs}``, then ``libentry_t``
    ``{int flags; int sooffset, liboffset}`` with offsets into the string table that follows,
    which must end in NUL), in the device's byte order, as uClibc's ``ldconfig`` writes it."""
    strings = b""
    table = b""
    for flags, name, path in entries:
        so, lib = len(strings), len(strings) + len(name) + 1
        strings += name.encode() + b"\0" + path.encode() + b"\0"
        table += struct.pack(byteorder + "iii", flags, so, lib)
    return b"ld.so-1.7.0\0" + struct.pack(byteorder + "i", len(entries)) + table + strings


# --------------------------------------------------------------------------- the images


def assert_uclibc_image(checked: Checked, at_least: int) -> None:
    """Every program is uClibc's, linkgraph reports the same programs, and every link map agrees."""
    kinds = {qo.loader_kind(checked.loader.elves[e].interpreter) for e in checked.executables}
    assert kinds == {"uclibc"}
    report_programs = {m["path"] for m in checked.report["modules"] if m["kind"] == "executable"}
    assert set(checked.executables) == report_programs
    assert len(checked.executables) >= at_least
    assert_agreement(checked)


def assert_no_debug_mode(checked: Checked, programs: tuple[str, ...]) -> None:
    """``LD_DEBUG=all`` (with ``LD_DEBUG_OUTPUT`` unset) adds nothing to the trace."""
    for program in programs:
        plain = checked.traces[program]
        debug = checked.loader.trace(program, {"LD_DEBUG": "all"})
        assert not debug.unparsed and debug.stderr == plain.stderr == "", debug.describe()
        assert debug.entries == plain.entries


def test_uclibc_image(uclibc_image: Checked) -> None:
    """Freifunk Ulm: every dynamic executable's link map equals uClibc's own list."""
    assert_uclibc_image(uclibc_image, 40)
    # The loader puts itself where libc.so.0 names it; it is in every list.
    interp = uclibc_image.loader.canonical("/lib/ld-uClibc.so.0")
    assert all(interp in t.objects for t in uclibc_image.traces.values())


def test_uclibc_ebtables_rpath(uclibc_image: Checked) -> None:
    """ebtables loads its 21 extension libraries through RPATH=/usr/lib/ebtables."""
    trace = uclibc_image.traces["/usr/sbin/ebtables"]
    through_rpath = [(n, p) for n, p in trace.entries if p and p.startswith("/usr/lib/ebtables/")]
    assert len(through_rpath) == 21 and all(n.startswith("libebt") for n, _ in through_rpath), trace.describe()
    lm = next(m for m in uclibc_image.report["link_maps"] if m["executable"] == "/usr/sbin/ebtables")
    assert lm["objects"] == trace.objects
    edges = {(d["soname"], d["to"]) for d in uclibc_image.report["dependencies"] if d["from"] == "/usr/sbin/ebtables"}
    for name, path in through_rpath:
        assert (name, uclibc_image.loader.canonical(path)) in edges


def test_uclibc_loader_has_no_debug_mode(uclibc_image: Checked) -> None:
    """The Freifunk loader is not a debug build: ``LD_DEBUG=all`` (with ``LD_DEBUG_OUTPUT``
    unset) adds nothing to the trace, so uClibc's bindings cannot be observed and the uClibc
    tests compare link maps only."""
    assert_no_debug_mode(uclibc_image, ("/bin/busybox", "/usr/sbin/ebtables"))


def test_mr3020_image(mr3020_image: Checked) -> None:
    """TP-Link's stock TL-MR3020 v1 (uClibc 0.9.30): every dynamic executable's link map equals
    the device loader's list; this loader predates uClibc commit 02f56b3ae, so it skips NEEDED
    ``ld-uClibc.so.0`` in the walk and prints itself as the last line of every list."""
    assert_uclibc_image(mr3020_image, 33)
    interp = mr3020_image.loader.canonical("/lib/ld-uClibc.so.0")
    assert interp == "/lib/ld-uClibc-0.9.30.so"
    for trace in mr3020_image.traces.values():
        assert trace.entries[-1] == ("ld-uClibc.so.0", "/lib/ld-uClibc.so.0"), trace.describe()
        assert trace.objects[-1] == interp and trace.objects.count(interp) == 1


def test_mr3020_loader_has_no_debug_mode(mr3020_image: Checked) -> None:
    """The MR3020's loader names ``LD_DEBUG`` in its strings but is not a debug build either:
    ``LD_DEBUG=all`` adds nothing to the trace (its bindings are judged by the runtime oracle)."""
    assert_no_debug_mode(mr3020_image, ("/bin/busybox", "/sbin/iptables-multi"))


def test_mr3020_loader_named_first_comes_last(mr3020_root: Path, tmp_path: Path) -> None:
    """On the MR3020 the loader is named only by libc.so.0, libdl and libpthread, which come last
    anyway; so a program gets it as its second NEEDED entry (``ld-uClibc.so.0`` in place of
    ``libxtables.so.2``): uClibc 0.9.30 passes over that entry in the walk and still appends and
    prints itself last (0.9.33 would put it second); libxtables.so.2, which nothing else of the
    program needs, is not loaded."""
    root = derive(mr3020_root, tmp_path / "root")
    patch_dynstr(root / "sbin/iptables-multi", "libxtables.so.2", "ld-uClibc.so.0")
    assert needed_of(root / "sbin/iptables-multi")[:2] == ["libip4tc.so.0", "ld-uClibc.so.0"]
    checked = check_root(root, tmp_path / "work")
    trace = checked.traces["/sbin/iptables-multi"]
    assert [n for n, _ in trace.entries][-1] == "ld-uClibc.so.0", trace.describe()
    assert trace.objects[-1] == "/lib/ld-uClibc-0.9.30.so" and len(trace.objects) > 3, trace.describe()
    assert not any("libxtables" in o for o in trace.objects), trace.describe()
    assert_agreement(checked)


def test_musl_image(musl_image: Checked) -> None:
    """LEDE: every program's and every unloaded library's link map equals musl's ``--list``, and
    the strong references nothing defines equal musl's relocation errors."""
    kinds = {qo.loader_kind(musl_image.loader.elves[e].interpreter) for e in musl_image.executables}
    assert kinds == {"musl"}
    assert len(musl_image.executables) >= 30
    assert len(musl_image.traces) > len(musl_image.executables)  # libraries listed too
    assert any(t.unresolved for t in musl_image.traces.values())  # plugins miss their host's symbols
    assert_agreement(musl_image)


# --------------------------------------------------------------------------- uClibc rules


def test_uclibc_no_reuse_by_name(uclibc_root: Path, tmp_path: Path) -> None:
    """uClibc reuses a loaded object only when a search finds the *same file* (st_dev/st_ino in
    ``_dl_load_elf_shared_library``); it never compares NEEDED names or sonames.  A second
    libgcc_s.so.1 in ebtables' RPATH folder is loaded for ebtables, and libebtc.so (no RPATH)
    still loads /lib/libgcc_s.so.1: two objects with one soname."""
    root = derive(uclibc_root, tmp_path / "root")
    shutil.copy2(root / "lib/libgcc_s.so.1", root / "usr/lib/ebtables/libgcc_s.so.1")
    checked = check_root(root, tmp_path / "work")
    objects = checked.traces["/usr/sbin/ebtables"].objects
    assert {"/usr/lib/ebtables/libgcc_s.so.1", "/lib/libgcc_s.so.1"} <= set(objects)
    assert_agreement(checked)


def test_uclibc_rpath_of_requester_only(uclibc_root: Path, tmp_path: Path) -> None:
    """Only the requesting object's RPATH is searched (no chain, not the executable's): with
    libgcc_s.so.1 only in /usr/lib/ebtables, ebtables finds it, libebtc.so and the libebt_*
    libraries (which need it too) do not, although it is loaded."""
    root = derive(uclibc_root, tmp_path / "root")
    (root / "lib/libgcc_s.so.1").rename(root / "usr/lib/ebtables/libgcc_s.so.1")
    checked = check_root(root, tmp_path / "work")
    trace = checked.traces["/usr/sbin/ebtables"]
    assert "/usr/lib/ebtables/libgcc_s.so.1" in trace.objects and "libgcc_s.so.1" in trace.missing
    assert_agreement(checked)


def test_uclibc_interpreter_folder(uclibc_root: Path, tmp_path: Path) -> None:
    """uClibc searches the folder of the interpreter *as PT_INTERP names it* (``_dl_ldsopath``)
    only when built with LDSO_SEARCH_INTERP_PATH; OpenWrt builds it without (its loader exports
    no ``_dl_ldsopath``).  ubus gets PT_INTERP /opt/ld-uClibc.so.0 (a link to the real loader)
    and libubus.so moves to /opt: this loader does not look there, so ubus misses it as every
    other program does.  netifd gets the relative ``opt/ld-uClibc.so.0``: the kernel and the
    loader take it from the working directory (``/`` here and at boot), and the loader prints
    that relative path for itself."""
    root = derive(uclibc_root, tmp_path / "root")
    (root / "opt").mkdir()
    (root / "opt/ld-uClibc.so.0").symlink_to("/lib/ld-uClibc.so.0")
    (root / "lib/libubus.so").rename(root / "opt/libubus.so")
    patch_interpreter(root / "bin/ubus", "/opt/ld-uClibc.so.0")
    patch_interpreter(root / "sbin/netifd", "opt/ld-uClibc.so.0")
    checked = check_root(root, tmp_path / "work")
    for program, interp in (("/bin/ubus", "/opt/ld-uClibc.so.0"), ("/sbin/netifd", "opt/ld-uClibc.so.0")):
        trace = checked.traces[program]
        assert dict(trace.entries)["ld-uClibc.so.0"] == interp, trace.describe()
        assert "libubus.so" in trace.missing, trace.describe()
    assert_agreement(checked)


def test_uclibc_name_with_slash(uclibc_root: Path, tmp_path: Path) -> None:
    """A NEEDED name with a ``/`` is opened as it is (relative to the working directory); if that
    fails, uClibc does not give up (glibc and musl do) but searches its last component.  busybox
    gets ``no/libm.so.0`` (no such file: found as /lib/libm.so.0) instead of libcrypt.so.0 and
    ``lib/libuci.so`` (a relative path that opens) instead of libgcc_s.so.1."""
    root = derive(uclibc_root, tmp_path / "root")
    patch_dynstr(root / "bin/busybox", "libcrypt.so.0", "no/libm.so.0")
    patch_dynstr(root / "bin/busybox", "libgcc_s.so.1", "lib/libuci.so")
    assert needed_of(root / "bin/busybox")[:3] == ["no/libm.so.0", "libm.so.0", "lib/libuci.so"]
    checked = check_root(root, tmp_path / "work")
    entries = dict(checked.traces["/bin/busybox"].entries)
    assert entries.get("no/libm.so.0") == "/lib/libm.so.0", checked.traces["/bin/busybox"].describe()
    assert "/lib/libuci.so" in checked.traces["/bin/busybox"].objects
    assert_agreement(checked)


def test_uclibc_interpreter_position(uclibc_root: Path, tmp_path: Path) -> None:
    """A NEEDED entry whose *last component* is the loader's name (``UCLIBC_LDSO``) is the loader,
    which joins the list there; nothing is opened for it.  ubus gets ``/no/ld-uClibc.so.0`` in
    place of libblobmsg_json.so, so the loader comes third.  libc.so.0 loses its NEEDED
    ld-uClibc.so.0 (now libgcc_s.so.1): programs without libdl/libpthread then never name the
    loader, which appends itself after the walk, last, unprinted (``add_ldso``)."""
    root = derive(uclibc_root, tmp_path / "root")
    patch_dynstr(root / "bin/ubus", "libblobmsg_json.so", "/no/ld-uClibc.so.0")
    patch_dynstr(root / "lib/libuClibc-0.9.33.2.so", "ld-uClibc.so.0", "libgcc_s.so.1")
    checked = check_root(root, tmp_path / "work")
    ubus = checked.traces["/bin/ubus"]
    assert [n for n, _ in ubus.entries][:3] == ["libubus.so", "libubox.so", "/no/ld-uClibc.so.0"], ubus.describe()
    unnamed = [t for t in checked.traces.values() if not any(n.endswith("ld-uClibc.so.0") for n, _ in t.entries)]
    assert unnamed and all(t.objects[-1] == "/lib/ld-uClibc-0.9.33.2.so" for t in unnamed)
    assert_agreement(checked)


def test_uclibc_skips_unloadable_files(uclibc_root: Path, tmp_path: Path) -> None:
    """A file found by the search that is not an ELF shared object for this machine is skipped
    and the search goes on ("is not an ELF file", "is not an ELF executable for MIPS"): an
    ET_EXEC program and a shell script in ebtables' RPATH folder under library names."""
    root = derive(uclibc_root, tmp_path / "root")
    shutil.copy2(root / "sbin/uci", root / "usr/lib/ebtables/libgcc_s.so.1")
    (root / "usr/lib/ebtables/libebtc.so").write_text("#!/bin/sh\n")
    checked = check_root(root, tmp_path / "work")
    trace = checked.traces["/usr/sbin/ebtables"]
    assert "is not an ELF executable" in trace.stderr and "is not an ELF file" in trace.stderr
    assert {"/lib/libgcc_s.so.1", "/usr/lib/libebtc.so"} <= set(trace.objects)
    assert_agreement(checked)


def test_uclibc_library_symlinked_to_another(uclibc_root: Path, tmp_path: Path) -> None:
    """libgcc_s.so.1 as a symlink to libc.so.0: the file is loaded once, under the name that
    reaches it first (libgcc_s.so.1, before libc.so.0 in ubus' list); libc.so.0 then finds the
    same inode and reuses it (nothing printed)."""
    root = derive(uclibc_root, tmp_path / "root")
    (root / "lib/libgcc_s.so.1").unlink()
    (root / "lib/libgcc_s.so.1").symlink_to("libc.so.0")
    checked = check_root(root, tmp_path / "work")
    ubus = checked.traces["/bin/ubus"]
    assert "libc.so.0" not in dict(ubus.entries) and "libgcc_s.so.1" in dict(ubus.entries), ubus.describe()
    assert_agreement(checked)


def test_uclibc_ld_so_cache(uclibc_root: Path, tmp_path: Path) -> None:
    """uClibc's own ld.so.cache (big-endian on this device): entries whose flags are exactly
    LIB_ELF (1), LIB_ELF_LIBC5 (2) or LIB_ELF_LIBC0 (4) and whose name equals the NEEDED name are
    tried in order, after RPATH/RUNPATH and before the interpreter's folder and /lib:/usr/lib.
    libubus.so moves to /opt/cache (listed with flags 4); a copy of libubox.so in /opt/glibc is
    listed with glibc's libc6 flags (3) and must be ignored; libuci.so's entry points to a file
    that does not exist, so the next entry (flags 1) is used."""
    root = derive(uclibc_root, tmp_path / "root")
    for folder in ("opt/cache", "opt/glibc", "opt/second"):
        (root / folder).mkdir(parents=True)
    (root / "lib/libubus.so").rename(root / "opt/cache/libubus.so")
    shutil.copy2(root / "lib/libubox.so", root / "opt/glibc/libubox.so")
    shutil.copy2(root / "lib/libuci.so", root / "opt/second/libuci.so")
    (root / "etc/ld.so.cache").write_bytes(
        uclibc_cache(
            [
                (4, "libubus.so", "/opt/cache/libubus.so"),
                (3, "libubox.so", "/opt/glibc/libubox.so"),
                (4, "libuci.so", "/opt/gone/libuci.so"),
                (1, "libuci.so", "/opt/second/libuci.so"),
            ]
        )
    )
    checked = check_root(root, tmp_path / "work")
    loaded = {o for t in checked.traces.values() for o in t.objects}
    assert {"/opt/cache/libubus.so", "/opt/second/libuci.so"} <= loaded
    assert "/opt/glibc/libubox.so" not in loaded
    assert not any("corrupt" in t.stderr for t in checked.traces.values())
    assert_agreement(checked)


def test_uclibc_glibc_cache_is_ignored(uclibc_root: Path, tmp_path: Path) -> None:
    """A glibc-format ld.so.cache (here: this host's own) is "corrupt" to uClibc and ignored."""
    root = derive(uclibc_root, tmp_path / "root")
    host_cache = Path("/etc/ld.so.cache")
    if not host_cache.is_file():
        subprocess.run(["ldconfig"], check=True)
    shutil.copy2(host_cache, root / "etc/ld.so.cache")
    checked = check_root(root, tmp_path / "work")
    assert all("is corrupt" in t.stderr for t in checked.traces.values())
    assert_agreement(checked)


# --------------------------------------------------------------------------- musl rules


def test_musl_path_file(musl_root: Path, tmp_path: Path) -> None:
    """musl reads ``/etc/ld-musl-$(LDSO_ARCH).path``; LDSO_ARCH is the loader's build name
    (``mips-sf`` here: soft-float), not only the ELF machine.  A path file listing only /usr/lib
    replaces the default /lib:/usr/local/lib:/usr/lib, so the libraries in /lib go missing."""
    root = derive(musl_root, tmp_path / "root")
    (root / "etc/ld-musl-mips-sf.path").write_text("/usr/lib\n")
    checked = check_root(root, tmp_path / "work", libraries=True)
    assert any("libgcc_s.so.1" in t.missing for t in checked.traces.values())
    assert_agreement(checked)


def test_musl_reserved_names(musl_root: Path, tmp_path: Path) -> None:
    """``lib`` + c/pthread/rt/m/dl/util/xnet + ``.`` is the loader itself, whatever file has that
    name; the loader joins the list where the first such name is met.  ubus gets NEEDED
    ``libm.so.6`` (a decoy libm.so.6 is in /lib) in place of libgcc_s.so.1, which moves the
    loader up before libubus.so's dependencies."""
    root = derive(musl_root, tmp_path / "root")
    shutil.copy2(root / "lib/libubox.so", root / "lib/libm.so.6")
    patch_dynstr(root / "bin/ubus", "libgcc_s.so.1", "libm.so.6")
    checked = check_root(root, tmp_path / "work")
    trace = checked.traces["/bin/ubus"]
    assert "/lib/libm.so.6" not in trace.objects
    assert dict(trace.entries)["libm.so.6"] == "/lib/ld-musl-mips-sf.so.1", trace.describe()
    assert_agreement(checked)


def test_musl_library_symlinked_to_libc(musl_root: Path, tmp_path: Path) -> None:
    """libgcc_s.so.1 as a symlink to libc.so (the loader's own file).  musl 1.1.16 keeps no
    st_dev/st_ino for itself and has no "two libcs" check yet (1.1.17+), so it maps the file a
    second time as libgcc_s.so.1, at that place in the list; linkgraph has one object per file
    and puts the loader's file there, which is the same list of files in the same order (the
    loader's own entry, met later as libc.so, is the same file).  What libgcc_s provided is
    then missing: the relocation errors must match too."""
    root = derive(musl_root, tmp_path / "root")
    (root / "lib/libgcc_s.so.1").unlink()
    (root / "lib/libgcc_s.so.1").symlink_to("libc.so")
    checked = check_root(root, tmp_path / "work", libraries=True)
    ubus = checked.traces["/bin/ubus"]
    assert dict(ubus.entries)["libgcc_s.so.1"] == "/lib/libgcc_s.so.1", ubus.describe()
    assert any(t.unresolved for t in checked.traces.values() if t.executable in checked.executables)
    assert_agreement(checked)


def test_musl_mips_got_lookups_need_a_definition(musl_root: Path, tmp_path: Path) -> None:
    """On MIPS the global GOT entries are relocated without relocation records; musl handles each
    as an ``R_MIPS_JUMP_SLOT`` (``do_mips_relocs``), so the lookup needs a real definition and
    skips a program's undefined ``STO_MIPS_PLT`` entry (a canonical PLT address), unlike
    glibc's MIPS GOT lookups (class ``R_MIPS_32``).  libjson_script.so's GOT entry for
    ``avl_strcmp`` binds to libubox.so, not to /sbin/init's PLT entry of the same name: with
    libubox's definition renamed away (the first letter: the string's tail is libubox's
    ``strcmp``), musl reports the reference of libjson_script.so (and of init) as undefined;
    had it bound to init's entry, only init's would be."""
    root = derive(musl_root, tmp_path / "root")
    patch_dynstr(root / "lib/libubox.so", "avl_strcmp", "Xvl_strcmp")
    checked = check_root(root, tmp_path / "work")
    init = checked.traces["/sbin/init"]
    assert ("/lib/libjson_script.so", "avl_strcmp") in init.unresolved, init.describe()
    assert_agreement(checked)


def test_musl_ignores_abi_flags(musl_root: Path, tmp_path: Path) -> None:
    """musl's ``map_library`` checks only ``e_type``: a library whose ``e_flags`` claim another ABI
    (here MIPS n32, which glibc's ``elf_machine_matches_host`` would skip) is loaded all the same."""
    root = derive(musl_root, tmp_path / "root")
    lib = root / "lib/libubox.so"
    data = bytearray(lib.read_bytes())
    flags = struct.unpack_from(">I", data, 36)[0]
    struct.pack_into(">I", data, 36, flags | 0x20)  # EF_MIPS_ABI2
    lib.write_bytes(bytes(data))
    checked = check_root(root, tmp_path / "work")
    assert any("/lib/libubox.so" in t.objects for t in checked.traces.values())
    assert_agreement(checked)
