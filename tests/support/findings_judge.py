"""A judge of licence finding (a), per program, from the JSON report's link maps and bindings and the
root's ELF files alone (docs/licences.md; issue 26).

Nothing here comes from linkgraph's loader: the report gives only what the project computed about the
loader (which objects each program loads, in which order, and which object each symbol reference of
that process binds to); everything the finding decides from that is decided here, and the ELF facts
it needs (defined dynamic symbols with their versions, copy relocations) are read from the files with
pyelftools.

The rules, for one program P (one link map: its executable, or a library rooted at itself):

* **name matching**: a ``DT_NEEDED`` name of an object names the first object of P's link map, in load
  order, whose soname, file name or one of whose aliases' file names is that name (a name with a
  ``/`` names the object at that path or with that alias);
* **O's own tree**: O and the breadth-first closure of its ``DT_NEEDED`` names, matched that way;
* **copy binding**: a binding whose provider is P's executable (the first object) when that
  executable holds an ``R_*_COPY`` relocation for the symbol;
* **interposed binding**: O binds s to a provider outside O's own tree while some object of O's own
  tree (O included) defines s acceptably: a defined (not ``SHN_UNDEF``) global, weak or unique
  symbol of an allowed type (no type, object, function, common, TLS, IFUNC), default or protected
  visibility, and a version the reference accepts (glibc's ``check_match``: a versioned reference
  takes the same version name, or a definition not hidden whose index names no version of its
  object, or any definition of an object without version table; an unversioned reference takes a
  definition of index 0 to 2, or one not hidden; glibc also skips a value 0 not absolute nor TLS;
  musl: any definition whose version is not hidden; uClibc: versions are not checked);
* **upcall binding**: O binds s to a provider outside O's own tree, the binding is not interposed,
  and O is in the provider's own tree: the provider loads O, and O calls back into it (uClibc's
  libc calling the program's ``main``). So the program whose link map loads O (its own tree is
  that link map) is never the target of a hop from O, nor is any library whose tree loads O;
* **hop status** in P: ``used`` when one of the source's ``DT_NEEDED`` names names the target and at
  least one binding of P goes from source to target (copy bindings included); ``hidden`` when none
  names it and at least one binding of P from source to target is neither a copy binding nor
  interposed nor an upcall;
* **row**: a path m -> ... -> g of 1 to 4 hops, no module twice, m of licence class ``incompatible``
  or ``unknown``, g of class ``gpl``, no module before g of class ``gpl``, every hop holding in P
  with its status; its programs are every P in which it holds so, and it is a row when one does.

:func:`judge` returns the rows as ``(module, gpl_module, hops, statuses, programs)`` tuples;
:func:`Judge` keeps counts of what it decided (interposed, upcall and copy bindings left out) for reports.
"""

from __future__ import annotations

import os
import struct
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elftools.common.exceptions import ELFError
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelrRelocationTable

MAX_HOPS = 4
STARTS = frozenset({"incompatible", "unknown"})

Row = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]

# R_*_COPY per e_machine (the ELF psABIs)
COPY_RELOC = {
    "EM_386": 5,
    "EM_X86_64": 5,
    "EM_ARM": 20,
    "EM_AARCH64": 1024,
    "EM_MIPS": 126,
    "EM_PPC": 19,
    "EM_PPC64": 19,
    "EM_SPARC": 19,
    "EM_SPARCV9": 19,
    "EM_SH": 162,
    "EM_68K": 19,
    "EM_S390": 9,
    "EM_RISCV": 4,
    "EM_LOONGARCH": 4,
}
STT_ALLOWED = frozenset({0, 1, 2, 5, 6, 10})  # NOTYPE OBJECT FUNC COMMON TLS GNU_IFUNC
STB_ALLOWED = frozenset({1, 2, 10})  # GLOBAL WEAK GNU_UNIQUE
STV_ALLOWED = frozenset({0, 3})  # DEFAULT PROTECTED
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
VERSYM_HIDDEN = 0x8000


@dataclass(frozen=True)
class Definition:
    """One defined dynamic symbol as the loader sees it."""

    version: str | None  # the verdef name of its version index (1 too: a versioned object's base), else None
    index: int  # the version index without the hidden bit (0 or 1: no version; -1: no version table)
    hidden: bool  # the version's hidden bit
    value: int
    shndx: int
    stt: int


@dataclass
class ElfFacts:
    """What the judge reads of one file: its defined dynamic symbols and its copy relocations."""

    machine: str = ""
    definitions: dict[str, list[Definition]] = field(default_factory=dict)
    copies: frozenset[str] = frozenset()
    error: str | None = None


def _read_table(elf: ELFFile, address: int, size: int) -> bytes:
    offset = next(elf.address_offsets(address, size), None)
    if offset is None:
        return b""
    elf.stream.seek(offset)
    return elf.stream.read(size)


def _string(strtab: bytes, offset: int) -> str:
    end = strtab.find(b"\0", offset)
    return strtab[offset : end if end >= 0 else len(strtab)].decode("utf-8", "surrogateescape")


def _verdef_names(elf: ELFFile, tags: dict[str, int], strtab: bytes, order: str) -> dict[int, str]:
    """Version index -> name, from the DT_VERDEF chain (each Verdef's first Verdaux names it)."""
    names: dict[int, str] = {}
    address, count = tags.get("DT_VERDEF"), tags.get("DT_VERDEFNUM", 0)
    if address is None:
        return names
    offset = next(elf.address_offsets(address), None)
    if offset is None:
        return names
    stream = elf.stream
    for _ in range(min(count, 0xFFFF)):
        stream.seek(offset)
        raw = stream.read(20)
        if len(raw) < 20:
            break
        _version, _flags, ndx, cnt, _hash, aux, nxt = struct.unpack(order + "HHHHIII", raw)
        if cnt:
            stream.seek(offset + aux)
            raw_aux = stream.read(8)
            if len(raw_aux) == 8:
                name_off, _ = struct.unpack(order + "II", raw_aux)
                names[ndx] = _string(strtab, name_off)
        if not nxt:
            break
        offset += nxt
    return names


def read_facts(path: Path, copies: bool = False) -> ElfFacts:
    """The defined dynamic symbols (from DT_SYMTAB, as the loader reads them: section headers may
    be stripped) and, with ``copies``, the symbols of the file's R_*_COPY relocations."""
    facts = ElfFacts()
    try:
        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            facts.machine = elf["e_machine"]
            dynamic = next((s for s in elf.iter_segments() if isinstance(s, DynamicSegment)), None)
            if dynamic is None:
                return facts
            tags: dict[str, int] = {}
            for tag in dynamic.iter_tags():
                name = tag.entry.d_tag
                if isinstance(name, str) and name not in tags:
                    tags[name] = tag.entry.d_val
            if "DT_SYMTAB" not in tags or "DT_STRTAB" not in tags:
                return facts
            order = "<" if elf.little_endian else ">"
            strtab = _read_table(elf, tags["DT_STRTAB"], tags.get("DT_STRSZ", 0))
            count = dynamic.num_symbols()
            wide = elf.elfclass == 64
            entry = 24 if wide else 16
            symtab = _read_table(elf, tags["DT_SYMTAB"], count * entry)
            count = len(symtab) // entry
            versym = b""
            if "DT_VERSYM" in tags:
                versym = _read_table(elf, tags["DT_VERSYM"], count * 2)
            names = _verdef_names(elf, tags, strtab, order)
            layout = order + ("IBBHQQ" if wide else "IIIBBH")
            symbols: list[str] = [""] * count
            for i in range(count):
                fields = struct.unpack_from(layout, symtab, i * entry)
                if wide:
                    st_name, st_info, st_other, st_shndx, st_value, _size = fields
                else:
                    st_name, st_value, _size, st_info, st_other, st_shndx = fields
                symbols[i] = name = _string(strtab, st_name)
                if st_shndx == SHN_UNDEF or (st_info >> 4) not in STB_ALLOWED or (st_info & 0xF) not in STT_ALLOWED:
                    continue
                if (st_other & 0x3) not in STV_ALLOWED:
                    continue
                index, hidden = -1, False
                if len(versym) >= 2 * (i + 1):
                    (raw,) = struct.unpack_from(order + "H", versym, 2 * i)
                    index, hidden = raw & 0x7FFF, bool(raw & VERSYM_HIDDEN)
                definition = Definition(names.get(index) if index >= 1 else None, index, hidden, st_value, st_shndx,
                                        st_info & 0xF)  # fmt: skip
                facts.definitions.setdefault(name, []).append(definition)
            copy_type = COPY_RELOC.get(facts.machine)
            if copies and copy_type is not None:
                facts.copies = frozenset(_copies(dynamic, copy_type, symbols))
    except (OSError, ELFError, ValueError, struct.error, AssertionError) as e:
        facts.error = f"{type(e).__name__}: {e}"
    return facts


def _copies(dynamic: DynamicSegment, copy_type: int, symbols: list[str]) -> Iterator[str]:
    for table in dynamic.get_relocation_tables().values():
        if isinstance(table, RelrRelocationTable):  # relative relocations only: no symbol
            continue
        for reloc in table.iter_relocations():
            if reloc["r_info_type"] == copy_type and 0 < reloc["r_info_sym"] < len(symbols):
                yield symbols[reloc["r_info_sym"]]


def flavour_of(interpreter: str | None) -> str:
    name = os.path.basename(interpreter or "")
    if "musl" in name:
        return "musl"
    if "uClibc" in name:
        return "uclibc"
    return "glibc"


def acceptable(definition: Definition, version: str | None, flavour: str) -> bool:
    """Whether a reference to the symbol asking for ``version`` may bind to ``definition``."""
    if flavour == "glibc" and definition.value == 0 and definition.shndx != SHN_ABS and definition.stt != 6:
        return False
    if flavour == "uclibc" or definition.index < 0:  # no versions checked / an object without versions
        return True
    if flavour == "musl":
        return not definition.hidden
    if version is None:  # glibc, unversioned reference: the base or first version, or one not hidden
        return definition.index < 3 or not definition.hidden
    if definition.version == version:
        return True
    # another version: only a definition whose index names no version of the object (glibc's
    # check_match: l_versions[ndx].hash is 0), and not hidden
    return definition.version is None and not definition.hidden


class Judge:
    """Finding (a) of one scanned root, from its report and its files."""

    def __init__(self, report: dict[str, Any], root: Path) -> None:
        self.root = Path(root)
        self.modules: dict[str, dict[str, Any]] = {m["path"]: m for m in report["modules"]}
        self.link_maps: list[dict[str, Any]] = report["link_maps"]
        self.bindings: dict[str, list[tuple[str, str, str | None, str]]] = defaultdict(list)
        for b in report["bindings"]:
            if b["module"] != b["provider"]:
                self.bindings[b["executable"]].append((b["module"], b["symbol"], b["version"], b["provider"]))
        self._facts: dict[tuple[str, bool], ElfFacts] = {}
        self.counts: dict[str, int] = defaultdict(int)

    # ----------------------------------------------------------------- ELF facts

    def facts(self, path: str, copies: bool = False) -> ElfFacts:
        """The file's facts (read once; with ``copies`` its copy relocations too: executables only)."""
        key = (path, copies)
        found = self._facts.get(key)
        if found is None:
            file = self.root / path.lstrip("/")
            found = read_facts(file, copies) if file.is_file() else ElfFacts(error="not a file in the root")
            self._facts[key] = found
            if found.error:
                self.counts["unreadable files"] += 1
        return found

    def klass(self, path: str) -> str:
        module = self.modules.get(path)
        return (module or {}).get("licence_class") or "unknown"

    # ----------------------------------------------------------------- one program

    def _names(self, objects: list[str]) -> dict[str, str]:
        """DT_NEEDED name -> the first object of the link map it names."""
        names: dict[str, str] = {}
        for path in objects:
            module = self.modules.get(path, {})
            keys = [module.get("soname"), path.rsplit("/", 1)[-1], path]
            for alias in module.get("aliases") or []:
                keys += [alias.rsplit("/", 1)[-1], alias]
            for key in keys:
                if key:
                    names.setdefault(key, path)
        return names

    def program_hops(self, link_map: dict[str, Any]) -> dict[tuple[str, str], str]:
        """(source, target) -> status of every hop that holds in this program, for sources that are
        not GPL (a path stops at its first GPL module, so no hop leaves one)."""
        objects: list[str] = link_map["objects"]
        executable = objects[0]
        names = self._names(objects)
        interpreters = (self.modules.get(o, {}).get("interpreter") for o in objects)
        flavour = flavour_of(next((i for i in interpreters if i), None))
        declared: dict[str, set[str]] = {}
        trees: dict[str, list[str]] = {}

        def declares(source: str) -> set[str]:
            found = declared.get(source)
            if found is None:
                needed = self.modules.get(source, {}).get("needed") or []
                found = declared[source] = {names[n] for n in needed if n in names}
            return found

        def tree(source: str) -> list[str]:
            found = trees.get(source)
            if found is None:
                found, queue, seen = [], [source], {source}
                while queue:
                    current = queue.pop(0)
                    found.append(current)
                    for n in self.modules.get(current, {}).get("needed") or []:
                        target = names.get(n)
                        if target is not None and target not in seen:
                            seen.add(target)
                            queue.append(target)
                trees[source] = found
            return found

        hops: dict[tuple[str, str], str] = {}
        for module, symbol, version, provider in self.bindings.get(link_map["executable"], ()):
            pair = (module, provider)
            if pair in hops or self.klass(module) == "gpl":
                continue
            if provider in declares(module):
                hops[pair] = "used"
                continue
            if provider == executable and symbol in self.facts(executable, copies=True).copies:
                self.counts["copy bindings"] += 1
                continue
            own = tree(module)
            if provider not in own and any(
                acceptable(d, version, flavour) for o in own for d in self.facts(o).definitions.get(symbol, ())
            ):
                self.counts["interposed bindings"] += 1
                continue
            if provider not in own and module in tree(provider):  # the provider loads the module
                self.counts["upcall bindings"] += 1
                continue
            hops[pair] = "hidden"
        return hops

    def paths(self, link_map: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
        hops = self.program_hops(link_map)
        out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for (source, target), status in sorted(hops.items()):
            out[source].append((target, status))

        def walk(path: list[str], statuses: list[str]) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
            for target, status in out.get(path[-1], ()):
                if target in path:
                    continue
                if self.klass(target) == "gpl":
                    yield (*path, target), (*statuses, status)
                elif len(path) < MAX_HOPS:
                    yield from walk([*path, target], [*statuses, status])

        for start in out:
            if self.klass(start) in STARTS:
                yield from walk([start], [])

    def rows(self) -> set[Row]:
        programs: dict[tuple[tuple[str, ...], tuple[str, ...]], set[str]] = defaultdict(set)
        for link_map in self.link_maps:
            for found in self.paths(link_map):
                programs[found].add(link_map["executable"])
        return {(hops[0], hops[-1], hops, statuses, tuple(sorted(p))) for (hops, statuses), p in programs.items()}


def judge(report: dict[str, Any], root: Path) -> set[Row]:
    """Finding (a) of a scanned root, decided from its report's link maps and bindings and its files."""
    return Judge(report, root).rows()


def rows_of(found: Iterable[dict[str, Any]]) -> set[Row]:
    """The product's (a) rows, as the report or the viewer gives them (hops as {from, to, status}),
    in the judge's form."""
    rows: set[Row] = set()
    for r in found:
        hops = (r["hops"][0]["from"], *(h["to"] for h in r["hops"])) if r["hops"] else ()
        rows.add((r["module"], r["gpl_module"], hops, tuple(h["status"] for h in r["hops"]), tuple(r["programs"])))
    return rows


def query_rows(found: Iterable[dict[str, Any]]) -> set[Row]:
    """The product's (a) rows as ``linkgraph query licence-gpl-used-by --json`` gives them."""
    return {
        (r["module"], r["gpl_module"], tuple(r["hops"]), tuple(r["statuses"]), tuple(r.get("programs") or ()))
        for r in found
    }


def show(row: Row) -> str:
    """One row as a line: the chain with each hop's status, and its first programs."""
    _module, _gpl, hops, statuses, programs = row
    chain = hops[0] + "".join(f" -{s}-> {h}" for s, h in zip(statuses, hops[1:], strict=True))
    listed = ", ".join(programs[:3]) + (f" and {len(programs) - 3} more" if len(programs) > 3 else "")
    return f"{chain} in [{listed}]"


def differences(name: str, want: set[Row], got: set[Row], what: str, shown: int = 5) -> str | None:
    """None when ``got`` (the product's rows) is ``want`` (the judge's), else what differs: the paths
    only one side finds and, for a path both find, the programs only one side names."""
    if got == want:
        return None
    mine = {r[2:4]: r for r in want}
    theirs = {r[2:4]: r for r in got}
    only_judge = sorted(set(mine) - set(theirs))
    only_product = sorted(set(theirs) - set(mine))
    differ = sorted(k for k in set(mine) & set(theirs) if mine[k] != theirs[k])
    lines = [f"{name}: {what} gives {len(got)} rows, the judge {len(want)}"]
    lines.append(f"{len(only_judge)} paths only the judge finds:")
    lines += [f"  {show(mine[k])}" for k in only_judge[:shown]]
    lines.append(f"{len(only_product)} paths only {what} gives:")
    lines += [f"  {show(theirs[k])}" for k in only_product[:shown]]
    lines.append(f"{len(differ)} paths with other programs:")
    for k in differ[:shown]:
        a, b = set(mine[k][4]), set(theirs[k][4])
        lines.append(f"  {show(mine[k])}: only the judge {sorted(a - b)[:3]}, only {what} {sorted(b - a)[:3]}")
    return "\n".join(lines)
