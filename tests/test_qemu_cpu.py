"""qemu's CPU chosen from the ELF header (qemu_cpu.py), as the device-loader oracles run programs.

A static MIPS32r2 program whose entry point executes a DSP instruction (``addu.qb``, as OpenWrt's
ramips libraries built for the 24KEc do) and then exits 0, assembled here with GNU binutils, both
byte orders, with and without its ``PT_MIPS_ABIFLAGS`` (old toolchains write none: then only
``e_flags`` says MIPS32r2).  Put in a root, it is run the way qemu_oracle.DeviceLoader runs
programs (chroot of the root's copy, ``qemu_command``): it must exit 0; under qemu's default CPU
for qemu-mips, the ``24Kf``, it must die of SIGILL, which shows the choice is what makes it run.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from support import qemu_oracle as qo

DSP_PROGRAM = """\
\t.set noreorder
\t.text
\t.globl __start
__start:
\taddu.qb $t0, $t1, $t2
\tli $v0, 4001
\tli $a0, 0
\tsyscall
"""
BINUTILS = ("mips-linux-gnu-as", "mips-linux-gnu-ld", "mips-linux-gnu-objcopy")


def _run(*argv: str | Path) -> None:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    assert proc.returncode == 0, f"{argv}: {proc.stderr}"


def _build(work: Path, endian: str, abiflags: bool) -> Path:
    """The DSP program, assembled for MIPS32r2 (``-EB``/``-EL``), at ``work/root/bin/dsp``."""
    missing = [tool for tool in BINUTILS if shutil.which(tool) is None]
    assert not missing, f"missing {missing}: apt-get install binutils-mips-linux-gnu"
    (work / "dsp.s").write_text(DSP_PROGRAM)
    obj = work / "dsp.o"
    _run("mips-linux-gnu-as", f"-{endian}", "-mips32r2", "-mdsp", "-o", obj, work / "dsp.s")
    if not abiflags:
        _run("mips-linux-gnu-objcopy", "--remove-section", ".MIPS.abiflags", obj)
    exe = work / "root" / "bin" / "dsp"
    exe.parent.mkdir(parents=True)
    _run("mips-linux-gnu-ld", f"-{endian}", "-static", "-e", "__start", "-o", exe, obj)
    return exe


@pytest.mark.parametrize("abiflags", [True, False], ids=["abiflags", "e_flags-only"])
@pytest.mark.parametrize("endian", ["EB", "EL"])
def test_dsp_program_runs_on_the_chosen_cpu(tmp_path: Path, endian: str, abiflags: bool) -> None:
    exe = _build(tmp_path, endian, abiflags)
    info = qo.elf_info(exe)
    assert info is not None and info.machine == "EM_MIPS"
    has_abiflags = subprocess.run(["readelf", "-lW", str(exe)], capture_output=True, text=True).stdout
    assert ("ABIFLAGS" in has_abiflags) == abiflags, has_abiflags
    (tmp_path / "work").mkdir()
    loader = qo.DeviceLoader(tmp_path / "root", tmp_path / "work")
    command = loader.qemu_command(info)
    assert command[1:] == ["-cpu", info.cpu] and info.cpu, command

    def run(qemu: list[str]) -> subprocess.CompletedProcess[str]:
        argv = [qo.CHROOT, str(loader.tree), *qemu, "/bin/dsp"]
        return subprocess.run(argv, capture_output=True, text=True, env={}, cwd="/", timeout=60)

    chosen = run(command)
    assert chosen.returncode == 0, (info.cpu, chosen.returncode, chosen.stderr)
    default = run([command[0], "-cpu", "24Kf"])
    assert default.returncode in (-signal.SIGILL, 128 + signal.SIGILL), (default.returncode, default.stderr)
    assert "signal 4" in default.stderr, default.stderr
