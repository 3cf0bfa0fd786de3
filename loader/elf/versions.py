"""The symbol version tables, as glibc's ``_dl_check_map_versions`` builds them: version index ->
(version name, the file a DT_VERNEED entry names, or None for a DT_VERDEF definition).

The loader reads ``DT_VERNEED`` (the versions the object requires, each with its ``Elf_Vernaux``
records) and ``DT_VERDEF`` (those it defines, the base definition left out), found through the
dynamic tags like every other table; ``tables.read_symbols`` gives each symbol its entry through
``DT_VERSYM``. The chains are walked once per record, however they are linked: a hostile file
whose chains come back or share records costs no more than its bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from ..problems import ProblemCode
from .image import Image, Strings

DT_VERDEF, DT_VERDEFNUM, DT_VERNEED, DT_VERNEEDNUM = 0x6FFFFFFC, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF
VER_FLG_BASE = 1
MAX_VERSION_ENTRIES = 0x8000  # version indices are 15 bits wide

Version = tuple[str, str | None]  # (version name, the verneed's file name or None for a definition)
Note = Callable[[ProblemCode, str], None]  # ElfFacts.note


def version_table(img: Image, tags: dict[int, int], strings: Strings, note: Note | None = None) -> list[Version | None]:
    """Version index -> (name, verneed file or None), built like glibc's _dl_check_map_versions.

    Every record is read once: a chain that reaches a record already read (one that comes back,
    or records that are both an Elf_Verneed and an Elf_Vernaux) ends there, and ``note`` is told.
    Walked again and again as the loader would, such chains take 2**30 steps."""
    table: dict[int, Version] = {}
    data, e = img.data, img.e
    seen: set[int] = set()
    again: list[int] = []  # the file offsets where a chain reached a record already read
    if DT_VERNEED in tags:
        pos = img.offset(tags[DT_VERNEED], 16, "DT_VERNEED")
        for _ in range(min(tags.get(DT_VERNEEDNUM, MAX_VERSION_ENTRIES), MAX_VERSION_ENTRIES)):
            if pos in seen:
                again.append(pos)
                break
            seen.add(pos)
            _ver, cnt, vn_file, vn_aux, vn_next = struct.unpack_from(e + "HHIII", data, pos)
            filename = strings.get(vn_file, "verneed file name")
            aux = pos + vn_aux
            for _ in range(min(cnt, MAX_VERSION_ENTRIES)):
                if aux in seen:
                    again.append(aux)
                    break
                seen.add(aux)
                _hash, _flags, other, name, vna_next = struct.unpack_from(e + "IHHII", data, aux)
                table[other & 0x7FFF] = (strings.get(name, "verneed version name"), filename)
                if not vna_next:
                    break
                aux += vna_next
            if not vn_next:
                break
            pos += vn_next
    if DT_VERDEF in tags:
        pos = img.offset(tags[DT_VERDEF], 20, "DT_VERDEF")
        for _ in range(min(tags.get(DT_VERDEFNUM, MAX_VERSION_ENTRIES), MAX_VERSION_ENTRIES)):
            if pos in seen:
                again.append(pos)
                break
            seen.add(pos)
            _ver, flags, ndx, _cnt, _hash, vd_aux, vd_next = struct.unpack_from(e + "HHHHIII", data, pos)
            if not flags & VER_FLG_BASE:
                name = struct.unpack_from(e + "I", data, pos + vd_aux)[0]
                table[ndx & 0x7FFF] = (strings.get(name, "verdef version name"), None)
            if not vd_next:
                break
            pos += vd_next
    if again and note is not None:
        note(
            ProblemCode.VERSION_CHAIN_OVERLAP,
            f"the version chains reach {len(again)} record(s) a second time (first at file offset {again[0]:#x}); "
            "each record is read once",
        )
    result: list[Version | None] = [None] * (max(table, default=0) + 1)
    for index, entry in table.items():
        result[index] = entry
    return result
