"""The runtime oracle reads a program's relocation slots where the loader reads them.

The loader finds the dynamic array at ``PT_DYNAMIC``'s ``p_vaddr`` in the loaded segments and never
looks at its ``p_offset`` or ``p_filesz``; vendor programs whose ``PT_DYNAMIC`` has a file size of 0
or shorter than its memory size run as any other. A copy of the TP-Link MR3020 root (uClibc 0.9.30,
MIPS big-endian) whose programs' ``PT_DYNAMIC`` ``p_filesz`` is set to 0 must give the oracle the
same bindings and the same number of slots per program as the original (its own loader judges
both), and linkgraph's scan must give the same bindings too (its ELF reader reads as the loader).

An oracle that reached a program's entry point but read none of its slots, where the program has
some, judged nothing there: ``slot_outcomes.check_not_blind`` fails then (and every agreement of
``test_runtime_agreement`` calls it).
"""

from __future__ import annotations

import dataclasses
import shutil
import struct
from pathlib import Path

import pytest
from conftest import scan_and_report
from support import qemu_oracle as qo
from support import runtime_oracle as ro
from support import slot_outcomes

pytestmark = pytest.mark.slow

IMAGE = "tplink-mr3020v1-3.17.2-"
PT_DYNAMIC = 2


def _zero_dynamic_filesz(path: Path) -> bool:
    """Set ``p_filesz`` of the file's ``PT_DYNAMIC`` to 0 (32-bit ELF); whether it had one."""
    data = bytearray(path.read_bytes())
    if data[:4] != b"\x7fELF" or data[4] != 1:
        return False
    e = "<" if data[5] == 1 else ">"
    phoff, phentsize, phnum = struct.unpack_from(e + "I", data, 28)[0], *struct.unpack_from(e + "HH", data, 42)
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from(e + "I", data, at)[0] == PT_DYNAMIC:
            struct.pack_into(e + "I", data, at + 16, 0)
            path.write_bytes(bytes(data))
            return True
    return False


def _bindings(report: dict, programs: list[str]) -> set[tuple]:
    return {
        (b["executable"], b["module"], b["symbol"], b["version"], b["provider"])
        for b in report["bindings"]
        if b["executable"] in programs
    }


def test_dynamic_read_through_its_address(tmp_path: Path) -> None:
    original = qo.extract_root(qo.firmware_image(IMAGE), tmp_path / "image")
    (tmp_path / "loader").mkdir()
    programs = qo.dynamic_executables(qo.DeviceLoader(original, tmp_path / "loader").elves)
    copy = tmp_path / "zeroed"
    shutil.copytree(original, copy, symlinks=True)
    zeroed = [p for p in programs if _zero_dynamic_filesz(copy / p.lstrip("/"))]
    assert len(zeroed) == len(programs) >= 20, (len(zeroed), len(programs))

    theirs = ro.runtime_bindings(original, programs, jobs=2)
    mine = ro.runtime_bindings(copy, programs, jobs=2)
    covered = [p for p in programs if theirs[p].covered]
    assert len(covered) >= 20, [theirs[p].describe() for p in programs if not theirs[p].covered]
    read = {p: mine[p].program_slots for p in covered}
    print(f"[{IMAGE}] p_filesz 0 in {len(zeroed)} programs; own slots read per program: {read}")
    for p in covered:
        assert mine[p].covered, mine[p].describe()
        assert mine[p].program_slots == theirs[p].program_slots > 0, (theirs[p].describe(), mine[p].describe())
        assert mine[p].bindings == theirs[p].bindings, p
        assert mine[p].slots == theirs[p].slots, p
        slot_outcomes.check_not_blind(mine[p], slot_outcomes.program_slot_symbols(copy / p.lstrip("/")))

    # linkgraph's own ELF reader: the same bindings from the copy as from the original
    before = scan_and_report(original, tmp_path / "original.lbdb")
    after = scan_and_report(copy, tmp_path / "zeroed.lbdb")
    assert _bindings(after, programs) == _bindings(before, programs) != set()


def test_an_oracle_that_read_no_slot_fails(tmp_path: Path) -> None:
    original = qo.extract_root(qo.firmware_image(IMAGE), tmp_path / "image")
    program = "/usr/arp"
    trace = ro.runtime_bindings(original, [program], jobs=1)[program]
    slots = slot_outcomes.program_slot_symbols(original / program.lstrip("/"))
    assert trace.covered and trace.program_slots > 0 and slots, trace.describe()
    slot_outcomes.check_not_blind(trace, slots)
    with pytest.raises(slot_outcomes.BlindOracle, match="read 0 relocation slots"):
        slot_outcomes.check_not_blind(dataclasses.replace(trace, program_slots=0), slots)
