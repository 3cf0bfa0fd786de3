"""read_elf_facts against GNU readelf / pyelftools on host files, sstrip-ed copies, gcc-built and
hand-built (MIPS, big-endian, 32-bit) images, and corrupt input."""

from __future__ import annotations

import dataclasses
import io
import os
import random
import re
import struct
import subprocess
import time
from functools import cache
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from linkgraph.loader.elf.facts import is_elf, read_elf_facts
from linkgraph.loader.errors import ElfError
from linkgraph.loader.model import SHN_ABS, ElfFacts, Kind, RelocClass
from support.elf_builder import BASE, DT_MIPS_GOTSYM, DT_MIPS_SYMTABNO, EM_MIPS, MIPS_SYMS, build_elf

LIBDIR = "/usr/lib/x86_64-linux-gnu"
MUST = [f"{LIBDIR}/libc.so.6", f"{LIBDIR}/libstdc++.so.6", f"{LIBDIR}/ld-linux-x86-64.so.2"]


def _dynamic_elf(path: str) -> bool:
    """Judged by pyelftools (an independent parser): an ET_EXEC/ET_DYN with a PT_DYNAMIC."""
    with open(path, "rb") as fh:
        if not is_elf(fh.read(4)):
            return False
        fh.seek(0)
        elf = ELFFile(fh)
        return elf.header.e_type in ("ET_EXEC", "ET_DYN") and any(
            seg.header.p_type == "PT_DYNAMIC" for seg in elf.iter_segments()
        )


def _glibc_versioned(path: str) -> bool:
    """Linked against glibc with symbol versions (readelf says so), as the checks below expect;
    static-pie programs such as qemu-*-static have a dynamic section but no versions."""
    out = subprocess.run(["readelf", "-W", "-d", path], capture_output=True, text=True).stdout
    return "(VERSYM)" in out and "(VERNEED)" in out


def _sample(directory: str, wanted: int) -> list[str]:
    names = sorted(n for n in os.listdir(directory) if os.path.isfile(os.path.join(directory, n)))
    step = max(1, len(names) // (wanted * 3))
    picked: list[str] = []
    for name in names[::step]:
        path = os.path.join(directory, name)
        if path not in MUST and not os.path.islink(path) and _dynamic_elf(path) and _glibc_versioned(path):
            picked.append(path)
            if len(picked) == wanted:
                break
    return picked


SAMPLE = MUST + _sample("/usr/bin", 14) + _sample(LIBDIR, 13)


@cache
def facts_of(path: str) -> ElfFacts:
    return read_elf_facts(Path(path).read_bytes(), path)


def readelf(*args: str) -> str:
    return subprocess.run(
        ["readelf", *args], check=True, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}
    ).stdout


# ---------------------------------------------------------------- comparison with readelf

TYPES = {"NOTYPE": 0, "OBJECT": 1, "FUNC": 2, "SECTION": 3, "FILE": 4, "COMMON": 5, "TLS": 6, "IFUNC": 10}
BINDS = {"LOCAL": 0, "GLOBAL": 1, "WEAK": 2, "UNIQUE": 10}
VIS = {"DEFAULT": 0, "INTERNAL": 1, "HIDDEN": 2, "PROTECTED": 3}
NDX = {"UND": 0, "ABS": 0xFFF1, "COM": 0xFFF2}
# readelf prints STB_GNU_UNIQUE as "<OS specific>: 10" when EI_OSABI is not GNU.
SYM_ROW = re.compile(
    r"^\s*(\d+): ([0-9a-f]+)\s+(?:\d+|0x[0-9a-f]+) (\w+)\s+(\w+|<OS specific>: \d+)\s+(\w+)\s+(\w+) ?(.*)$"
)
VERSIONED = re.compile(r"^(.+?)(@@?)([^@ ]+)(?: \((\d+)\))?$")
X86_64_PLT = {
    "R_X86_64_JUMP_SLOT",
    "R_X86_64_DTPMOD64",
    "R_X86_64_DTPOFF64",
    "R_X86_64_TPOFF64",
    "R_X86_64_TLSDESC",
}  # glibc's elf_machine_type_class: JUMP_SLOT and TLS are PLT


def readelf_symbols(path: str) -> list[tuple]:
    out = readelf("-W", "--dyn-syms", path)
    header = re.search(r"Symbol table '\.dynsym' contains (\d+) entries", out)
    rows = [SYM_ROW.match(line) for line in out.splitlines()]
    rows = [m.groups() for m in rows if m]
    assert header is None or int(header.group(1)) == len(rows)
    return rows


def expected_name(sym) -> str:
    """How readelf -W --dyn-syms prints a symbol's name with its version."""
    if sym.version is None:
        return sym.name
    if sym.version_file is not None:  # a requirement (verneed), even for a copy-relocated definition
        return f"{sym.name}@{sym.version} ({sym.version_index})"
    if sym.shndx == SHN_ABS and sym.name == sym.version:  # the version's own definition symbol
        return sym.name
    return f"{sym.name}{'@' if sym.version_hidden else '@@'}{sym.version}"


@pytest.mark.parametrize("path", SAMPLE)
def test_symbols_match_readelf(path: str) -> None:
    facts = facts_of(path)
    rows = readelf_symbols(path)
    assert len(facts.symbols) == len(rows) > 0
    for sym, (num, value, typ, bind, vis, ndx, name) in zip(facts.symbols, rows, strict=True):
        where = f"{path} symbol {num}"
        assert (sym.value, sym.type, sym.bind, sym.visibility) == (
            int(value, 16),
            TYPES[typ],
            BINDS[bind] if bind in BINDS else int(bind.rpartition(" ")[2]),
            VIS[vis],
        ), where
        assert sym.shndx == (NDX[ndx] if ndx in NDX else int(ndx)), where
        assert sym.defined == (ndx != "UND"), where
        assert expected_name(sym) == name, where
    # Versions are really there for these glibc-linked files.
    assert facts.has_versym
    assert any(s.version and s.version.startswith(("GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_")) for s in facts.symbols)
    undefined = [s for s in facts.symbols if s.version and not s.defined]
    assert all(s.version_file for s in undefined)


def test_readelf_version_parse_is_strict() -> None:
    # The name column of a versioned symbol must be parsed exactly, not loosely.
    assert VERSIONED.match("free@GLIBC_2.2.5 (2)").groups() == ("free", "@", "GLIBC_2.2.5", "2")
    libc = facts_of(MUST[0])
    hidden = [s for s in libc.symbols if s.defined and s.version_hidden]
    default = [s for s in libc.symbols if s.defined and not s.version_hidden and s.version]
    assert hidden and default  # libc has compat (hidden) and default versions
    assert {s.version_index for s in hidden} & {s.version_index for s in default}


@pytest.mark.parametrize("path", SAMPLE)
def test_dynamic_tags_match_readelf_and_pyelftools(path: str) -> None:
    facts = facts_of(path)
    out = readelf("-d", path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[(.*)\]", out)
    rpath = re.findall(r"\(RPATH\)\s+Library rpath: \[(.*)\]", out)
    runpath = re.findall(r"\(RUNPATH\)\s+Library runpath: \[(.*)\]", out)
    assert facts.needed == needed
    assert facts.soname == (soname[0] if soname else None)
    assert facts.rpath == ([p for p in rpath[0].split(":") if p] if rpath else None)
    assert facts.runpath == ([p for p in runpath[0].split(":") if p] if runpath else None)
    assert facts.symbolic == ("(SYMBOLIC)" in out or bool(facts.dt_flags & 2))

    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        tags = {t.entry.d_tag: t.entry.d_val for t in elf.get_section_by_name(".dynamic").iter_tags()}
        interp = [s for s in elf.iter_segments() if s.header.p_type == "PT_INTERP"]
        assert facts.dt_flags == tags.get("DT_FLAGS", 0)
        assert facts.dt_flags_1 == tags.get("DT_FLAGS_1", 0)
        assert facts.interpreter == (interp[0].get_interp_name() if interp else None)
        assert (facts.machine, facts.osabi, facts.elf_type, facts.flags) == (
            elf.header.e_machine,
            elf.header.e_ident.EI_OSABI,
            elf.header.e_type,
            elf.header.e_flags,
        )
        assert (facts.elf_class, facts.endian) == (elf.elfclass, "little" if elf.little_endian else "big")
        assert facts.dynamic
    if facts.dt_flags_1 & 0x08000000 or facts.elf_type == "ET_EXEC":
        assert facts.kind is Kind.EXECUTABLE
    elif facts.soname:
        assert facts.kind is Kind.LIBRARY


def readelf_references(path: str) -> list[tuple[int, RelocClass]]:
    """(symbol index, class) per symbol in order of first appearance, from readelf -W -r: one entry
    for each class of relocation naming the symbol (COPY, then NORMAL, then PLT)."""
    folded: dict[int, set[str]] = {}
    for m in re.finditer(r"^[0-9a-f]{16}\s+([0-9a-f]{16}) (R_X86_64_\w+)", readelf("-W", "-r", path), re.M):
        sym = int(m.group(1), 16) >> 32
        if sym:
            folded.setdefault(sym, set()).add(m.group(2))
    result = []
    for sym, types in folded.items():
        if "R_X86_64_COPY" in types:
            result.append((sym, RelocClass.COPY))
        if types - X86_64_PLT - {"R_X86_64_COPY"}:
            result.append((sym, RelocClass.NORMAL))
        if types & X86_64_PLT:
            result.append((sym, RelocClass.PLT))
    return result


@pytest.mark.parametrize("path", SAMPLE)
def test_references_match_readelf(path: str) -> None:
    facts = facts_of(path)
    expected = readelf_references(path)
    assert expected
    assert [(r.symbol_index, r.reloc_class) for r in facts.references] == expected


def test_reference_classes_seen_on_host() -> None:
    classes = {r.reloc_class for p in SAMPLE for r in facts_of(p).references}
    assert classes == {RelocClass.NORMAL, RelocClass.PLT, RelocClass.COPY}


def test_kinds_of_the_system_libraries() -> None:
    libc, ldso = facts_of(MUST[0]), facts_of(MUST[2])
    assert libc.kind is Kind.LIBRARY and libc.soname == "libc.so.6" and libc.interpreter  # has PT_INTERP
    assert ldso.kind is Kind.LIBRARY and ldso.needed == []
    assert facts_of("/usr/bin/ls").kind is Kind.EXECUTABLE


# ---------------------------------------------------------------- sstrip-ed copies


def sstrip(data: bytes) -> bytes:
    """Drop the section headers like sstrip: zero e_shoff/e_shnum/e_shstrndx, cut after the last PT_LOAD."""
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    phoff, phentsize, phnum = (
        struct.unpack_from(e + "Q14xHH", data, 0x20) if is64 else struct.unpack_from(e + "I10xHH", data, 0x1C)
    )
    end = 0
    for i in range(phnum):
        pos = phoff + i * phentsize
        if is64:
            p_type, _, offset, _, _, filesz = struct.unpack_from(e + "IIQQQQ", data, pos)
        else:
            p_type, offset, _, _, filesz = struct.unpack_from(e + "IIIII", data, pos)
        if p_type == 1:
            end = max(end, offset + filesz)
    out = bytearray(data[:end])
    if is64:
        struct.pack_into(e + "Q", out, 0x28, 0)
        struct.pack_into(e + "HH", out, 0x3C, 0, 0)
    else:
        struct.pack_into(e + "I", out, 0x20, 0)
        struct.pack_into(e + "HH", out, 0x30, 0, 0)
    return bytes(out)


def comparable(facts: ElfFacts) -> dict:
    fields = dataclasses.asdict(facts)
    for name in ("path", "size", "sha256", "sha1"):
        del fields[name]
    return fields


@pytest.mark.parametrize("path", SAMPLE)
def test_sstripped_copy_gives_same_facts(path: str) -> None:
    data = Path(path).read_bytes()
    stripped = sstrip(data)
    elf = ELFFile(io.BytesIO(stripped))
    assert elf.num_sections() == 0 and elf.header.e_shoff == 0
    assert len(stripped) < len(data)
    facts = read_elf_facts(stripped, path)
    assert facts.size == len(stripped)
    assert comparable(facts) == comparable(facts_of(path))


# ---------------------------------------------------------------- objects built with gcc

LIB_C = """
int foo_v1(void) { return 1; }
int foo_v2(void) { return 2; }
__asm__(".symver foo_v1,foo@V1");
__asm__(".symver foo_v2,foo@@V2");
int bar(void) { return 3; }
int data_obj = 42;
__thread int tls_obj = 7;
"""
VER_MAP = "V1 { global: bar; data_obj; tls_obj; foo; local: *; };\nV2 { global: foo; } V1;\n"
MAIN_C = """
extern int foo(void); extern int bar(void); extern int data_obj; extern __thread int tls_obj;
int main(void) { return foo() + bar() + data_obj + tls_obj; }
"""
MODULE_C = """
static const char a[] __attribute__((section(".modinfo"), used)) = "license=GPL";
static const char b[] __attribute__((section(".modinfo"), used)) = "depends=usbcore,cfg80211";
static const char c[] __attribute__((section(".modinfo"), used)) = "alias=usb:v0BDAp8179*";
static const char d[] __attribute__((section(".modinfo"), used)) = "alias=usb:v0BDAp0179*";
int init_module(void) { return 0; }
"""


def gcc(cwd: Path, *args: str) -> None:
    subprocess.run(["gcc", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("gcc")
    (d / "lib.c").write_text(LIB_C)
    (d / "ver.map").write_text(VER_MAP)
    (d / "main.c").write_text(MAIN_C)
    (d / "mod.c").write_text(MODULE_C)
    gcc(
        d,
        "-shared",
        "-fPIC",
        "-o",
        "libdemo.so.1",
        "lib.c",
        "-Wl,--version-script=ver.map",
        "-Wl,-soname,libdemo.so.1",
        "-Wl,-Bsymbolic",
        "-Wl,--disable-new-dtags",
        "-Wl,-rpath,/opt/a::/opt/b",
        "-Wl,--hash-style=sysv",
    )
    gcc(
        d,
        "-fno-pic",
        "-no-pie",
        "-o",
        "prog",
        "main.c",
        "-L.",
        "-l:libdemo.so.1",
        "-Wl,--enable-new-dtags",
        "-Wl,-rpath,/opt/x:/opt/y",
        "-Wl,-z,nodefaultlib",
    )
    gcc(d, "-fPIE", "-pie", "-o", "prog_pie", "main.c", "-L.", "-l:libdemo.so.1", "-Wl,--hash-style=gnu")
    gcc(d, "-c", "-o", "demo.ko", "mod.c")
    gcc(d, "-c", "-o", "plain.o", "main.c")
    return d


def load(path: Path, device_path: str | None = None) -> ElfFacts:
    return read_elf_facts(path.read_bytes(), device_path or f"/{path.name}")


def test_gcc_library(built: Path) -> None:
    lib = load(built / "libdemo.so.1", "/usr/lib/libdemo.so.1")
    assert lib.kind is Kind.LIBRARY and lib.soname == "libdemo.so.1" and lib.interpreter is None
    assert lib.rpath == ["/opt/a", "/opt/b"] and lib.runpath is None  # empty entry dropped
    assert lib.symbolic and not lib.nodeflib and lib.has_versym
    foo = {(s.version, s.version_hidden, s.version_index) for s in lib.symbols if s.name == "foo"}
    assert foo == {("V1", True, 2), ("V2", False, 3)}
    assert all(s.defined and s.version_file is None for s in lib.symbols if s.name == "foo")
    bar = next(s for s in lib.symbols if s.name == "bar")
    assert (bar.version, bar.version_hidden, bar.type, bar.bind) == ("V1", False, 2, 1)
    assert next(s for s in lib.symbols if s.name == "tls_obj").type == 6
    assert len(lib.symbols) == len(readelf_symbols(str(built / "libdemo.so.1")))  # DT_HASH count
    assert [(r.symbol_index, r.reloc_class) for r in lib.references] == readelf_references(str(built / "libdemo.so.1"))


@pytest.mark.parametrize("name", ["prog", "prog_pie"])
def test_gcc_program(built: Path, name: str) -> None:
    prog = load(built / name)
    assert prog.kind is Kind.EXECUTABLE and prog.elf_type == ("ET_EXEC" if name == "prog" else "ET_DYN")
    assert prog.needed == ["libdemo.so.1", "libc.so.6"] and prog.soname is None and prog.rpath is None
    assert prog.interpreter == "/lib64/ld-linux-x86-64.so.2"
    if name == "prog":
        assert prog.runpath == ["/opt/x", "/opt/y"] and prog.nodeflib and not prog.symbolic
    else:
        assert prog.runpath is None and not prog.nodeflib and prog.dt_flags_1 & 0x08000000
    by_name = {s.name: s for s in prog.symbols}
    assert (by_name["foo"].version, by_name["foo"].version_file, by_name["foo"].defined) == (
        "V2",
        "libdemo.so.1",
        False,
    )
    assert (by_name["bar"].version, by_name["bar"].version_file) == ("V1", "libdemo.so.1")
    assert by_name["data_obj"].defined  # the copy in the executable's .bss
    classes = {prog.symbols[r.symbol_index].name: r.reloc_class for r in prog.references}
    assert classes["data_obj"] is RelocClass.COPY
    assert classes["foo"] is RelocClass.PLT and classes["bar"] is RelocClass.PLT
    assert classes["tls_obj"] is RelocClass.PLT  # R_X86_64_TPOFF64: PLT class as in glibc
    assert [(r.symbol_index, r.reloc_class) for r in prog.references] == readelf_references(str(built / name))
    assert comparable(read_elf_facts(sstrip((built / name).read_bytes()), "/x")) == comparable(prog)


def test_kernel_module_and_relocatable(built: Path) -> None:
    module = load(built / "demo.ko", "/lib/modules/6.1/demo.ko")
    assert module.kind is Kind.KERNEL_MODULE and module.elf_type == "ET_REL" and not module.dynamic
    assert module.modinfo == {
        "license": "GPL",
        "depends": "usbcore,cfg80211",
        "alias": "usb:v0BDAp8179*\nusb:v0BDAp0179*",
    }
    plain = load(built / "plain.o", "/usr/lib/plain.o")
    assert plain.kind is Kind.OTHER_ELF and plain.modinfo == {}
    assert load(built / "plain.o", "/lib/modules/x.ko").kind is Kind.KERNEL_MODULE  # by name


# ---------------------------------------------------------------- hand-built images (support/elf_builder.py)


@pytest.mark.parametrize("little", [True, False], ids=["mips64el", "mips64"])
def test_mips64_relocation_info_and_global_got(little: bool) -> None:
    data = build_elf(
        is64=True,
        little=little,
        machine=EM_MIPS,
        symbols=MIPS_SYMS,
        rela=False,
        relocs=[(1, 126), (3, 3), (4, 3)],
        jmprel=[(2, 127)],
        mips64_info=True,
        tags=[(DT_MIPS_GOTSYM, 4), (DT_MIPS_SYMTABNO, 7), (14, 1)],
    )
    facts = read_elf_facts(data, "/lib/libm64.so")
    assert (facts.machine, facts.elf_class, facts.endian) == ("EM_MIPS", 64, "little" if little else "big")
    assert [s.name for s in facts.symbols] == ["", *[s[0] for s in MIPS_SYMS]]
    assert [s.mips_plt for s in facts.symbols] == [False, False, True, False, False, False, False]
    # 1 COPY, 3 and 4 NORMAL (4 also in the GOT), 2 PLT, 5 from the GOT only, 6 is STT_SECTION.
    assert [(r.symbol_index, r.reloc_class) for r in facts.references] == [
        (1, RelocClass.COPY),
        (3, RelocClass.NORMAL),
        (4, RelocClass.NORMAL),
        (2, RelocClass.PLT),
        (5, RelocClass.NORMAL),
    ]


def test_mips32_big_endian_rel_and_got() -> None:
    data = build_elf(
        is64=False,
        little=False,
        machine=EM_MIPS,
        symbols=MIPS_SYMS[:5],
        rela=False,
        relocs=[(1, 126)],
        tags=[(DT_MIPS_GOTSYM, 2), (DT_MIPS_SYMTABNO, 6)],
        e_flags=0x70001007,
    )
    facts = read_elf_facts(data, "/bin/mips")
    assert (facts.elf_class, facts.endian, facts.flags, facts.kind) == (32, "big", 0x70001007, Kind.LIBRARY)
    assert [s.value for s in facts.symbols] == [0, 0x100, 0x200, 0, 0x300, 0]
    assert facts.symbols[2].mips_plt and facts.symbols[1].shndx == 5
    assert [(r.symbol_index, r.reloc_class) for r in facts.references] == [
        (1, RelocClass.COPY),
        (2, RelocClass.NORMAL),
        (3, RelocClass.NORMAL),
        (4, RelocClass.NORMAL),
        (5, RelocClass.NORMAL),
    ]


@pytest.mark.parametrize(
    ("machine", "is64", "little", "copy", "slot"),
    [
        (40, False, True, 20, 22),  # ARM
        (183, True, True, 1024, 1026),  # AArch64
        (20, False, False, 19, 21),  # PowerPC
        (243, True, True, 4, 5),  # RISC-V 64
        (3, False, True, 5, 7),  # i386
        (43, True, False, 19, 21),  # SPARC V9: 64-bit big-endian r_info
    ],
)
@pytest.mark.parametrize("gnu_hash", [False, True], ids=["sysv-hash", "gnu-hash"])
def test_other_machines_copy_and_jump_slot(machine, is64, little, copy, slot, gnu_hash) -> None:
    syms = [(f"s{i}", 1, 2, 0, 0, 0) for i in range(1, 6)]
    data = build_elf(
        is64=is64,
        little=little,
        machine=machine,
        symbols=syms,
        rela=machine != 3,
        relocs=[(3, 1), (1, copy)],
        jmprel=[(2, slot), (3, slot), (4, slot)],
        gnu_hash=gnu_hash,
        tags=[(30, 0x2)],
    )
    facts = read_elf_facts(data, "/usr/lib/libx.so")
    assert len(facts.symbols) == 6 and facts.symbols[5].name == "s5"
    assert facts.symbolic and facts.dt_flags == 2  # DF_SYMBOLIC in DT_FLAGS
    assert [(r.symbol_index, r.reloc_class) for r in facts.references] == [
        (3, RelocClass.NORMAL),
        (3, RelocClass.PLT),  # named by a data and a PLT relocation: looked up once for each
        (1, RelocClass.COPY),
        (2, RelocClass.PLT),
        (4, RelocClass.PLT),
    ]


# ---------------------------------------------------------------- corrupt input

LS = "/usr/bin/ls"


def loads_end(data: bytes) -> int:
    return len(sstrip(data))


@pytest.mark.parametrize("length", [0, 3, 4, 10, 17, 40, 63, 64, 100, 500, 1000, 4096, 20000, "half", "end-1"])
def test_truncated_file_raises(length) -> None:
    data = Path(LS).read_bytes()
    end = loads_end(data)
    cut = {"half": end // 2, "end-1": end - 1}.get(length, length)
    with pytest.raises(ElfError):
        read_elf_facts(data[:cut], LS)


def test_truncated_after_loads_is_still_readable() -> None:
    data = Path(LS).read_bytes()  # only the section headers are lost: the loader does not need them
    truncated = comparable(read_elf_facts(data[: loads_end(data)], LS))
    assert [code for code, _ in truncated.pop("anomalies")] == ["section-headers-disagree"]
    clean = comparable(facts_of(LS))
    assert clean.pop("anomalies") == []
    assert truncated == clean


@pytest.mark.parametrize("seed", range(12))
def test_random_bytes_after_magic_raise(seed: int) -> None:
    rng = random.Random(seed)
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 600)))
    if seed % 2:  # valid class and byte order, random header fields
        body = bytes([1 + seed % 4 // 2, 1 + seed % 3 % 2, 1, 0]) + body
    with pytest.raises(ElfError):
        read_elf_facts(b"\x7fELF" + body, "/random")


def patch_phdr(data: bytes, p_type: int, **fields: int) -> bytes:
    """Rewrite offset / filesz of the first program header of p_type in an ELF64 LE file."""
    out = bytearray(data)
    phoff, phentsize, phnum = struct.unpack_from("<Q14xHH", data, 0x20)
    for i in range(phnum):
        pos = phoff + i * phentsize
        if struct.unpack_from("<I", data, pos)[0] == p_type:
            for name, value in fields.items():
                struct.pack_into("<Q", out, pos + {"offset": 8, "filesz": 32}[name], value)
            return bytes(out)
    raise AssertionError(f"no segment of type {p_type}")


def patch_dynamic(data: bytes, tag: int, value: int) -> bytes:
    facts_elf = ELFFile(io.BytesIO(data))
    dyn = next(s for s in facts_elf.iter_segments() if s.header.p_type == "PT_DYNAMIC").header.p_offset
    out = bytearray(data)
    for pos in range(dyn, len(data), 16):
        t, _ = struct.unpack_from("<QQ", data, pos)
        if t == tag:
            struct.pack_into("<Q", out, pos + 8, value)
            return bytes(out)
        if t == 0:
            break
    raise AssertionError(f"no tag {tag}")


@pytest.mark.parametrize(
    ("label", "mutate"),
    [
        ("load past EOF", lambda d: patch_phdr(d, 1, filesz=len(d) * 2)),
        ("interp past EOF", lambda d: patch_phdr(d, 3, offset=len(d) - 2)),
        ("strtab outside loads", lambda d: patch_dynamic(d, 5, 0x7FFF_0000_0000)),
        ("needed outside strtab", lambda d: patch_dynamic(d, 1, 1 << 30)),
        ("symtab outside loads", lambda d: patch_dynamic(d, 6, 0x10)),
        ("gnu hash outside loads", lambda d: patch_dynamic(d, 0x6FFFFEF5, 1 << 50)),
        ("relocations past EOF", lambda d: patch_dynamic(d, 8, 1 << 33)),
        ("versym outside loads", lambda d: patch_dynamic(d, 0x6FFFFFF0, 1 << 45)),
        ("verneed outside loads", lambda d: patch_dynamic(d, 0x6FFFFFFE, 1 << 45)),
    ],
)
def test_corrupt_dynamic_data_raises(label: str, mutate) -> None:
    with pytest.raises(ElfError, match="ls"):
        read_elf_facts(mutate(Path(LS).read_bytes()), LS)


@pytest.mark.parametrize(
    ("label", "mutate", "codes"),
    [
        ("dynamic past EOF", lambda d: patch_phdr(d, 2, offset=len(d) + 100), ["dynamic-offset-mismatch"]),
        ("dynamic too long", lambda d: patch_phdr(d, 2, filesz=len(d)), []),
        ("dynamic too short", lambda d: patch_phdr(d, 2, filesz=16), ["dynamic-size-mismatch"]),
        ("strsz huge", lambda d: patch_dynamic(d, 10, 1 << 40), []),
        ("strsz too small", lambda d: patch_dynamic(d, 10, 1), ["strtab-size-mismatch"]),
        ("small syment", lambda d: patch_dynamic(d, 11, 4), ["entry-size-mismatch"]),
        ("huge syment", lambda d: patch_dynamic(d, 11, 1 << 33), ["entry-size-mismatch"]),
        ("huge relaent", lambda d: patch_dynamic(d, 9, 0x7FFF_FFFF), ["entry-size-mismatch"]),
    ],
)
def test_file_level_fields_the_loader_ignores(label: str, mutate, codes: list[str]) -> None:
    """The loaders read PT_DYNAMIC at its p_vaddr up to DT_NULL and strings up to their NUL:
    a wrong p_offset, p_filesz or DT_STRSZ changes nothing they see, and is reported."""
    clean = read_elf_facts(Path(LS).read_bytes(), LS)
    facts = read_elf_facts(mutate(Path(LS).read_bytes()), LS)
    assert [c.value for c, _ in facts.anomalies] == codes
    assert (facts.needed, facts.soname, len(facts.symbols), len(facts.references)) == (
        clean.needed,
        clean.soname,
        len(clean.symbols),
        len(clean.references),
    )


def test_absurd_counts_fail_fast() -> None:
    syms = [(f"s{i}", 1, 2, 0, 0, 0) for i in range(1, 4)]
    data = bytearray(build_elf(symbols=syms))
    assert [s.name for s in read_elf_facts(bytes(data), "/l").symbols] == ["", "s1", "s2", "s3"]
    # DT_HASH nchain = 2**32-1: capped at what fits in the file; the entries past the real table
    # are the hash and dynamic tables read as symbols, whose names point outside DT_STRTAB.
    hash_pos = data.index(struct.pack("<4I", 1, 4, 0, 0))
    struct.pack_into("<I", data, hash_pos + 4, 0xFFFFFFFF)
    started = time.perf_counter()
    with pytest.raises(ElfError, match=r"symbol name offset .* outside the dynamic string table"):
        read_elf_facts(bytes(data), "/l")
    # DT_GNU_HASH whose bucket names a symbol far past the end of the file.
    gnu = bytearray(build_elf(symbols=syms, gnu_hash=True))
    assert len(read_elf_facts(bytes(gnu), "/g").symbols) == 4
    bucket = gnu.index(struct.pack("<4IQ", 1, 1, 1, 0, 0)) + 24
    assert struct.unpack_from("<I", gnu, bucket)[0] == 1
    struct.pack_into("<I", gnu, bucket, 0x7FFFFFFF)
    with pytest.raises(ElfError, match="DT_GNU_HASH chain extends past the end"):
        read_elf_facts(bytes(gnu), "/g")
    assert time.perf_counter() - started < 2


def test_bit_flips_only_ever_raise_elf_error(built: Path) -> None:
    original = (built / "prog").read_bytes()
    rng = random.Random(1234)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        data = bytearray(original)
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(0, 0x1000)] = rng.randrange(256)
        message = ""
        try:
            read_elf_facts(bytes(data), "/fuzz")
        except ElfError as exc:
            message = str(exc) or "?"
        assert "\n" not in message
        outcomes["error" if message else "ok"] += 1
    assert outcomes["ok"] and outcomes["error"]


def test_non_ascii_names_are_kept_byte_exact() -> None:
    names = ["caf\u00e9", "bad\udcff\udcfe", "plain"]  # UTF-8, then invalid bytes (surrogateescape)
    data = build_elf(symbols=[(n, 1, 2, 0, 0, 0) for n in names], tags=[(1, 1)])  # DT_NEEDED "caf\u00e9"
    facts = read_elf_facts(data, "/l")
    assert [s.name for s in facts.symbols] == ["", *names]
    assert facts.needed == ["caf\u00e9"]
    assert facts.symbols[2].name.encode("utf-8", "surrogateescape") == b"bad\xff\xfe"


def test_is_elf() -> None:
    assert is_elf(b"\x7fELF\x02\x01") and is_elf(b"\x7fELF")
    assert not is_elf(b"\x7fEL") and not is_elf(b"#!/bin/sh") and not is_elf(b"")


def test_empty_gnu_hash_table_does_not_hide_imports(tmp_path: Path) -> None:
    """binutils writes an empty GNU hash table for a PIE that exports nothing: the imports the
    relocations name still count (Debian's armhf/arm64 programs have no DT_HASH beside it)."""
    src = tmp_path / "main.c"
    src.write_text(
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) "
        "{ puts(v[0]); return abs(c) + atoi(v[0]); }\n"
    )
    exe = tmp_path / "main"
    subprocess.run(["gcc", "-pie", "-fPIE", "-Wl,--hash-style=gnu", "-o", exe, src], check=True)
    facts = read_elf_facts(exe.read_bytes(), "/usr/bin/main")
    assert len(facts.symbols) == len(readelf_symbols(str(exe)))
    names = {facts.symbols[r.symbol_index].name for r in facts.references}
    assert {"puts", "abs", "atoi"} <= names or {"puts", "atoi"} <= names


def test_verneed_chain_that_comes_back_is_read_once() -> None:
    """Records valid both as Elf_Verneed and as Elf_Vernaux, each pointing 16 bytes on, with
    DT_VERNEEDNUM and vn_cnt at their maximum: every record is read once (a visited set), not
    2**30 times."""
    syms = [("f", 1, 2, 0, 1, 0x1000)]
    tags = [(0x6FFFFFF0, 0), (0x6FFFFFFE, 0), (0x6FFFFFFF, 0x7FFF)]
    size = len(build_elf(symbols=syms, tags=tags))
    versym = BASE + size + (-size % 8)
    verneed = versym + 8
    data = bytearray(build_elf(symbols=syms, tags=[(0x6FFFFFF0, versym), (0x6FFFFFFE, verneed), (0x6FFFFFFF, 0x7FFF)]))
    assert len(data) == size
    data += bytes(-size % 8) + struct.pack("<4H", 1, 2, 0, 0)
    data += struct.pack("<HHIII", 1, 0x7FFF, 0, 0, 16) * 65536  # 1 MiB of records
    data = bytearray(patch_phdr(bytes(data), 1, filesz=len(data)))
    started = time.perf_counter()
    facts = read_elf_facts(bytes(data), "/lib/libloop.so")
    assert time.perf_counter() - started < 5
    assert [s.name for s in facts.symbols] == ["", "f"]
    assert [code.value for code, _ in facts.anomalies] == ["version-chain-overlap"]
