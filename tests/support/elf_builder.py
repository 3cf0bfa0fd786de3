"""Hand-built ELF images: a minimal dynamic object of any class, byte order and machine (:func:`build_elf`)."""

from __future__ import annotations

import struct

BASE = 0x10000


def build_elf(
    *,
    is64: bool = True,
    little: bool = True,
    machine: int = 62,
    e_type: int = 3,
    symbols: list[tuple[str, int, int, int, int, int]] = (),
    relocs: list[tuple[int, int]] = (),
    rela: bool = True,
    jmprel: list[tuple[int, int]] = (),
    mips64_info: bool = False,
    tags: list[tuple[int, int]] = (),
    gnu_hash: bool = False,
    e_flags: int = 0,
) -> bytes:
    """A minimal dynamic object: one PT_LOAD covering the file, PT_DYNAMIC, dynsym/dynstr/hash/relocs.

    symbols: (name, bind, type, other, shndx, value); relocs/jmprel: (symbol index, type).
    """
    e = "<" if little else ">"
    ehsize, phentsize = (64, 56) if is64 else (52, 32)
    syms = [("", 0, 0, 0, 0, 0), *symbols]
    strtab = bytearray(b"\0")
    name_off = []
    for name, *_ in syms:
        name_off.append(strtab.find(name.encode("utf-8", "surrogateescape") + b"\0") if name else 0)
        if name and name_off[-1] < 0:
            name_off[-1] = len(strtab)
            strtab += name.encode("utf-8", "surrogateescape") + b"\0"
    pos = ehsize + 2 * phentsize
    blob = bytearray()

    def put(chunk: bytes) -> int:
        nonlocal blob
        while (pos + len(blob)) % 8:
            blob += b"\0"
        addr = BASE + pos + len(blob)
        blob += chunk
        return addr

    strtab_addr = put(bytes(strtab))
    symtab = b"".join(
        struct.pack(e + "IBBHQQ", off, b << 4 | t, o, nd, v, 0)
        if is64
        else struct.pack(e + "IIIBBH", off, v, 0, b << 4 | t, o, nd)
        for off, (_, b, t, o, nd, v) in zip(name_off, syms, strict=True)
    )
    symtab_addr = put(symtab)
    n = len(syms)
    if gnu_hash:  # one bucket holding symbols 1..n-1, the chain ends at the last one
        chain = [0] * (n - 1)
        chain[-1] = 1
        hash_addr = put(struct.pack(f"{e}4I{'Q' if is64 else 'I'}I{n - 1}I", 1, 1, 1, 0, 0, 1, *chain))
    else:
        hash_addr = put(struct.pack(e + "4I", 1, n, 0, 0) + b"\0" * 4 * n)

    def reloc_table(entries: list[tuple[int, int]]) -> bytes:
        out = b""
        for sym, typ in entries:
            if mips64_info:
                out += struct.pack(e + "QIBBBB", 0, sym, 0, 0, 0, typ)
            elif is64:
                out += struct.pack(e + "QQ", 0, sym << 32 | typ)
            else:
                out += struct.pack(e + "II", 0, sym << 8 | typ)
            if rela:
                out += struct.pack(e + ("q" if is64 else "i"), 0)
        return out

    ent = (24 if rela else 16) if is64 else (12 if rela else 8)
    dyn = [
        (5, strtab_addr),
        (10, len(strtab)),
        (6, symtab_addr),
        (11, 24 if is64 else 16),
        (0x6FFFFEF5 if gnu_hash else 4, hash_addr),
    ]
    if relocs:
        dyn += [
            (7 if rela else 17, put(reloc_table(relocs))),
            (8 if rela else 18, len(relocs) * ent),
            (9 if rela else 19, ent),
        ]
    if jmprel:
        dyn += [(23, put(reloc_table(jmprel))), (2, len(jmprel) * ent), (20, 7 if rela else 17)]
    dyn += [*list(tags), (0, 0)]
    dyn_addr = put(b"".join(struct.pack(e + ("QQ" if is64 else "II"), t, v) for t, v in dyn))
    dyn_size = len(dyn) * (16 if is64 else 8)
    total = pos + len(blob)
    if is64:
        ehdr = struct.pack(
            e + "HHIQQQIHHHHHH", e_type, machine, 1, 0, ehsize, 0, e_flags, ehsize, phentsize, 2, 64, 0, 0
        )
        phdrs = struct.pack(e + "IIQQQQQQ", 1, 5, 0, BASE, BASE, total, total, 0x1000) + struct.pack(
            e + "IIQQQQQQ", 2, 6, dyn_addr - BASE, dyn_addr, dyn_addr, dyn_size, dyn_size, 8
        )
    else:
        ehdr = struct.pack(
            e + "HHIIIIIHHHHHH", e_type, machine, 1, 0, ehsize, 0, e_flags, ehsize, phentsize, 2, 40, 0, 0
        )
        phdrs = struct.pack(e + "8I", 1, 0, BASE, BASE, total, total, 5, 0x1000) + struct.pack(
            e + "8I", 2, dyn_addr - BASE, dyn_addr, dyn_addr, dyn_size, dyn_size, 6, 4
        )
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 1 if little else 2, 1, 0]) + b"\0" * 8
    return ident + ehdr + phdrs + bytes(blob)


EM_MIPS, DT_MIPS_SYMTABNO, DT_MIPS_GOTSYM = 8, 0x70000011, 0x70000013
MIPS_SYMS = [
    ("copied", 1, 1, 0, 5, 0x100),
    ("slot", 1, 2, 0x8, 0, 0x200),
    ("plain", 1, 1, 0, 0, 0),
    ("got_def", 1, 2, 0, 5, 0x300),
    ("got_undef", 1, 2, 0, 0, 0),
    ("got_sec", 0, 3, 0, 5, 0),
]
