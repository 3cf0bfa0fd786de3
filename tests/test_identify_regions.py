"""The bytes the identification reads (loader/identify/regions.py), against GNU readelf's section
table: the allocated, not executable PROGBITS sections less those that hold no text; the whole
file when the section headers cannot be used, whatever they claim."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from linkgraph.loader.identify.regions import NO_TEXT, string_ranges

PROBE = b"linkgraph-region-probe 1.2.3"
SOURCE = r"""
#include <stdio.h>
static const char *const table[] = {"linkgraph-region-probe 1.2.3", "second"};
int main(int argc, char **argv) { puts(table[argc > 1]); return 0; }
"""
SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*)\s+\d+", re.M)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("regions")
    (work / "probe.c").write_text(SOURCE)
    out = work / "probe"
    subprocess.run(["gcc", "-O1", "-fPIE", "-pie", "-o", str(out), str(work / "probe.c")], check=True)
    return out


def readelf_ranges(path: Path) -> tuple[list[tuple[int, int]], set[str]]:
    """(offset, size) of the sections the identification should read, by readelf; the names seen."""
    table = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True, check=True).stdout
    wanted, names = [], set()
    for name, kind, offset, size, flags in SECTION.findall(table):
        names.add(name)
        data = kind == "PROGBITS" and "A" in flags and "X" not in flags and int(size, 16)
        if data and name.encode() not in NO_TEXT:
            wanted.append((int(offset, 16), int(size, 16)))
    return sorted(wanted), names


def ranges(path: Path) -> list[tuple[int, int]]:
    with path.open("rb") as fh:
        return string_ranges(fh, path.stat().st_size)


def test_data_sections_as_readelf_lists_them_less_those_without_text(program: Path) -> None:
    wanted, names = readelf_ranges(program)
    assert {".rodata", ".eh_frame", ".data.rel.ro"} <= names  # the probe has sections of both kinds
    assert {b".eh_frame", b".data.rel.ro"} <= NO_TEXT
    assert ranges(program) == wanted
    data = program.read_bytes()
    at = data.index(PROBE)
    assert any(start <= at < start + size for start, size in wanted)


def _patched(program: Path, dest: Path, field: str, value: int) -> Path:
    """A copy of the 64-bit little-endian ``program`` with one ELF header field set to ``value``."""
    shutil.copy(program, dest)
    where = {"e_shoff": (0x28, "<Q"), "e_shnum": (0x3C, "<H"), "e_shstrndx": (0x3E, "<H")}[field]
    with dest.open("r+b") as fh:
        fh.seek(where[0])
        fh.write(struct.pack(where[1], value))
    return dest


def test_unusable_section_headers_mean_the_whole_file(program: Path, tmp_path: Path) -> None:
    assert program.read_bytes()[4:6] == b"\x02\x01", "the host's gcc builds 64-bit little-endian ELF"
    size = program.stat().st_size
    beyond = _patched(program, tmp_path / "beyond", "e_shoff", size + 4096)
    assert ranges(beyond) == [(0, size)]
    many = _patched(program, tmp_path / "many", "e_shnum", 0xFFFF)
    assert ranges(many) == [(0, size)]


def test_a_bad_name_table_index_reads_every_data_section(program: Path, tmp_path: Path) -> None:
    """Without section names nothing is left out: more bytes read, no string missed."""
    nameless = _patched(program, tmp_path / "nameless", "e_shstrndx", 0xFFF0)
    table = subprocess.run(["readelf", "-SW", str(program)], capture_output=True, text=True, check=True).stdout
    every = sorted(
        (int(offset, 16), int(size, 16))
        for _name, kind, offset, size, flags in SECTION.findall(table)
        if kind == "PROGBITS" and "A" in flags and "X" not in flags and int(size, 16)
    )
    assert ranges(nameless) == every
    assert len(every) > len(readelf_ranges(program)[0])
