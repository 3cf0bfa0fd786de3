"""The runtime oracle's slots (runtime_oracle.py): their values read from memory, mapped to providers.

Each value is mapped back to the object whose ``PT_LOAD`` segments (plus its ``l_addr``) contain it
(see step 5 of runtime_oracle.py's module docstring).

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
  A module id no own slot anchors (a library whose TLS only other objects reach with the
  general-dynamic model) comes from the loaders' rule, ids in link-map order, when that rule agrees
  with every anchor and the reference's ``DTPOFF`` fits the chosen block (runtime_tls.py; such
  bindings are also listed in ``tls_by_rule``).
  Anything that cannot be mapped this way is ``unobserved`` with the reason, never guessed.
* **Lazy stubs**: a PLT slot (``DT_JMPREL``) or a MIPS global GOT entry of an *undefined* symbol
  (not a canonical ``STO_MIPS_PLT`` one) that holds an address inside its own object was not bound:
  a lookup never finds an undefined symbol in its own object, so the slot still holds the object's
  lazy stub (old uClibc MIPS loaders leave stubs in place despite ``LD_BIND_NOW``).  It is
  ``unobserved`` ("not bound: ..."), not a self binding.
* A value in no loaded object, a relocation type the oracle does not know, a slot written by two
  symbol relocations: ``unobserved`` with the reason.
* **Prelinked programs** (``DT_GNU_LIBLIST``; the JioFi): when glibc's prelink check passes, a
  real run performs no lookups at all, the slots keep the values prelink wrote into the files
  (plus ``.gnu.conflict``); trace mode exits before that check and looks everything up.  The
  oracle reports what the process really holds; ``prelinked`` says the program is prelinked and
  every library sits at its prelinked address (l_addr 0), as that check requires.
"""

from __future__ import annotations

import bisect

from . import runtime_tls as tls
from .oracle import BindingKey
from .runtime_elf import TLS_KINDS, DynElf, Slot
from .runtime_linkmap import _Loaded, _Process
from .runtime_trace import RefKey, RuntimeTrace


class _SlotReader:
    """RuntimeOracle's reading of the slots and their mapping to providers (a mixin)."""

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
        with_tls = [k for k, obj in enumerate(loaded) if obj.elf.tls is not None]
        ids, no_rule = tls.module_ids([k for k in with_tls if loaded[k].elf.tls.memsz], mod_id)  # type: ignore[union-attr]
        if any(not loaded[k].elf.tls.memsz for k in with_tls):  # type: ignore[union-attr]
            ids, no_rule = {next(iter(m)): k for k, m in mod_id.items() if len(m) == 1}, "an empty PT_TLS"
        anchored = {next(iter(m)) for m in mod_id.values() if len(m) == 1}

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
            dtpoffs: dict[tuple[str, str | None], list[tuple[int, int, int]]] = {}
            for slot, value in zip(slots, values[k], strict=True):
                if slot.kind == "dtpoff" and not slot.local and value is not None:
                    dtpoffs.setdefault((slot.name, slot.version), []).append((value, slot.addend, slot.size))
            for slot, value in zip(slots, values[k], strict=True):
                if slot.local:
                    continue
                ref: RefKey = (module, slot.name, slot.version)
                result.slots += 1
                result.program_slots += module == result.executable
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
                        why = f": {no_rule}" if no_rule else ""
                        result.unobserved[ref] = f"TLS module id {value} not calibrated{why}"
                        continue
                    if value not in anchored:  # from the load-order rule: its DTPOFF must fit the block
                        offsets = dtpoffs.get((slot.name, slot.version), [])
                        if not tls.offset_fits(offsets, loaded[provider].elf.tls.memsz, obj.elf.machine):  # type: ignore[union-attr]
                            result.unobserved[ref] = (
                                f"TLS module id {value} (load order: {loaded[provider].path}) but a DTPOFF of the "
                                f"reference lies outside that object's PT_TLS"
                            )
                            continue
                        result.tls_by_rule.add((module, slot.name, slot.version, loaded[provider].path))
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
                    if slot.lazy and provider == k:  # a lookup never finds an undefined symbol's own stub
                        result.unobserved[ref] = f"not bound: holds the object's own lazy stub ({value:#x})"
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
