"""qemu-user's ``-cpu`` for a program, chosen from its ELF header so that every instruction it may use runs.

qemu-mips's default CPU is the 24Kf (MIPS32r2 with an FPU, no DSP ASE): an OpenWrt ramips root
built for the 24KEc (MIPS32r2 with DSP code in its libraries) dies of SIGILL at its first DSP
instruction.  The choice (:func:`mips_cpu`) reads ``EF_MIPS_ARCH`` from ``e_flags`` and, where the
file has one, the ASE mask of its ``PT_MIPS_ABIFLAGS`` segment (``Elf_MIPS_ABIFlags_v0.ases``):

* 32-bit code up to MIPS32r5 (MIPS I..V, MIPS32, MIPS32r2): the ``74Kf`` (MIPS32r2, DSP, DSPr2,
  MIPS16, FPU: every MIPS I..32r2 instruction, and both DSP revisions, which old files never
  declare); with the MSA ASE the ``P5600`` (MIPS32r5 + MSA), with microMIPS the ``M14Kc``;
* MIPS32r6: ``mips32r6-generic``;
* 64-bit code (ELFCLASS64, or the n32 ABI, ``qemu-mipsn32``): ``I6400`` for MIPS64r6, else
  ``mips64dspr2`` (MIPS64r2 + DSP/DSPr2 + FPU), or ``MIPS64R2-generic`` when the file declares
  the MIPS-3D ASE.

Other machines keep qemu's default (None): their default CPUs run every user-mode instruction set
of the roots seen so far.  Names are those of ``qemu-mips-static -cpu help`` (qemu 7.2).
"""

from __future__ import annotations

import struct

from elftools.elf.elffile import ELFFile

EF_MIPS_ARCH = 0xF0000000
EF_MIPS_ABI2 = 0x20
EF_MIPS_MICROMIPS = 0x02000000
ARCH_32R6, ARCH_64R6 = 0x90000000, 0xA0000000
ASE_MIPS3D, ASE_MSA, ASE_MICROMIPS = 0x20, 0x200, 0x800
PT_MIPS_ABIFLAGS = 0x70000003


def mips_ases(elf: ELFFile) -> int | None:
    """The ASE mask of the file's ``PT_MIPS_ABIFLAGS`` (None without one, or when it is too short)."""
    for seg in elf.iter_segments():
        if seg["p_type"] in ("PT_MIPS_ABIFLAGS", PT_MIPS_ABIFLAGS):
            data = seg.data()
            if len(data) < 16:
                return None
            return struct.unpack_from(("<" if elf.little_endian else ">") + "I", data, 12)[0]
    return None


def mips_cpu(elf_class: int, e_flags: int, ases: int | None) -> str:
    """qemu's CPU for MIPS code of that class, ``e_flags`` and ASE mask (see the module docstring)."""
    arch, ases = e_flags & EF_MIPS_ARCH, ases or 0
    if elf_class == 64 or e_flags & EF_MIPS_ABI2:
        if arch == ARCH_64R6 or ases & ASE_MSA:
            return "I6400"
        return "MIPS64R2-generic" if ases & ASE_MIPS3D else "mips64dspr2"
    if arch == ARCH_32R6:
        return "mips32r6-generic"
    if ases & ASE_MSA:
        return "P5600"
    if ases & ASE_MICROMIPS or e_flags & EF_MIPS_MICROMIPS:
        return "M14Kc"
    return "74Kf"


def cpu_for(machine: str, elf_class: int, e_flags: int, ases: int | None) -> str | None:
    """qemu's ``-cpu`` value for a program (None: qemu's default)."""
    return mips_cpu(elf_class, e_flags, ases) if machine == "EM_MIPS" else None
