"""The traced process as the runtime oracle (runtime_oracle.py) sees it: auxiliary vector, r_debug, link map.

``r_debug`` is found through the program's in-memory dynamic section (``DT_DEBUG``; on MIPS
``DT_MIPS_RLD_MAP``/``DT_MIPS_RLD_MAP_REL``), else the interpreter's exported ``_r_debug`` or
``_dl_debug_addr``; each link-map entry (``l_addr, l_name, l_ld, l_next``) is matched to its file in
the root and checked by ``l_ld``; the initialisers' addresses are where the snapshots end (see
runtime_oracle.py's module docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .runtime_elf import (
    AT_BASE,
    AT_NULL,
    AT_PAGESZ,
    DT_DEBUG,
    DT_INIT,
    DT_INIT_ARRAY,
    DT_INIT_ARRAYSZ,
    DT_MIPS_RLD_MAP,
    DT_MIPS_RLD_MAP_REL,
    DT_NULL,
    DT_PREINIT_ARRAY,
    DT_PREINIT_ARRAYSZ,
    DynElf,
    _find_symbol,
)
from .runtime_gdb import _GdbError, _Pipe


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


class _LinkMapReader:
    """RuntimeOracle's reading of r_debug and the link map (a mixin: uses its ``root``, ``loader`` and ``elf()``)."""

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
