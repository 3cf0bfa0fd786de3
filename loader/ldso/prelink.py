"""glibc's start of a prelinked program: no symbol lookups, the slots keep what prelink wrote.

glibc 2.21 ``dl_main`` (elf/rtld.c), once every object is loaded: when the program has
``DT_GNU_LIBLIST`` (and neither ``LD_PROFILE`` nor ``LD_DYNAMIC_WEAK`` is set, as on a device at
boot), each object of its search list after the program, in order, must be at its prelinked
address (``l_addr == 0``), have ``DT_CHECKSUM`` equal to the entry's ``l_checksum`` and
``DT_GNU_PRELINKED`` equal to its ``l_time_stamp``, and answer to the entry's ``l_name``
(``_dl_name_match_p``: the path it was opened under or a name it was loaded by); both lists must
end together. If so, nothing is relocated (``l_relocated = 1`` for every object, ``_dl_start``
does not even relocate a prelinked ld.so at its address): only the program's ``DT_GNU_CONFLICT``
RELA entries are applied (``_dl_resolve_conflicts`` → ``elf_machine_rela`` with no symbol: an
address slot becomes ``r_addend``). Every other slot holds the value prelink wrote into the file.

So a reference binds to the object whose prelinked address range holds its slot's value (minus the
relocation's addend). References whose slots say nothing this way (TLS, copy relocations, other
types, a value in no loaded object or in an object that does not define the name) keep the
lookup's answer.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from itertools import pairwise

from ..model import (
    STB_LOCAL,
    STB_WEAK,
    STV_HIDDEN,
    STV_INTERNAL,
    BindingKey,
    ElfFacts,
    FoundBy,
    LinkMap,
    Resolution,
    UnresolvedKey,
)
from .holdings import add_holding

# Relocation types whose slot holds an address (S + A) and whose conflict entry stores r_addend
# there (elf_machine_rela of each sysdeps/MACHINE/dl-machine.h), for the machines prelink supports.
ADDRESS_TYPES: dict[str, frozenset[int]] = {
    "EM_ARM": frozenset((2, 21, 22)),  # R_ARM_ABS32, R_ARM_GLOB_DAT, R_ARM_JUMP_SLOT
    "EM_386": frozenset((1, 6, 7)),  # R_386_32, R_386_GLOB_DAT, R_386_JMP_SLOT
    "EM_X86_64": frozenset((1, 6, 7)),  # R_X86_64_64, R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT
    "EM_AARCH64": frozenset((257, 1025, 1026)),  # R_AARCH64_ABS64, _GLOB_DAT, _JUMP_SLOT
}
_UNKNOWN = object()  # a slot whose value cannot be read as an address


def names_of(link_map: LinkMap, exe: ElfFacts) -> dict[str, set[str]]:
    """The names each object of the search list answers to (``l_name`` and ``l_libname``): its
    path, the names it was loaded by and the paths they were opened as; for the interpreter also
    ``PT_INTERP`` and its soname. Objects no DT_NEEDED entry reached (ld.so when nobody names it)
    are not in glibc's search list and not in the result."""
    names: dict[str, set[str]] = {}
    for edge in link_map.needed:
        if edge.target is None:
            continue
        found = names.setdefault(edge.target, {edge.target})
        found.add(edge.soname)
        if edge.directory and "/" not in edge.soname:
            found.add(posixpath.join(edge.directory, edge.soname))
        if edge.rule is FoundBy.INTERPRETER and exe.interpreter:
            found.add(exe.interpreter)
    return names


def check(link_map: LinkMap, objects: list[ElfFacts]) -> bool:
    """Does glibc's prelink check (``dl_main``) pass for this link map?"""
    exe = objects[0]
    if exe.prelink is None or exe.prelink.liblist is None or exe.machine not in ADDRESS_TYPES:
        return False
    if exe.elf_type != "ET_EXEC":  # a PIE is mapped elsewhere: rtld then maps no library at its address
        return False
    names = names_of(link_map, exe)
    search_list = [o for o in objects[1:] if o.path in names]
    liblist = exe.prelink.liblist
    if len(search_list) != len(liblist):
        return False
    for obj, (name, stamp, checksum) in zip(search_list, liblist, strict=True):
        info = obj.prelink
        if info is None or not info.loads or min(v for v, _ in info.loads) < 0x1000:  # l_addr would not be 0
            return False
        if info.checksum != checksum or info.timestamp != stamp or name not in names[obj.path]:
            return False
    ranges = sorted((v, v + size) for o in [exe, *search_list] for v, size in o.prelink.loads)  # type: ignore[union-attr]
    return all(a[1] <= b[0] for a, b in pairwise(ranges))  # each mappable where it was linked


class _Owners:
    """Which loaded object a prelinked address lies in (its PT_LOAD ranges; a segment's end too,
    when no segment contains the address: ``_end``)."""

    def __init__(self, objects: list[ElfFacts]) -> None:
        self.spans = [(v, v + size, o.path) for o in objects if o.prelink for v, size in o.prelink.loads]

    def __call__(self, addr: int) -> str | None:
        for start, end, path in self.spans:
            if start <= addr < end:
                return path
        for _start, end, path in self.spans:
            if addr == end:
                return path
        return None


def apply(
    link_map: LinkMap,
    objects: list[ElfFacts],
    looked_up: Resolution,
    out: Resolution,
    defines_name: Callable[[str, str], bool],
) -> None:
    """Add the bindings of a prelinked start to ``out``: each reference's slots as prelink and the
    conflicts left them; ``looked_up`` (what the lookups gave) for the references they do not tell.
    ``defines_name(path, name)`` says whether that object has a definition of ``name``."""
    exe = objects[0]
    exe_path = exe.path
    address_types = ADDRESS_TYPES[exe.machine]
    conflicts: dict[int, object] = {}
    for r_offset, rtype, r_addend in exe.prelink.conflicts:  # type: ignore[union-attr]
        conflicts[r_offset] = r_addend if rtype in address_types else _UNKNOWN
    owner = _Owners(objects)
    mask = (1 << (8 * (8 if exe.elf_class == 64 else 4))) - 1
    found: dict[tuple[str, str, str | None], tuple[set[str], bool | None]] = {}  # -> (providers, weak if 0)
    unknown: set[tuple[str, str, str | None]] = set()
    for obj in objects:
        if obj.prelink is None:
            continue
        for index, r_offset, rtype, value, addend in obj.prelink.slots:
            if index >= len(obj.symbols):
                continue
            sym = obj.symbols[index]
            if not sym.name or sym.bind == STB_LOCAL or sym.visibility in (STV_HIDDEN, STV_INTERNAL):
                continue
            key = (obj.path, sym.name, sym.version if (obj.has_versym and sym.version_index >= 2) else None)
            value = conflicts.get(r_offset, value)
            if rtype not in address_types or value is None or value is _UNKNOWN:
                unknown.add(key)
                continue
            target = (value - addend) & mask  # type: ignore[operator]
            providers = found.setdefault(key, (set(), None))[0]
            if target == 0 and not sym.defined:
                found[key] = (providers, sym.bind == STB_WEAK)
                continue
            provider = owner(target)
            if provider is None or not defines_name(provider, sym.name):
                unknown.add(key)
            else:
                providers.add(provider)
    replaced = {key: v for key, v in found.items() if key not in unknown}
    for (module, name, version, provider), exes in looked_up.bindings.items():
        if (module, name, version) not in replaced:
            for e in exes:
                add_holding(out.bindings, BindingKey(module, name, version, provider), e)
    for (module, name, version, weak), exes in looked_up.unresolved.items():
        if (module, name, version) not in replaced:
            for e in exes:
                add_holding(out.unresolved, UnresolvedKey(module, name, version, weak), e)
    for key, exes in looked_up.duplicates.items():
        for e in exes:
            add_holding(out.duplicates, key, e)
    for (module, name, version), (providers, weak) in replaced.items():
        for provider in sorted(providers):
            add_holding(out.bindings, BindingKey(module, name, version, provider), exe_path)
        if not providers and weak is not None:
            add_holding(out.unresolved, UnresolvedKey(module, name, version, weak), exe_path)
