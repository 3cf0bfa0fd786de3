"""The runtime binding oracle: what the device's own loader really bound, read from the process's memory.

For one root file system (a host folder) and a dynamic program in it (a device path), the oracle

1. runs the program under the device's own loader with the root as ``/``: a chroot of a hard-linked
   copy of the root with the static ``qemu-ARCH-static`` copied in (qemu_oracle.DeviceLoader makes
   the copy), the guest environment being only ``LD_BIND_NOW=1`` (every slot is relocated before
   the entry point; musl always binds now), stdin ``/dev/null``, qemu's gdbstub on a Unix socket
   inside the copy (``qemu-ARCH-static -g /.linkgraph-oracle/gdb-ID.sock PROGRAM``: nothing to
   pick, so parallel runs, also of other test processes, cannot collide on a port);
2. drives one ``gdb-multiarch -batch`` per program with a small gdb Python script
   (:data:`GDB_SCRIPT`: a memory and breakpoint server talking JSON lines over two inherited
   pipes; the host side parses the ELF files).  At the first stop (the interpreter's first
   instruction) the auxiliary vector is read from the stack (``argc, argv.., 0, envp.., 0, auxv``):
   ``AT_ENTRY`` is the program's entry point with its load bias (PIE or not; bias = ``AT_ENTRY -
   e_entry``), ``AT_BASE`` the interpreter's.  Breakpoints go on the entry point and on the
   loader's debugger hook ``r_brk`` (``_dl_debug_state`` in the interpreter's dynamic symbols,
   which glibc, uClibc and musl all export).  At each hook call the link map is read and, when it
   changed, every slot of every object in it (a *snapshot*), and breakpoints go on every
   initialiser of those objects (``DT_INIT``, the ``DT_INIT_ARRAY`` entries as they are in memory,
   the program's ``DT_PREINIT_ARRAY``).  The first initialiser to run ends the snapshots.  The
   bindings are those of the last snapshot before it: the state right after relocation, before
   any initialiser ran (glibc notifies ``RT_CONSISTENT`` after relocating and before
   ``_dl_init``; uClibc 0.9.28 to 0.9.33 ``RT_ADD`` after relocating and before the
   initialisers, then ``RT_CONSISTENT`` after them; musl 1.1 once, after relocating).  The
   program is *covered* when it then reaches its entry point;
3. finds ``r_debug`` through the program's in-memory dynamic section: ``DT_DEBUG`` (glibc, uClibc
   on most machines, musl), on MIPS the word ``DT_MIPS_RLD_MAP`` (absolute) or
   ``DT_MIPS_RLD_MAP_REL`` (relative to the tag) points at, else the interpreter's exported
   ``_r_debug`` (glibc) or ``_dl_debug_addr`` pointer (uClibc, musl).  glibc's ``struct r_debug``,
   uClibc's and musl's ``struct debug`` all start ``int version; struct link_map *map``, and every
   link-map entry starts ``l_addr, l_name, l_ld, l_next, l_prev`` (glibc ``struct link_map``,
   uClibc ``struct elf_resolve``: ``loadaddr, libname, dynamic_addr, next, prev``, musl ``struct
   dso``: ``base, name, dynv, next, prev``).  Each entry is matched to its file: ``l_name``
   resolved inside the root (the program is the first entry), and the match is checked: the
   file's ``PT_DYNAMIC`` plus ``l_addr`` must equal ``l_ld``.  The interpreter's own bias is
   ``AT_BASE`` minus its lowest ``PT_LOAD`` address (a prelinked ld.so is not linked at 0);
4. parses every loaded file from its program headers (not its section headers, which firmware
   often strips): the relocations of ``DT_REL``/``DT_RELA``/``DT_JMPREL`` that name a symbol, and
   on MIPS the global GOT (``GOT[DT_MIPS_LOCAL_GOTNO + i]`` holds symbol ``DT_MIPS_GOTSYM + i``,
   up to ``DT_MIPS_SYMTABNO``; ``STT_SECTION`` entries are no lookups and are left out), with the
   version each reference requests (``DT_VERSYM`` into ``DT_VERNEED``, or ``DT_VERDEF`` for an
   object's own versioned definitions, as glibc's ``l_versions``; the base version is none), and
   reads the slots with one ``read_memory`` per run of nearby slots, all in one request;
5. maps each value back to the object whose ``PT_LOAD`` segments (plus its ``l_addr``) contain
   it, the end of a segment included when no segment contains it (``_end``): the symbol's
   address ``S`` is ``value - r_addend`` for RELA, ``value - A`` for REL types that add the
   slot's original content ``A`` (read from the file: ``R_ARM_ABS32``, ``R_386_32``,
   ``R_MIPS_REL32``, ...), ``value`` for GOT/PLT types, ``value - A + P`` for PC-relative ones.
   Relocation kinds are known for EM_386, EM_X86_64, EM_ARM, EM_AARCH64 and 32-bit EM_MIPS.

What becomes of each slot:

* ``S`` in another object: a binding (module, symbol, version, provider) in ``bindings``; in the
  same object: ``self_bindings``.  A library's slot that holds a program's canonical PLT entry
  binds to the program, as the loader intends.
* **IFUNC**: the slot holds what the resolver returned, and the provider is the object that
  contains that address.  That is normally the object defining the IFUNC; when a resolver
  returns another object's function (glibc 2.21's librt ``clock_gettime`` returns libc's), the
  loader's *lookup* found the IFUNC's object but the slot points elsewhere, and the binding is
  also listed in ``redirected`` (its provider has no definition the reference could have matched;
  a diagnostic, not a lookup).
* ``S == 0`` for an undefined symbol: ``unresolved`` (a weak reference nothing defines; a strong
  one stops glibc and musl before the entry point under ``LD_BIND_NOW``, uClibc leaves some zero).
* **Copy relocations**: the slot is the program's own copy; which definition the bytes were
  copied from cannot be seen in memory (comparing bytes cannot tell equal contents apart, and
  the loader itself may write the copy, e.g. ``__environ``), so they are not bindings:
  ``copies`` lists (module, symbol, version) without a provider.
* **TLS**: a TLS slot holds an offset, not an address.  ``DTPMOD`` slots hold module ids and
  ``TPOFF``/``TLSDESC`` (static) slots offsets from the thread pointer, both in one frame per
  process.  The frame is calibrated per object from the object's *own* TLS relocations that
  need no lookup (symbol 0 or local: they bind to the object itself by definition): they give
  its module id, and the start of its TLS block (``c - st_value``).  A TLS slot that does look a
  symbol up is then mapped to the object whose calibrated block (start, ``PT_TLS`` ``p_memsz``)
  contains its offset, or whose module id it holds.  A ``DTPOFF`` slot (an offset inside an
  unnamed module) counts through the ``DTPMOD`` slot of the same reference, when there is one.
  Anything that cannot be mapped this way is ``unobserved`` with the reason, never guessed.
* A value in no loaded object, a relocation type the oracle does not know, a slot written by two
  symbol relocations: ``unobserved`` with the reason.
* **Prelinked programs** (``DT_GNU_LIBLIST``; the JioFi): when glibc's prelink check passes, a
  real run performs no lookups at all, the slots keep the values prelink wrote into the files
  (plus ``.gnu.conflict``); trace mode exits before that check and looks everything up.  The
  oracle reports what the process really holds; ``prelinked`` says the program is prelinked and
  every library sits at its prelinked address (l_addr 0), as that check requires.

Slots whose value changed between the snapshot and the entry point (an initialiser wrote them:
libgnutls's constructor sets libgmp's ``__gmp_free_func``/``__gmp_reallocate_func`` pointers,
relocated to libgmp's defaults, in every Debian root's curl) are listed in ``changed_by_init``;
objects an initialiser ``dlopen()``-ed are in ``late_objects``, not in ``objects``.  Without a
``_dl_debug_state`` symbol the slots are read at the entry point instead (``snapshot == "entry"``).
Signals are passed to the program (CPU-feature probes install their own SIGILL handlers); one that
kills it ends the run.

A program that does not reach its entry point (the loader reports a missing library or an
unresolved symbol and exits, an initialiser crashes or exits, qemu cannot start it, the time limit
runs out) is returned with ``covered=False`` and the reason (the loader's stderr), never dropped.

Paths are canonical device paths (symlinks resolved inside the root, qemu_oracle.resolve_in_root),
as in tests/oracle.py.  :func:`runtime_bindings` is the entry point for other code; its results are
cached under ``$LINKGRAPH_TEST_CACHE`` or ``~/.cache/linkgraph-tests`` (``runtime-oracle/``), keyed
by a hash of the root's files (contents, modes, links) and of this file and qemu_oracle.py.

Against glibc's trace-mode ``LD_DEBUG=bindings`` (:func:`compare_with_ld_debug`): trace mode never
relocates ld.so itself, a real run does, so ld.so's own references (``module`` = the interpreter, 76
bindings over each Debian root's 19 programs) are left out of both sides; copy relocations and
unobserved references are left out of the LD_DEBUG side by their exact (module, symbol, version),
and counted.  Measured: the Debian armhf, arm64, mipsel and i386 roots agree exactly (9,603, 9,538,
9,525 and 9,414 cross-object bindings, nothing left out); the JioFi's glibc 2.21 agrees on 63,784
of 63,820, the 36 differences being 9 IFUNC redirections and 27 prelinked slots.
"""

from __future__ import annotations

import bisect
import fcntl
import gzip
import hashlib
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

try:
    import oracle
    import qemu_oracle as qo
    from hostroot import cache_dir
    from oracle import BindingKey
except ImportError:  # imported as tests.runtime_oracle
    from tests import oracle
    from tests import qemu_oracle as qo
    from tests.hostroot import cache_dir
    from tests.oracle import BindingKey

GDB = "gdb-multiarch"
TIMEOUT = 90.0  # seconds per program, from qemu's start to the last memory read
GUEST_ENV = {"LD_BIND_NOW": "1"}
CACHE_FORMAT = "1"
SOURCES = [Path(__file__).resolve(), Path(qo.__file__).resolve()]

RefKey = tuple[str, str, str | None]  # (module, symbol, version)

# --------------------------------------------------------------------------- ELF, from program headers

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_TLS = 1, 2, 3, 7
DT_NULL, DT_PLTRELSZ, DT_PLTGOT, DT_STRTAB, DT_SYMTAB = 0, 2, 3, 5, 6
DT_RELA, DT_RELASZ, DT_RELAENT, DT_STRSZ, DT_SYMENT = 7, 8, 9, 10, 11
DT_REL, DT_RELSZ, DT_RELENT, DT_PLTREL, DT_DEBUG, DT_JMPREL = 17, 18, 19, 20, 21, 23
DT_HASH, DT_INIT, DT_INIT_ARRAY, DT_INIT_ARRAYSZ, DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ = 4, 12, 25, 27, 32, 33
DT_GNU_HASH, DT_GNU_LIBLIST = 0x6FFFFEF5, 0x6FFFFEF9
DT_VERSYM, DT_VERDEF, DT_VERDEFNUM, DT_VERNEED, DT_VERNEEDNUM = (
    0x6FFFFFF0,
    0x6FFFFFFC,
    0x6FFFFFFD,
    0x6FFFFFFE,
    0x6FFFFFFF,
)
DT_MIPS_LOCAL_GOTNO, DT_MIPS_SYMTABNO, DT_MIPS_GOTSYM = 0x7000000A, 0x70000011, 0x70000013
DT_MIPS_RLD_MAP, DT_MIPS_RLD_MAP_REL = 0x70000016, 0x70000035
STB_LOCAL, STT_SECTION, STT_TLS = 0, 3, 6
VER_FLG_BASE = 1
MACHINES = {3: "EM_386", 8: "EM_MIPS", 40: "EM_ARM", 62: "EM_X86_64", 183: "EM_AARCH64"}
AT_NULL, AT_PHDR, AT_PAGESZ, AT_BASE, AT_ENTRY = 0, 3, 6, 7, 9

# Relocation kinds by machine and type: (kind, size in bytes or 0 for a word).
#   abs: S + A          got: S (REL) / S + A (RELA)      pcrel: S + A - P       copy: R_*_COPY
#   tpoff: offset = value - A   tpoff_neg: offset = A - value   tlsdesc: RELA, offset in the 2nd word
#   dtpmod: module id          dtpoff: offset inside the module's block
RELOC_KINDS: dict[str, dict[int, tuple[str, int]]] = {
    "EM_386": {1: ("abs", 4), 2: ("pcrel", 4), 5: ("copy", 0), 6: ("got", 4), 7: ("got", 4), 14: ("tpoff", 4),
               35: ("dtpmod", 4), 36: ("dtpoff", 4), 37: ("tpoff_neg", 4)},
    "EM_X86_64": {1: ("abs", 8), 2: ("pcrel", 4), 5: ("copy", 0), 6: ("got", 8), 7: ("got", 8), 10: ("abs", 4),
                  11: ("abs", 4), 16: ("dtpmod", 8), 17: ("dtpoff", 8), 18: ("tpoff", 8), 24: ("pcrel", 8),
                  36: ("tlsdesc", 16)},
    "EM_ARM": {2: ("abs", 4), 3: ("pcrel", 4), 17: ("dtpmod", 4), 18: ("dtpoff", 4), 19: ("tpoff", 4),
               20: ("copy", 0), 21: ("got", 4), 22: ("got", 4)},
    "EM_AARCH64": {257: ("abs", 8), 258: ("abs", 4), 1024: ("copy", 0), 1025: ("got", 8), 1026: ("got", 8),
                   1028: ("dtpmod", 8), 1029: ("dtpoff", 8), 1030: ("tpoff", 8), 1031: ("tlsdesc", 16)},
    "EM_MIPS": {2: ("abs", 4), 3: ("abs", 4), 38: ("dtpmod", 4), 39: ("dtpoff", 4), 47: ("tpoff", 4),
                126: ("copy", 0), 127: ("got", 4)},
}  # fmt: skip
TLS_KINDS = {"tpoff", "tpoff_neg", "tlsdesc", "dtpmod", "dtpoff"}


class ElfFormatError(ValueError):
    """A loaded file whose dynamic information cannot be read (bounds, missing tables)."""


@dataclass(frozen=True, slots=True)
class Segment:
    vaddr: int
    memsz: int
    offset: int
    filesz: int


@dataclass(frozen=True, slots=True)
class Slot:
    """One relocated word that names a symbol, at ``vaddr`` (unbiased) of its object."""

    vaddr: int
    size: int
    kind: str  # see RELOC_KINDS, or "mips_got", or "unknown"
    rtype: int
    name: str
    version: str | None
    local: bool  # no symbol, or an STB_LOCAL one: binds in its own object without a lookup
    defined: bool
    st_value: int
    addend: int  # RELA r_addend; REL: the slot's content in the file for adding kinds, else 0


class DynElf:
    """The dynamic view of one ELF file, read as the loader reads it (program headers, PT_DYNAMIC)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.data = data = Path(path).read_bytes()
        if data[:4] != b"\x7fELF" or len(data) < 52:
            raise ElfFormatError(f"{path}: not an ELF file")
        self.bits = {1: 32, 2: 64}.get(data[4], 0)
        self.endian = {1: "<", 2: ">"}.get(data[5], "")
        if not self.bits or not self.endian:
            raise ElfFormatError(f"{path}: bad ELF class or byte order")
        self.word = self.bits // 8
        e = self.endian
        if self.bits == 32:
            (self.e_type, machine, _v, self.e_entry, phoff, _sh, self.e_flags, _eh, phentsize, phnum) = self._unpack(
                e + "HHIIIIIHHH", 16
            )
        else:
            (self.e_type, machine, _v, self.e_entry, phoff, _sh, self.e_flags, _eh, phentsize, phnum) = self._unpack(
                e + "HHIQQQIHHH", 16
            )
        self.machine = MACHINES.get(machine, f"EM_{machine}")
        self.loads: list[Segment] = []
        self.dynamic: Segment | None = None
        self.tls: Segment | None = None
        self.interp: str | None = None
        for i in range(phnum):
            at = phoff + i * phentsize
            if self.bits == 32:
                p_type, p_offset, p_vaddr, _pa, p_filesz, p_memsz, _fl, _al = self._unpack(e + "8I", at)
            else:
                p_type, _fl, p_offset, p_vaddr, _pa, p_filesz, p_memsz, _al = self._unpack(e + "IIQQQQQQ", at)
            seg = Segment(p_vaddr, p_memsz, p_offset, p_filesz)
            if p_type == PT_LOAD:
                self.loads.append(seg)
            elif p_type == PT_DYNAMIC:
                self.dynamic = seg
            elif p_type == PT_TLS:
                self.tls = seg
            elif p_type == PT_INTERP:
                self.interp = self._bytes(p_offset, p_filesz).split(b"\0")[0].decode(errors="surrogateescape")
        self.tags: dict[int, int] = {}
        self.tag_list: list[tuple[int, int]] = []
        if self.dynamic is not None:
            fmt, size = (e + "iI", 8) if self.bits == 32 else (e + "qQ", 16)
            for i in range(self.dynamic.filesz // size):
                tag, val = self._unpack(fmt, self.dynamic.offset + i * size)
                if tag == DT_NULL:
                    break
                self.tag_list.append((tag, val))
                self.tags.setdefault(tag, val)
        self._slots: list[Slot] | None = None
        self._defined: dict[str, set[str | None]] | None = None

    # ------------------------------------------------------------------ raw access

    def _unpack(self, fmt: str, offset: int) -> tuple:
        size = struct.calcsize(fmt)
        if offset < 0 or offset + size > len(self.data):
            raise ElfFormatError(f"{self.path}: read of {size} bytes at {offset:#x} beyond the file")
        return struct.unpack_from(fmt, self.data, offset)

    def _bytes(self, offset: int, size: int) -> bytes:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise ElfFormatError(f"{self.path}: {size} bytes at {offset:#x} beyond the file")
        return self.data[offset : offset + size]

    def offset_of(self, vaddr: int) -> int | None:
        """File offset of an address that has file bytes (None in .bss or outside every PT_LOAD)."""
        for seg in self.loads:
            if seg.vaddr <= vaddr < seg.vaddr + seg.filesz:
                return seg.offset + vaddr - seg.vaddr
        return None

    def read_at(self, vaddr: int, size: int) -> bytes:
        """The file's bytes at an address; zeros for .bss."""
        off = self.offset_of(vaddr)
        if off is None:
            if any(seg.vaddr <= vaddr < seg.vaddr + seg.memsz for seg in self.loads):
                return b"\0" * size
            raise ElfFormatError(f"{self.path}: address {vaddr:#x} is in no PT_LOAD segment")
        return self._bytes(off, size)

    def uint(self, vaddr: int, size: int) -> int:
        return int.from_bytes(self.read_at(vaddr, size), "little" if self.endian == "<" else "big")

    def _cstr(self, vaddr: int) -> str:
        off = self.offset_of(vaddr)
        if off is None:
            raise ElfFormatError(f"{self.path}: string at {vaddr:#x} outside the file")
        end = self.data.find(b"\0", off)
        if end < 0:
            raise ElfFormatError(f"{self.path}: unterminated string at {vaddr:#x}")
        return self.data[off:end].decode(errors="surrogateescape")

    # ------------------------------------------------------------------ symbols

    def symbol(self, index: int) -> tuple[str, int, int, int, int, int]:
        """(name, value, size, info, other, shndx) of dynamic symbol ``index``."""
        symtab, strtab = self.tags.get(DT_SYMTAB), self.tags.get(DT_STRTAB)
        if symtab is None or strtab is None:
            raise ElfFormatError(f"{self.path}: no DT_SYMTAB/DT_STRTAB")
        entsize = self.tags.get(DT_SYMENT, 16 if self.bits == 32 else 24)
        off = self.offset_of(symtab + index * entsize)
        if off is None:
            raise ElfFormatError(f"{self.path}: symbol {index} outside the file")
        if self.bits == 32:
            st_name, value, size, info, other, shndx = self._unpack(self.endian + "IIIBBH", off)
        else:
            st_name, info, other, shndx, value, size = self._unpack(self.endian + "IBBHQQ", off)
        return self._cstr(strtab + st_name), value, size, info, other, shndx

    def symbol_count(self) -> int:
        """Number of dynamic symbols: DT_HASH's nchain, else the end of DT_GNU_HASH's last chain."""
        if DT_MIPS_SYMTABNO in self.tags and self.machine == "EM_MIPS":
            return self.tags[DT_MIPS_SYMTABNO]
        if DT_HASH in self.tags:
            return self.uint(self.tags[DT_HASH] + 4, 4)
        at = self.tags.get(DT_GNU_HASH)
        if at is None:
            return 0
        nbuckets, symoffset, bloom_size, _shift = (self.uint(at + 4 * i, 4) for i in range(4))
        buckets = at + 16 + bloom_size * self.word
        last = max((self.uint(buckets + 4 * i, 4) for i in range(min(nbuckets, 1 << 20))), default=0)
        if last < symoffset:
            return symoffset
        chains = buckets + 4 * nbuckets
        while not self.uint(chains + 4 * (last - symoffset), 4) & 1:
            last += 1
        return last + 1

    def defines(self, name: str, version: str | None) -> bool:
        """Whether a dynamic symbol could satisfy a reference to ``name`` (``version``) by its address: any
        definition for an unversioned reference; for a versioned one a definition with that version or
        without one, or a canonical PLT entry.  A diagnostic only (RuntimeTrace.redirected), not a lookup."""
        if self._defined is None:
            names: dict[str, set[str | None]] = {}
            versions = self._version_names()
            versym = self.tags.get(DT_VERSYM)
            for i in range(1, self.symbol_count()):
                sname, value, _size, _info, _other, shndx = self.symbol(i)
                if not value:
                    continue
                ndx = self.uint(versym + 2 * i, 2) & 0x7FFF if versym is not None else 1
                names.setdefault(sname, set()).add("*" if shndx == 0 else versions.get(ndx) if ndx >= 2 else None)
            self._defined = names
        found = self._defined.get(name, set())
        return bool(found) if version is None else bool(found & {None, version, "*"})

    def _version_names(self) -> dict[int, str]:
        """Version index -> name, from DT_VERNEED (requested) and DT_VERDEF (own, non-base)."""
        names: dict[int, str] = {}
        strtab = self.tags.get(DT_STRTAB, 0)
        e = self.endian
        at, count = self.tags.get(DT_VERNEED), self.tags.get(DT_VERNEEDNUM, 0)
        for _ in range(count if at is not None else 0):
            off = self.offset_of(at)
            if off is None:
                raise ElfFormatError(f"{self.path}: DT_VERNEED outside the file")
            _ver, cnt, _file, aux, nxt = self._unpack(e + "HHIII", off)
            a = at + aux
            for _ in range(cnt):
                aoff = self.offset_of(a)
                if aoff is None:
                    raise ElfFormatError(f"{self.path}: vernaux outside the file")
                _hash, _flags, other, name, anext = self._unpack(e + "IHHII", aoff)
                names[other & 0x7FFF] = self._cstr(strtab + name)
                if not anext:
                    break
                a += anext
            if not nxt:
                break
            at += nxt
        at, count = self.tags.get(DT_VERDEF), self.tags.get(DT_VERDEFNUM, 0)
        for _ in range(count if at is not None else 0):
            off = self.offset_of(at)
            if off is None:
                raise ElfFormatError(f"{self.path}: DT_VERDEF outside the file")
            _ver, flags, ndx, _cnt, _hash, aux, nxt = self._unpack(e + "HHHHIII", off)
            if not flags & VER_FLG_BASE:
                aoff = self.offset_of(at + aux)
                if aoff is None:
                    raise ElfFormatError(f"{self.path}: verdaux outside the file")
                names.setdefault(ndx & 0x7FFF, self._cstr(strtab + self._unpack(e + "I", aoff)[0]))
            if not nxt:
                break
            at += nxt
        return names

    # ------------------------------------------------------------------ slots

    def slots(self) -> list[Slot]:
        """Every symbol-naming relocation and (MIPS) global GOT entry, in file order."""
        if self._slots is None:
            self._slots = self._compute_slots()
        return self._slots

    def _compute_slots(self) -> list[Slot]:
        if self.machine == "EM_MIPS" and self.bits == 64:
            raise ElfFormatError(f"{self.path}: 64-bit MIPS relocations are not supported")
        kinds = RELOC_KINDS.get(self.machine)
        if kinds is None:
            raise ElfFormatError(f"{self.path}: relocations of {self.machine} are not supported")
        versions = self._version_names()
        versym = self.tags.get(DT_VERSYM)
        e, w = self.endian, self.word
        out: list[Slot] = []
        tables: list[tuple[int, int, bool]] = []  # (address, size, rela)
        if DT_REL in self.tags:
            tables.append((self.tags[DT_REL], self.tags.get(DT_RELSZ, 0), False))
        if DT_RELA in self.tags:
            tables.append((self.tags[DT_RELA], self.tags.get(DT_RELASZ, 0), True))
        if DT_JMPREL in self.tags:
            tables.append((self.tags[DT_JMPREL], self.tags.get(DT_PLTRELSZ, 0), self.tags.get(DT_PLTREL) == DT_RELA))
        seen: set[int] = set()  # file offsets of entries done (DT_RELSZ may include the DT_JMPREL entries)
        sym_cache: dict[int, tuple[str, int, int, int, int, int]] = {}

        def sym(i: int) -> tuple[str, int, int, int, int, int]:
            if i not in sym_cache:
                sym_cache[i] = self.symbol(i)
            return sym_cache[i]

        def version_of(i: int) -> str | None:
            if versym is None:
                return None
            ndx = self.uint(versym + 2 * i, 2) & 0x7FFF
            return versions.get(ndx) if ndx >= 2 else None

        for start, size, rela in tables:
            ent = (3 if rela else 2) * w
            fmt = e + ("iIi" if rela else "II") if self.bits == 32 else e + ("QQq" if rela else "QQ")
            base = self.offset_of(start)
            if base is None and size:
                raise ElfFormatError(f"{self.path}: relocation table at {start:#x} outside the file")
            for k in range(size // ent):
                if base + k * ent in seen:
                    continue
                seen.add(base + k * ent)
                fields = self._unpack(fmt, base + k * ent)
                r_offset, r_info = fields[0], fields[1]
                r_addend = fields[2] if rela else 0
                if self.bits == 32:
                    isym, rtype = r_info >> 8, r_info & 0xFF
                else:
                    isym, rtype = r_info >> 32, r_info & 0xFFFFFFFF
                kind, rsize = kinds.get(rtype, ("unknown", 0))
                if isym == 0:
                    if kind in TLS_KINDS:  # calibration of the object's own TLS (no lookup)
                        out.append(self._slot(r_offset, rsize, kind, rtype, "", None, True, True, 0, r_addend, rela))
                    continue
                name, value, _sz, info, _other, shndx = sym(isym)
                local = (info >> 4) == STB_LOCAL
                if local and kind not in TLS_KINDS:
                    continue  # binds in its own object without a lookup
                out.append(
                    self._slot(
                        r_offset, rsize, kind, rtype, name, version_of(isym), local, shndx != 0, value, r_addend, rela
                    )
                )
        if self.machine == "EM_MIPS" and DT_MIPS_GOTSYM in self.tags:
            got = self.tags.get(DT_PLTGOT)
            local_gotno = self.tags.get(DT_MIPS_LOCAL_GOTNO, 0)
            gotsym = self.tags[DT_MIPS_GOTSYM]
            symtabno = self.tags.get(DT_MIPS_SYMTABNO, gotsym)
            if got is None:
                raise ElfFormatError(f"{self.path}: MIPS GOT without DT_PLTGOT")
            for i in range(gotsym, symtabno):
                name, value, _sz, info, _other, shndx = sym(i)
                if info & 0xF == STT_SECTION:
                    continue
                out.append(
                    Slot(
                        got + (local_gotno + i - gotsym) * w,
                        w,
                        "mips_got",
                        0,
                        name,
                        version_of(i),
                        (info >> 4) == STB_LOCAL,
                        shndx != 0,
                        value,
                        0,
                    )
                )
        return out

    def _slot(
        self,
        r_offset: int,
        rsize: int,
        kind: str,
        rtype: int,
        name: str,
        version: str | None,
        local: bool,
        defined: bool,
        value: int,
        r_addend: int,
        rela: bool,
    ) -> Slot:
        size = rsize or self.word
        if rela:
            addend = r_addend
        elif kind in ("abs", "pcrel", "tpoff", "tpoff_neg", "dtpoff"):
            addend = int.from_bytes(self.read_at(r_offset, min(size, 8)), "little" if self.endian == "<" else "big")
            if kind in ("pcrel", "tpoff", "tpoff_neg", "dtpoff") and addend >= 1 << (8 * size - 1):
                addend -= 1 << (8 * size)  # these addends are signed
        else:
            addend = 0
        if kind == "tlsdesc" and not rela:
            kind = "unknown"  # REL TLS descriptors (ARM, i386): where the addend lives is ABI-specific
        return Slot(r_offset, size, kind, rtype, name, version, local, defined, value, addend)


# --------------------------------------------------------------------------- the gdb side

# Runs inside gdb-multiarch (its own Python, no project imports): connects to qemu's gdbstub and
# serves the host's requests, one JSON object a line over two inherited pipes.
GDB_SCRIPT = r"""
import gdb, json, os, traceback

cfg = json.loads(os.environ["LG_RUNTIME_ORACLE"])
rd = os.fdopen(cfg["rfd"], "r")
wr = os.fdopen(cfg["wfd"], "w")
state = {"stops": []}
breakpoints = {}


def send(obj):
    wr.write(json.dumps(obj) + "\n")
    wr.flush()


def on_stop(ev):
    state["stops"].append([type(ev).__name__, getattr(ev, "stop_signal", None)])


def on_exit(ev):
    state["exit"] = getattr(ev, "exit_code", None)
    state["exited"] = True
    try:
        sig = gdb.parse_and_eval("$_exitsignal")
        state["signal"] = None if sig.type.code == gdb.TYPE_CODE_VOID else int(sig)
    except Exception:
        state["signal"] = None


def read(inf, addr, size):
    try:
        return bytes(inf.read_memory(addr, size)).hex()
    except gdb.MemoryError:
        return None


def cstr(inf, addr, limit=4096):
    out = b""
    while len(out) < limit:
        chunk = min(256, 4096 - (addr + len(out)) % 4096)
        try:
            data = bytes(inf.read_memory(addr + len(out), chunk))
        except gdb.MemoryError:
            return None
        if b"\0" in data:
            return (out + data[: data.index(b"\0")]).hex()
        out += data
    return out.hex()


def main():
    gdb.events.stop.connect(on_stop)
    gdb.events.exited.connect(on_exit)
    for command in cfg["setup"]:
        gdb.execute(command, to_string=True)
    gdb.execute("target remote " + cfg["socket"], to_string=True)
    inf = gdb.selected_inferior()
    sp = int(gdb.parse_and_eval("$sp")) & cfg["mask"]
    pc = int(gdb.parse_and_eval("$pc")) & cfg["mask"]
    end = (sp // 4096 + 1) * 4096  # the initial stack up to its top, page by page (at most 16 KiB)
    stack = read(inf, sp, end - sp) or ""
    while stack and len(stack) < 32768:
        more = read(inf, end, 4096)
        if more is None:
            break
        stack += more
        end += 4096
    send({"sp": sp, "pc": pc, "stack": stack or None})
    while True:
        line = rd.readline()
        if not line:
            return
        req = json.loads(line)
        op = req["op"]
        if op == "quit":
            return
        if op == "break":
            for addr in req["addrs"]:
                if addr not in breakpoints:
                    breakpoints[addr] = gdb.Breakpoint("*%d" % addr, internal=True)
            send({"ok": len(breakpoints)})
        elif op == "delete":
            for addr in req["addrs"]:
                bp = breakpoints.pop(addr, None)
                if bp is not None:
                    bp.delete()
            send({"ok": len(breakpoints)})
        elif op == "cont":
            state["stops"] = []
            gdb.execute("continue", to_string=True)
            if state.get("exited") or not inf.threads() or inf.pid == 0:
                send({"stop": "exited", "code": state.get("exit"), "signal": state.get("signal"),
                      "stops": state["stops"]})
                return
            pc = int(gdb.parse_and_eval("$pc")) & cfg["mask"]
            send({"stop": "stopped", "pc": pc, "stops": state["stops"]})
        elif op == "read":
            send({"data": [read(inf, a, n) for a, n in req["ranges"]]})
        elif op == "str":
            send({"data": [cstr(inf, a) for a in req["addrs"]]})
        else:
            send({"error": "unknown op " + op})


try:
    main()
except Exception:
    try:
        send({"error": traceback.format_exc()})
    except Exception:
        pass
try:
    gdb.execute("kill", to_string=True)
except Exception:
    pass
"""


class _GdbError(RuntimeError):
    pass


class _Pipe:
    """The host's end of the conversation with the gdb script (with a deadline)."""

    def __init__(self, rfd: int, wfd: int, deadline: float) -> None:
        self.rfd, self.wfd, self.deadline = rfd, wfd, deadline
        self.buf = b""

    def recv(self) -> dict:
        while b"\n" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.rfd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise _GdbError("gdb closed the pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        msg = json.loads(line)
        if "error" in msg:
            raise _GdbError(msg["error"])
        return msg

    def ask(self, request: dict) -> dict:
        data = (json.dumps(request) + "\n").encode()
        while data:
            n = os.write(self.wfd, data)
            data = data[n:]
        return self.recv()


# --------------------------------------------------------------------------- results


@dataclass
class RuntimeTrace:
    """What the loader bound for one program, read from memory (see the module docstring)."""

    executable: str
    covered: bool  # reached the entry point and its link map was read
    reason: str = ""  # why not covered (loader stderr, exit status, signal, timeout)
    interpreter: str | None = None
    objects: list[str] = field(default_factory=list)  # r_debug's link map, in its order, the program first
    bindings: set[BindingKey] = field(default_factory=set)  # cross-object (module != provider)
    self_bindings: set[BindingKey] = field(default_factory=set)  # module == provider
    unresolved: set[RefKey] = field(default_factory=set)  # value 0: nothing defines the (weak) symbol
    copies: set[RefKey] = field(default_factory=set)  # copy relocations: provider not observable
    unobserved: dict[RefKey, str] = field(default_factory=dict)  # slots that could not be mapped, and why
    snapshot: str = ""  # "relocated" (before the first initialiser) or "entry" (no r_brk: at the entry point)
    changed_by_init: set[RefKey] = field(default_factory=set)  # slots whose value changed before the entry point
    late_objects: list[str] = field(default_factory=list)  # objects loaded by initialisers (dlopen)
    redirected: set[BindingKey] = field(default_factory=set)  # bindings whose provider has no such symbol (IFUNC)
    prelinked: bool = False  # a prelinked program whose libraries all sit at their prelinked addresses
    slots: int = 0  # slots read
    seconds: float = 0.0
    stderr: str = ""  # the program's stderr up to the entry point (or its end)

    def to_json(self) -> dict:
        def keys(s: Iterable[tuple]) -> list:
            return sorted(s, key=_sort_key)

        return {
            "executable": self.executable, "covered": self.covered, "reason": self.reason,
            "interpreter": self.interpreter, "objects": self.objects, "bindings": keys(self.bindings),
            "self_bindings": keys(self.self_bindings), "unresolved": keys(self.unresolved),
            "copies": keys(self.copies),
            "unobserved": [[*k, v] for k, v in sorted(self.unobserved.items(), key=lambda kv: _sort_key(kv[0]))],
            "snapshot": self.snapshot, "changed_by_init": keys(self.changed_by_init),
            "late_objects": self.late_objects, "redirected": keys(self.redirected), "prelinked": self.prelinked,
            "slots": self.slots, "seconds": round(self.seconds, 3),
            "stderr": self.stderr,
        }  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> RuntimeTrace:
        def tuples(rows: list) -> set:
            return {tuple(r) for r in rows}

        return cls(
            d["executable"], d["covered"], d["reason"], d["interpreter"], list(d["objects"]), tuples(d["bindings"]),
            tuples(d["self_bindings"]), tuples(d["unresolved"]), tuples(d["copies"]),
            {(u[0], u[1], u[2]): u[3] for u in d["unobserved"]}, d["snapshot"], tuples(d["changed_by_init"]),
            list(d["late_objects"]), tuples(d["redirected"]), d["prelinked"], d["slots"], d["seconds"], d["stderr"],
        )  # fmt: skip

    def describe(self) -> str:
        if not self.covered:
            return f"{self.executable}: NOT COVERED: {self.reason}"
        return (
            f"{self.executable}: {len(self.objects)} objects, {self.slots} slots, {len(self.bindings)} "
            f"cross-object bindings, {len(self.unresolved)} unresolved, {len(self.copies)} copies, "
            f"{len(self.unobserved)} unobserved, {len(self.changed_by_init)} changed by initialisers, "
            f"{len(self.redirected)} redirected{', prelinked' if self.prelinked else ''} "
            f"(snapshot: {self.snapshot}; {self.seconds:.1f}s)"
        )


def _sort_key(t: tuple) -> tuple:
    return tuple("" if x is None else x for x in t)


@dataclass
class _Loaded:
    """One link-map entry, matched to its file."""

    path: str
    base: int
    elf: DynElf


@dataclass
class _Process:
    """What the host knows about the traced process."""

    pipe: _Pipe
    exe: str
    elf: DynElf
    bias: int
    auxv: dict[int, int]
    r_debug: int | None = None
    names: dict[int, str] = field(default_factory=dict)

    @property
    def mask(self) -> int:
        return (1 << self.elf.bits) - 1

    def words(self, raw: str | None, count: int) -> list[int]:
        if raw is None:
            raise _GdbError("memory not readable")
        data = bytes.fromhex(raw)
        order = "little" if self.elf.endian == "<" else "big"
        w = self.elf.word
        if len(data) < count * w:
            raise _GdbError("short memory read")
        return [int.from_bytes(data[i * w : (i + 1) * w], order) for i in range(count)]

    def code_address(self, addr: int) -> int:
        """A breakpoint address: ARM Thumb and MIPS16/microMIPS addresses have bit 0 set."""
        return addr & ~1 if self.elf.machine in ("EM_ARM", "EM_MIPS") else addr


# --------------------------------------------------------------------------- the oracle


class RuntimeOracle:
    """Runs programs of one root to their entry points under qemu + gdb and reads their bindings."""

    def __init__(
        self, root: str | os.PathLike[str], workdir: str | os.PathLike[str] | None = None, timeout: float = TIMEOUT
    ) -> None:
        if shutil.which(GDB) is None:
            raise qo.OracleError(f"{GDB} not found: apt-get install gdb-multiarch")
        if os.geteuid() != 0:
            raise qo.OracleError("the runtime oracle needs root (chroot)")
        self.root = Path(root).resolve()
        self.timeout = timeout
        self._own_workdir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix="lg-rt-")) if workdir is None else Path(workdir)
        self.loader = qo.DeviceLoader(self.root, self.workdir)
        self.script = self.workdir / "runtime_oracle_gdb.py"
        self.script.write_text(GDB_SCRIPT)
        self._elves: dict[str, DynElf] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> RuntimeOracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def elf(self, device_path: str) -> DynElf:
        with self._lock:
            hit = self._elves.get(device_path)
        if hit is None:
            hit = DynElf(self.root / device_path.lstrip("/"))
            with self._lock:
                self._elves[device_path] = hit
        return hit

    # ------------------------------------------------------------------ one program

    def trace(self, executable: str) -> RuntimeTrace:
        """Run one program (device path) to its entry point and read its bindings."""
        started = time.monotonic()
        exe = self.loader.canonical(executable)
        info = self.loader.elves.get(exe)
        if info is None or not info.interpreter:
            return RuntimeTrace(exe, False, "not a dynamic ELF program of the root")
        result = RuntimeTrace(exe, False, interpreter=self.loader.canonical(info.interpreter))
        try:
            self._run(exe, info, result, started)
        except (ElfFormatError, qo.OracleError, OSError) as exc:
            result.covered = False
            result.reason = f"{type(exc).__name__}: {exc}"
        finally:
            result.seconds = time.monotonic() - started
        return result

    def trace_many(self, executables: Iterable[str], jobs: int = 2) -> dict[str, RuntimeTrace]:
        exes = list(executables)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            traces = list(pool.map(self.trace, exes))
        return {t.executable: t for t in traces}

    def _run(self, exe: str, info: qo.ElfInfo, result: RuntimeTrace, started: float) -> None:
        elf = self.elf(exe)
        qemu = self.loader._qemu(info)  # copies qemu-ARCH-static into the chroot (once)
        ident = uuid.uuid4().hex[:12]
        inside = f"/{qo.ORACLE_DIR}/gdb-{ident}.sock"
        sock = self.loader.tree / inside.lstrip("/")
        connect = str(sock)
        link_dir = None
        if len(connect) > 100:  # sun_path is 108 bytes: connect through a short symlink
            link_dir = tempfile.mkdtemp(prefix="lg-rt-")
            os.symlink(sock, os.path.join(link_dir, "s"))
            connect = os.path.join(link_dir, "s")
        out_path = self.workdir / f"{ident}.out"
        err_path = self.workdir / f"{ident}.err"
        gdb_log = self.workdir / f"{ident}.gdb"
        cmd = [qo.CHROOT, str(self.loader.tree), qemu, "-g", inside]
        for key, value in GUEST_ENV.items():
            cmd += ["-E", f"{key}={value}"]
        cmd.append(exe)
        deadline = started + self.timeout
        qemu_proc = gdb_proc = None
        fds: list[int] = []
        try:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                qemu_proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env={}, cwd="/", start_new_session=True
                )
            while not sock.exists():
                if qemu_proc.poll() is not None:
                    result.reason = f"qemu exited with {qemu_proc.returncode} before its gdbstub was up"
                    return
                if time.monotonic() > deadline:
                    result.reason = f"timeout: qemu's gdbstub not up after {self.timeout:.0f}s"
                    return
                time.sleep(0.005)
            to_gdb_r, to_gdb_w = os.pipe()
            from_gdb_r, from_gdb_w = os.pipe()
            fds = [to_gdb_w, from_gdb_r]
            setup = [
                "set confirm off",
                "set pagination off",
                "set width 0",
                "set height 0",
                f"set endian {'big' if elf.endian == '>' else 'little'}",
                "set auto-solib-add off",
                "handle all nostop noprint pass",  # the program's own handlers (CPU feature probes) run
            ]
            if elf.machine == "EM_MIPS":  # qemu sends no MIPS target description: gdb would guess 64-bit registers
                setup += ["set architecture mips", f"set mips abi {'n32' if elf.e_flags & qo.EF_MIPS_ABI2 else 'o32'}"]
            cfg = {"rfd": to_gdb_r, "wfd": from_gdb_w, "socket": connect, "mask": (1 << elf.bits) - 1, "setup": setup}
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(self.workdir),
                "LC_ALL": "C",
                "LG_RUNTIME_ORACLE": json.dumps(cfg),
            }
            with open(gdb_log, "wb") as log:
                gdb_proc = subprocess.Popen(
                    [GDB, "-nx", "-batch", "-x", str(self.script)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    pass_fds=(to_gdb_r, from_gdb_w),
                    start_new_session=True,
                )
            os.close(to_gdb_r)
            os.close(from_gdb_w)
            pipe = _Pipe(from_gdb_r, to_gdb_w, deadline)
            try:
                self._converse(pipe, exe, elf, result)
            except TimeoutError:
                result.covered = False
                result.reason = f"timeout after {self.timeout:.0f}s"
            except _GdbError as exc:
                result.covered = False
                result.reason = f"gdb: {str(exc).strip()[-1500:]}; gdb log: {_tail(gdb_log)}"
            else:
                try:
                    os.write(to_gdb_w, b'{"op": "quit"}\n')
                except OSError:
                    pass
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            for proc in (gdb_proc, qemu_proc):
                if proc is not None:
                    _stop(proc, grace=5.0 if result.covered else 0.5)
            if not result.stderr:
                result.stderr = _tail(err_path, 4000)
            died = re.search(r"qemu: uncaught target signal (\d+)", result.stderr)
            if not result.covered and died and result.reason.startswith("ended before"):
                number = int(died[1])
                name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
                result.reason = f"killed by signal {name} before the entry point"
            if not result.covered and result.stderr and "stderr:" not in result.reason:
                result.reason += f"; stderr: {result.stderr[-1500:]}"
            for p in (out_path, err_path, gdb_log, sock):
                try:
                    p.unlink()
                except OSError:
                    pass
            if link_dir:
                shutil.rmtree(link_dir, ignore_errors=True)

    def _converse(self, pipe: _Pipe, exe: str, elf: DynElf, result: RuntimeTrace) -> None:
        first = pipe.recv()
        if first["stack"] is None:
            raise _GdbError("cannot read the initial stack")
        auxv = _parse_auxv(bytes.fromhex(first["stack"]), elf)
        if AT_ENTRY not in auxv:
            raise _GdbError("no AT_ENTRY in the auxiliary vector")
        proc = _Process(pipe, exe, elf, auxv[AT_ENTRY] - elf.e_entry, auxv)
        entry = proc.code_address(auxv[AT_ENTRY])
        r_brk = None  # the loader's debugger hook, called after it changed the link map
        if elf.interp and auxv.get(AT_BASE):
            value = _find_symbol(self.elf(self.loader.canonical(elf.interp)), "_dl_debug_state")
            if value:
                r_brk = proc.code_address(self._interp_bias(proc) + value)
        pipe.ask({"op": "break", "addrs": [entry] + ([r_brk] if r_brk is not None else [])})
        snapshot: tuple[list[_Loaded], list[list[int | None]]] | None = None
        last_key: tuple | None = None
        init_bps: set[int] = set()
        init_started = False
        hit_errors: list[str] = []
        for _ in range(10_000):
            stop = pipe.ask({"op": "cont"})
            if stop["stop"] == "exited":
                code, sig = stop.get("code"), stop.get("signal")
                if sig is not None:
                    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
                    result.reason = f"killed by signal {name} before the entry point"
                elif code is not None:
                    result.reason = f"exited before the entry point (status {code})"
                else:  # qemu 7.2 reports no status to gdb when the guest dies of a signal
                    result.reason = "ended before the entry point (no exit status from the gdbstub)"
                return
            pc = stop["pc"]
            if pc == entry:
                break
            if pc == r_brk:
                if init_started:
                    continue  # an initialiser dlopen()ed something: not the loader's initial work
                try:
                    entries = self._entries(proc)
                except _GdbError as exc:
                    hit_errors.append(str(exc))
                    continue
                key = tuple((a, ld) for a, _, ld in entries)
                if key == last_key:
                    continue
                last_key = key
                try:
                    loaded = self._match(proc, entries)
                except _GdbError as exc:  # e.g. names not set yet
                    hit_errors.append(str(exc))
                    continue
                snapshot = (loaded, self._read_slots(proc, loaded))
                new = self._init_addresses(proc, loaded) - init_bps - {entry, r_brk}
                if new:
                    pipe.ask({"op": "break", "addrs": sorted(new)})
                    init_bps |= new
                continue
            if pc in init_bps:
                init_started = True  # the first initialiser: the loader's relocation is complete
                pipe.ask({"op": "delete", "addrs": sorted(init_bps | ({r_brk} if r_brk is not None else set()))})
                continue
            signals = [s for _, s in stop.get("stops", []) if s]
            result.reason = f"stopped at {pc:#x} before the entry point {entry:#x}: signal {signals}"
            return
        else:
            raise _GdbError("more than 10000 stops before the entry point")
        final = self._match(proc, self._entries(proc))
        if snapshot is None:  # no debugger hook: read at the entry point
            used, values = final, self._read_slots(proc, final)
            result.snapshot = "entry" + (f" (r_brk hits failed: {hit_errors[-1]})" if hit_errors else "")
        else:
            used, values = snapshot
            result.snapshot = "relocated"
            before = {(o.path, o.base) for o in used}
            result.late_objects = [o.path for o in final if (o.path, o.base) not in before]
            now = self._read_slots(proc, used)
            for obj, old, new in zip(used, values, now, strict=True):
                for slot, a, b in zip(obj.elf.slots(), old, new, strict=True):
                    if a != b and not slot.local and slot.kind != "copy":
                        result.changed_by_init.add((obj.path, slot.name, slot.version))
        if used[0].path != exe or used[0].base != proc.bias:
            raise _GdbError(f"the link map does not start with the program: {used[0].path} at {used[0].base:#x}")
        result.objects = [obj.path for obj in used]
        result.prelinked = DT_GNU_LIBLIST in elf.tags and all(obj.base == 0 for obj in used[1:])
        self._bindings(used, values, result)
        result.covered = True

    # ------------------------------------------------------------------ r_debug and the link map

    def _find_r_debug(self, proc: _Process) -> int:
        elf, w, pipe = proc.elf, proc.elf.word, proc.pipe
        dyn = elf.dynamic
        if dyn is None:
            raise _GdbError(f"{proc.exe} has no PT_DYNAMIC")
        (raw,) = pipe.ask({"op": "read", "ranges": [[proc.bias + dyn.vaddr, dyn.filesz]]})["data"]
        words = proc.words(raw, dyn.filesz // w)
        pointers = []  # addresses of words that hold the r_debug address
        for i in range(0, len(words) - 1, 2):
            tag, val = words[i], words[i + 1]
            if tag == DT_NULL:
                break
            if tag == DT_DEBUG and val:
                return val
            if elf.machine == "EM_MIPS" and tag == DT_MIPS_RLD_MAP_REL:
                pointers.append((proc.bias + dyn.vaddr + i * w + val) & proc.mask)
            elif elf.machine == "EM_MIPS" and tag == DT_MIPS_RLD_MAP and val and elf.e_type == 2:
                pointers.append(val)
        if pointers:
            for raw_ptr in pipe.ask({"op": "read", "ranges": [[p, w] for p in pointers]})["data"]:
                if raw_ptr is not None and (value := proc.words(raw_ptr, 1)[0]):
                    return value
        # the interpreter's exported r_debug (glibc) or pointer to it (uClibc, musl)
        if elf.interp and proc.auxv.get(AT_BASE):
            base = self._interp_bias(proc)
            ld = self.elf(self.loader.canonical(elf.interp))
            for name, indirect in (("_r_debug", False), ("_dl_debug_addr", True)):
                value = _find_symbol(ld, name)
                if value is None:
                    continue
                if not indirect:
                    return base + value
                (raw_ptr,) = pipe.ask({"op": "read", "ranges": [[base + value, w]]})["data"]
                if raw_ptr is not None and (ptr := proc.words(raw_ptr, 1)[0]):
                    return ptr
        raise _GdbError(f"{proc.exe}: r_debug not found (DT_DEBUG empty, no MIPS RLD map, no loader symbol)")

    def _interp_bias(self, proc: _Process) -> int:
        """The interpreter's load bias: AT_BASE is where its first page is (a prelinked ld.so is not at 0)."""
        ld = self.elf(self.loader.canonical(proc.elf.interp or ""))
        page = proc.auxv.get(AT_PAGESZ) or 4096
        low = min((s.vaddr for s in ld.loads), default=0) & ~(page - 1)
        return (proc.auxv[AT_BASE] - low) & proc.mask

    def _entries(self, proc: _Process) -> list[tuple[int, str, int]]:
        """The link map as r_debug shows it now: (l_addr, l_name, l_ld) per entry, in chain order."""
        w, pipe = proc.elf.word, proc.pipe
        if proc.r_debug is None:
            proc.r_debug = self._find_r_debug(proc)
        (raw,) = pipe.ask({"op": "read", "ranges": [[proc.r_debug, 2 * w]]})["data"]
        _version, node = proc.words(raw, 2)
        raw_entries = []
        seen = set()
        while node:
            if node in seen or len(raw_entries) >= 4096:
                raise _GdbError(f"link map loops at {node:#x}")
            seen.add(node)
            (raw,) = pipe.ask({"op": "read", "ranges": [[node, 4 * w]]})["data"]
            l_addr, l_name, l_ld, l_next = proc.words(raw, 4)
            raw_entries.append((l_addr, l_name, l_ld))
            node = l_next
        unknown = sorted({n for _, n, _ in raw_entries if n and n not in proc.names})
        if unknown:
            for ptr, raw_name in zip(unknown, pipe.ask({"op": "str", "addrs": unknown})["data"], strict=True):
                proc.names[ptr] = bytes.fromhex(raw_name).decode(errors="surrogateescape") if raw_name else ""
        return [(a, proc.names.get(n, "") if n else "", ld) for a, n, ld in raw_entries]

    def _match(self, proc: _Process, entries: list[tuple[int, str, int]]) -> list[_Loaded]:
        """Each link-map entry's file: its name resolved in the root, checked by l_ld."""
        interp = self.loader.canonical(proc.elf.interp) if proc.elf.interp else None
        loaded: list[_Loaded] = []
        for i, (l_addr, name, l_ld) in enumerate(entries):
            candidates = [proc.exe] if i == 0 else []
            if name:
                candidates.append(self.loader.canonical(name))
            if interp and proc.auxv.get(AT_BASE) and l_addr == self._interp_bias(proc):
                candidates.append(interp)
            match = None
            for path in candidates:
                if not (self.root / path.lstrip("/")).is_file():
                    continue
                obj = self.elf(path)
                if obj.dynamic is not None and (l_addr + obj.dynamic.vaddr) & proc.mask == l_ld:
                    match = _Loaded(path, l_addr, obj)
                    break
            if match is None:
                if name.startswith("linux-") and "/" not in name:
                    continue  # the vDSO: no file behind it
                raise _GdbError(
                    f"link map entry {i} ({name!r}, l_addr {l_addr:#x}, l_ld {l_ld:#x}) matches no "
                    f"file of the root (tried {candidates})"
                )
            loaded.append(match)
        if not loaded:
            raise _GdbError("empty link map")
        return loaded

    def _init_addresses(self, proc: _Process, loaded: list[_Loaded]) -> set[int]:
        """Where the objects' initialisers start (DT_INIT, DT_INIT_ARRAY, the program's DT_PREINIT_ARRAY)."""
        addrs: set[int] = set()
        arrays: list[tuple[int, int, int]] = []  # (object index, address, count)
        for k, obj in enumerate(loaded):
            tags = obj.elf.tags
            if tags.get(DT_INIT):
                addrs.add((obj.base + tags[DT_INIT]) & proc.mask)
            for tag, size_tag in ((DT_INIT_ARRAY, DT_INIT_ARRAYSZ), (DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ)):
                if tags.get(tag) and tags.get(size_tag):
                    arrays.append((k, (obj.base + tags[tag]) & proc.mask, min(tags[size_tag] // obj.elf.word, 4096)))
        if arrays:
            data = proc.pipe.ask({"op": "read", "ranges": [[a, n * proc.elf.word] for _, a, n in arrays]})["data"]
            for (_, _a, n), raw in zip(arrays, data, strict=True):
                if raw is not None:
                    addrs.update(proc.words(raw, n))
        inside = set()
        for addr in addrs:  # unrelocated entries (read before relocation) point nowhere: dropped
            code = proc.code_address(addr)
            if code and any(o.base + s.vaddr <= code < o.base + s.vaddr + s.memsz for o in loaded for s in o.elf.loads):
                inside.add(code)
        return inside

    # ------------------------------------------------------------------ slots

    def _read_slots(self, proc: _Process, loaded: list[_Loaded]) -> list[list[int | None]]:
        """The current value of every slot of every object (None: unreadable), in slots() order."""
        order = "little" if proc.elf.endian == "<" else "big"
        w = proc.elf.word
        ranges: list[tuple[int, int, int, int]] = []  # (address, size, object index, vaddr)
        for k, obj in enumerate(loaded):
            for a, n in _runs(obj.elf, obj.elf.slots()):
                ranges.append(((obj.base + a) & proc.mask, n, k, a))
        data = proc.pipe.ask({"op": "read", "ranges": [[a, n] for a, n, _, _ in ranges]})["data"]
        memory: dict[int, list[tuple[int, int, bytes | None]]] = {}
        for (_, n, k, a), raw in zip(ranges, data, strict=True):
            memory.setdefault(k, []).append((a, n, bytes.fromhex(raw) if raw is not None else None))
        out = []
        for k, obj in enumerate(loaded):
            blobs = memory.get(k, [])
            starts = [a for a, _, _ in blobs]
            vals: list[int | None] = []
            for slot in obj.elf.slots():
                size = 2 * w if slot.kind == "tlsdesc" else slot.size
                i = bisect.bisect_right(starts, slot.vaddr) - 1
                value = None
                if i >= 0:
                    a, n, blob = blobs[i]
                    if blob is not None and slot.vaddr + size <= a + n:
                        value = int.from_bytes(blob[slot.vaddr - a : slot.vaddr - a + size], order)
                if value is not None and slot.kind == "tlsdesc":  # the descriptor's argument: its second word
                    value = value >> (8 * w) if order == "little" else value & ((1 << 8 * w) - 1)
                vals.append(value)
            out.append(vals)
        return out

    def _bindings(self, loaded: list[_Loaded], values: list[list[int | None]], result: RuntimeTrace) -> None:
        """Map every slot's value to its provider (see the module docstring)."""
        first = loaded[0].elf
        w, mask = first.word, (1 << first.bits) - 1
        spans = sorted(
            ((obj.base + s.vaddr) & mask, (obj.base + s.vaddr + s.memsz) & mask, k)
            for k, obj in enumerate(loaded)
            for s in obj.elf.loads
            if s.memsz
        )
        starts = [s for s, _, _ in spans]

        def owner(addr: int) -> int | None:
            i = bisect.bisect_right(starts, addr) - 1
            if i >= 0 and spans[i][0] <= addr < spans[i][1]:
                return spans[i][2]
            ends = {k for _, e, k in spans if e == addr}  # one past a segment's end (_end, __bss_end__)
            return ends.pop() if len(ends) == 1 else None

        # TLS calibration from each object's own lookup-free TLS slots
        tp_base: dict[int, set[int]] = {}
        mod_id: dict[int, set[int]] = {}
        for k, obj in enumerate(loaded):
            for slot, value in zip(obj.elf.slots(), values[k], strict=True):
                if value is None or not slot.local:
                    continue
                if slot.kind in ("tpoff", "tpoff_neg", "tlsdesc"):
                    tp_base.setdefault(k, set()).add(_tp_coordinate(slot, value, w) - slot.st_value)
                elif slot.kind == "dtpmod":
                    mod_id.setdefault(k, set()).add(value)
        blocks = [(next(iter(b)), k) for k, b in tp_base.items() if len(b) == 1 and loaded[k].elf.tls]
        ids = {next(iter(m)): k for k, m in mod_id.items() if len(m) == 1}

        def tls_owner(c: int) -> int | None:
            hits = [k for base, k in blocks if base <= c < base + loaded[k].elf.tls.memsz]  # type: ignore[union-attr]
            return hits[0] if len(hits) == 1 else None

        for k, obj in enumerate(loaded):
            module = obj.path
            slots = obj.elf.slots()
            writers: dict[int, int] = {}
            for slot in slots:
                if slot.kind != "dtpoff" and not slot.local:
                    writers[slot.vaddr] = writers.get(slot.vaddr, 0) + 1
            dtpmod_refs = {(s.name, s.version) for s in slots if s.kind == "dtpmod" and not s.local}
            for slot, value in zip(slots, values[k], strict=True):
                if slot.local:
                    continue
                ref: RefKey = (module, slot.name, slot.version)
                result.slots += 1
                if slot.kind == "copy":
                    result.copies.add(ref)
                    continue
                if slot.kind == "unknown":
                    result.unobserved[ref] = f"relocation type {slot.rtype} of {obj.elf.machine} not handled"
                    continue
                if slot.kind == "dtpoff":
                    if (slot.name, slot.version) not in dtpmod_refs:
                        result.unobserved[ref] = "DTPOFF without a DTPMOD of the same reference: module unknown"
                    continue
                if value is None:
                    result.unobserved[ref] = f"slot {slot.vaddr:#x} not readable"
                    continue
                if writers[slot.vaddr] > 1:
                    result.unobserved[ref] = f"slot {slot.vaddr:#x} written by several symbol relocations"
                    continue
                provider: int | None
                if slot.kind == "dtpmod":
                    provider = ids.get(value)
                    if provider is None:
                        result.unobserved[ref] = f"TLS module id {value} not calibrated"
                        continue
                elif slot.kind in ("tpoff", "tpoff_neg", "tlsdesc"):
                    c = _tp_coordinate(slot, value, w)
                    provider = tls_owner(c)
                    if provider is None:
                        result.unobserved[ref] = f"TLS offset {c:#x} in no calibrated TLS block"
                        continue
                else:
                    if slot.kind == "mips_got":
                        s = value
                    elif slot.kind == "pcrel":  # a signed displacement of the slot's size
                        bits = 8 * slot.size
                        signed = value - (1 << bits) if value >= 1 << (bits - 1) else value
                        s = (signed - slot.addend + obj.base + slot.vaddr) & mask
                    else:  # abs and got: the addend is 0 for REL GOT/PLT slots
                        s = value - slot.addend
                    s &= (1 << (8 * slot.size)) - 1 if slot.size < w and slot.kind != "pcrel" else mask
                    if s == 0 and not slot.defined:
                        result.unresolved.add(ref)
                        continue
                    provider = owner(s)
                    if provider is None:
                        result.unobserved[ref] = f"value {value:#x} (S={s:#x}) in no loaded object"
                        continue
                key: BindingKey = (module, slot.name, slot.version, loaded[provider].path)
                if loaded[provider].path == module:
                    result.self_bindings.add(key)
                    continue
                result.bindings.add(key)
                if slot.kind not in TLS_KINDS and not loaded[provider].elf.defines(slot.name, slot.version):
                    result.redirected.add(key)  # an IFUNC resolver elsewhere returned this address


def _tp_coordinate(slot: Slot, raw_value: int, word: int) -> int:
    """The loader's part of a thread-pointer-relative TLS slot (block start + symbol offset)."""
    bits = 8 * (word if slot.kind == "tlsdesc" else slot.size)
    value = raw_value - (1 << bits) if raw_value >= 1 << (bits - 1) else raw_value
    if slot.kind == "tpoff_neg":
        return slot.addend - value
    return value - slot.addend


def _runs(elf: DynElf, slots: list[Slot], gap: int = 256) -> list[tuple[int, int]]:
    """(vaddr, size) ranges covering every slot, merging slots less than ``gap`` apart in one segment."""
    spans = []
    for slot in slots:
        size = 2 * elf.word if slot.kind == "tlsdesc" else slot.size
        seg = next((i for i, s in enumerate(elf.loads) if s.vaddr <= slot.vaddr < s.vaddr + s.memsz), -1)
        spans.append((seg, slot.vaddr, slot.vaddr + size))
    spans.sort()
    out: list[list[int]] = []
    last_seg = None
    for seg, start, end in spans:
        if out and seg == last_seg and seg >= 0 and start - out[-1][1] <= gap:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
            last_seg = seg
    return [(s, e - s) for s, e in out]


def _parse_auxv(stack: bytes, elf: DynElf) -> dict[int, int]:
    """The auxiliary vector from the initial stack: argc, argv..., 0, envp..., 0, (type, value)..."""
    w = elf.word
    order = "little" if elf.endian == "<" else "big"
    words = [int.from_bytes(stack[i : i + w], order) for i in range(0, len(stack) - w + 1, w)]
    if not words:
        raise _GdbError("empty initial stack")
    i = 1 + words[0]  # past argc and argv
    if i >= len(words) or words[i] != 0:
        raise _GdbError("initial stack: argv not NULL-terminated")
    i += 1
    while i < len(words) and words[i] != 0:  # envp
        i += 1
    i += 1
    auxv = {}
    while i + 1 < len(words):
        key, value = words[i], words[i + 1]
        if key == AT_NULL:
            return auxv
        auxv[key] = value
        i += 2
    raise _GdbError("initial stack: auxiliary vector not terminated within the bytes read")


def _find_symbol(elf: DynElf, name: str) -> int | None:
    """Value of a defined dynamic symbol of that name (None if there is none)."""
    for i in range(1, elf.symbol_count()):
        try:
            sname, value, _sz, _info, _other, shndx = elf.symbol(i)
        except ElfFormatError:
            return None
        if sname == name and shndx != 0 and value:
            return value
    return None


def _tail(path: Path, limit: int = 1500) -> str:
    try:
        text = path.read_bytes().decode(errors="backslashreplace")
    except OSError:
        return ""
    return text[-limit:].strip()


def _stop(proc: subprocess.Popen, grace: float) -> None:
    """Wait ``grace`` seconds for a process we started to end, then kill its process group."""
    try:
        proc.wait(timeout=grace)
        return
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


# --------------------------------------------------------------------------- against LD_DEBUG=bindings


@dataclass
class LdDebugComparison:
    """The runtime oracle against glibc's trace-mode ``LD_DEBUG=bindings`` (tests/oracle.GlibcTrace), aligned:

    * references *from* the interpreter are left out of both sides (trace mode never relocates ld.so;
      a real run does: counted in ``interpreter_bindings``);
    * LD_DEBUG keys whose (module, symbol, version) the runtime oracle lists as a copy relocation or
      as unobserved are left out of the LD_DEBUG side (counted in ``excluded``);
    * everything else must be equal, both ways, per program.
    """

    programs: list[str] = field(default_factory=list)
    runtime: int = 0
    ld_debug: int = 0
    common: int = 0
    interpreter_bindings: int = 0
    excluded: dict[str, int] = field(default_factory=lambda: {"copy": 0, "unobserved": 0})
    not_covered: dict[str, str] = field(default_factory=dict)
    link_map_diffs: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    only_runtime: dict[str, list[BindingKey]] = field(default_factory=dict)
    only_ld_debug: dict[str, list[BindingKey]] = field(default_factory=dict)
    explained: dict[str, int] = field(default_factory=dict)  # differing keys by reason (IFUNC, prelink)

    @property
    def equal(self) -> bool:
        return not (self.not_covered or self.link_map_diffs or self.only_runtime or self.only_ld_debug)

    def summary(self, examples: int = 8) -> str:
        lines = [
            f"{len(self.programs)} programs: runtime {self.runtime} cross-object bindings, LD_DEBUG {self.ld_debug}, "
            f"common {self.common}; left out: {self.interpreter_bindings} runtime bindings of the interpreter's own "
            f"references, LD_DEBUG keys of copy relocations {self.excluded['copy']}, of unobserved slots "
            f"{self.excluded['unobserved']}",
            f"not covered: {len(self.not_covered)}; link maps differing: {len(self.link_map_diffs)}; programs with "
            f"binding differences: {len(set(self.only_runtime) | set(self.only_ld_debug))}"
            + (f"; differing keys explained: {self.explained}" if self.explained else ""),
        ]
        for exe, reason in list(self.not_covered.items())[:examples]:
            lines.append(f"  NOT COVERED {exe}: {reason[:300]}")
        for exe, (ours, theirs) in list(self.link_map_diffs.items())[:examples]:
            lines.append(f"  link map {exe}:\n    runtime  {ours}\n    LD_TRACE {theirs}")
        for exe in sorted(set(self.only_runtime) | set(self.only_ld_debug))[:examples]:
            lines.append(f"  {exe}:")
            lines.extend(f"    only LD_DEBUG {b}" for b in self.only_ld_debug.get(exe, [])[:examples])
            lines.extend(f"    only runtime  {b}" for b in self.only_runtime.get(exe, [])[:examples])
        return "\n".join(lines)


LD_DEBUG_ENV = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "1", "LD_BIND_NOW": "1", "LD_DEBUG": "bindings"}


def device_ld_debug(loader: qo.DeviceLoader, executable: str) -> oracle.GlibcTrace:
    """glibc's trace-mode ``LD_DEBUG=bindings`` of a program, by the root's own glibc loader in the chroot
    (qemu_oracle.DeviceLoader), parsed like tests/oracle.py's (paths canonical in the root)."""
    exe = loader.canonical(executable)
    info = loader.elves[exe]
    proc = loader._run([loader._qemu(info), exe], LD_DEBUG_ENV)
    if proc.returncode != 0:
        raise qo.OracleError(f"{exe}: trace exited with {proc.returncode}: {proc.stderr[-800:]}")
    lines, static = oracle.parse_trace_list(proc.stdout)
    objects = [exe] + [loader.canonical(t.path) for t in lines if t.path is not None]
    interp = loader.canonical(info.interpreter) if info.interpreter else None
    trace = oracle.GlibcTrace(exe, interp, objects, [t.name for t in lines if t.path is None], static=static)
    return oracle.add_debug_output(trace, proc.stderr, loader.canonical, exe)


def compare_with_ld_debug(runtime: dict[str, RuntimeTrace], glibc: dict[str, oracle.GlibcTrace]) -> LdDebugComparison:
    """Compare per program (keys: canonical device paths); ``glibc`` maps to oracle.GlibcTrace objects."""
    out = LdDebugComparison()
    for exe in sorted(glibc):
        trace, rt = glibc[exe], runtime.get(exe)
        out.programs.append(exe)
        if rt is None or not rt.covered:
            out.not_covered[exe] = rt.reason if rt is not None else "not run"
            continue
        if rt.objects != trace.objects:
            out.link_map_diffs[exe] = (rt.objects, trace.objects)
        interp = trace.interpreter
        ours = {b for b in rt.bindings if b[0] != interp}
        out.interpreter_bindings += len(rt.bindings) - len(ours)
        theirs = set()
        for b in trace.cross_object({interp} if interp else set()):
            if b[:3] in rt.copies:
                out.excluded["copy"] += 1
            elif b[:3] in rt.unobserved:
                out.excluded["unobserved"] += 1
            else:
                theirs.add(b)
        out.runtime += len(ours)
        out.ld_debug += len(theirs)
        out.common += len(ours & theirs)
        if ours != theirs:
            out.only_runtime[exe] = sorted(ours - theirs, key=_sort_key)
            out.only_ld_debug[exe] = sorted(theirs - ours, key=_sort_key)
            for b in ours - theirs:
                why = "IFUNC redirect" if b in rt.redirected else "prelinked program" if rt.prelinked else "unexplained"
                out.explained[why] = out.explained.get(why, 0) + 1
    return out


# --------------------------------------------------------------------------- cache and API


def root_digest(root: str | os.PathLike[str]) -> str:
    """A hash of the root's files: paths, types, modes, link targets and contents."""
    h = hashlib.sha256()
    root = os.fspath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            h.update(f"{rel}/{name}\0{st.st_mode:o}\0".encode(errors="surrogateescape"))
            if os.path.islink(path):
                h.update(os.readlink(path).encode(errors="surrogateescape"))
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
            h.update(b"\n")
    return h.hexdigest()


def _source_digest() -> str:
    h = hashlib.sha256(CACHE_FORMAT.encode())
    for path in SOURCES:
        h.update(path.read_bytes())
    return h.hexdigest()


SOURCE_DIGEST = _source_digest()  # of the code as imported (an edit made later must not reuse the key)


def cache_path(root: str | os.PathLike[str]) -> Path:
    """``runtime-oracle/ROOT-SOURCE.json.gz`` in the test cache (ROOT, SOURCE: digest prefixes)."""
    return cache_dir() / "runtime-oracle" / f"{root_digest(root)[:20]}-{SOURCE_DIGEST[:12]}.json.gz"


def runtime_bindings(
    root: str | os.PathLike[str],
    executables: Iterable[str],
    jobs: int = 2,
    timeout: float = TIMEOUT,
    cache: bool = True,
) -> dict[str, RuntimeTrace]:
    """Run each program (device path) of the root to its entry point and read what it was bound to.

    Keys are canonical device paths.  Results are cached per (root contents, oracle source); a
    program not covered is cached too (with its reason), so the next call does not wait again.
    """
    root = Path(root).resolve()
    exes = list(dict.fromkeys(executables))
    path = cache_path(root) if cache else None
    cached = _load(path) if path is not None else {}
    canon = {e: qo.resolve_in_root(root, e) for e in exes}
    todo = [e for e in exes if canon[e] not in cached]
    fresh: dict[str, RuntimeTrace] = {}
    if todo:
        with RuntimeOracle(root, timeout=timeout) as oracle_:
            fresh = oracle_.trace_many(todo, jobs=jobs)
        if path is not None:
            _store(path, {k: t.to_json() for k, t in fresh.items()})
    out = {}
    for e in exes:
        key = canon[e]
        out[key] = fresh[key] if key in fresh else RuntimeTrace.from_json(cached[key])
    return out


def _load(path: Path) -> dict[str, dict]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, EOFError, ValueError):
        return {}  # absent or unreadable: computed again


def _store(path: Path, entries: dict[str, dict]) -> None:
    """Merge ``entries`` into the cache file (under a lock per root); drop the root's files of other sources."""
    path.parent.mkdir(parents=True, exist_ok=True)
    root_key = path.name.split("-")[0]
    with open(path.parent / f"{root_key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = _load(path)
        merged.update(entries)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump(merged, fh, sort_keys=True)
        os.replace(tmp, path)
        for stale in path.parent.glob(f"{root_key}-*.json.gz"):
            if stale != path:
                stale.unlink(missing_ok=True)
