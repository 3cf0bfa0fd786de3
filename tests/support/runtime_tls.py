"""TLS module ids of one process, for the runtime oracle's ``DTPMOD`` slots (runtime_slots.py).

A ``DTPMOD`` slot holds the module id the loader gave the provider of the symbol.  Ids are known
first from *anchors*: an object's own lookup-free ``DTPMOD`` slots (symbol 0 or local) hold its
own id.  A provider that has no such slot (a library whose TLS variable only other objects reach
with the general-dynamic model: libc's ``h_errno``) gets its id from the loaders' rule instead:

* glibc (``elf/rtld.c``, ``elf/dl-load.c``): the program's ``PT_TLS`` gets the first id from
  ``_dl_next_tls_modid`` before any library is mapped; each library gets the next one as it is
  mapped (``_dl_map_object_from_fd``; a ``PT_TLS`` with ``p_memsz`` 0 gets none), which is the
  link-map order;
* musl (``ldso/dynlink.c``): ``__dls3`` sets the program's ``tls_id = tls_cnt = 1`` when it has
  TLS, ``load_library`` gives ``tls_id = ++tls_cnt`` to each library with a TLS image as it
  loads it (appended to the chain in that order);
* uClibc (``ldso/ldso/ldso.c``, ``ldso/ldso/dl-elf.c``): ``_dl_next_tls_modid`` for the program's
  ``PT_TLS`` in ``_dl_get_ready_to_run``, then for each library in
  ``_dl_load_elf_shared_library``, which appends it to the chain.

So the ids are 1, 2, ... for the objects with a non-empty ``PT_TLS``, in link-map order.  The rule
is used only when it agrees with every anchor of the process (:func:`module_ids`); a slot it maps
is then checked against the ``DTPOFF`` slots of the same reference, when there are any: their
offset must lie inside the chosen object's ``PT_TLS`` block (:func:`offset_fits`).  Otherwise the
slot stays unobserved, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# DTPOFF values are stored minus this bias (TLS_DTV_OFFSET of the machine's loaders)
DTV_OFFSET = {"EM_MIPS": 0x8000}


def module_ids(tls_objects: list[int], anchors: Mapping[int, set[int]]) -> tuple[dict[int, int], str]:
    """Module id -> object index for one process, and why the load-order rule was not used ("" if it was).

    ``tls_objects``: the indices of the objects with a non-empty ``PT_TLS``, in link-map order;
    ``anchors``: object index -> the ids its own lookup-free ``DTPMOD`` slots hold.  The anchors
    always count (an object whose own slots disagree among themselves is left out); the rule's ids
    are added only when every anchor agrees with them."""
    calibrated = {next(iter(ids)): k for k, ids in anchors.items() if len(ids) == 1}
    rule = {i + 1: k for i, k in enumerate(tls_objects)}
    for k, ids in sorted(anchors.items()):
        for got in sorted(ids):
            if rule.get(got) != k:
                return calibrated, f"the load-order rule disagrees with object {k}'s own TLS module id {got}"
    return {**rule, **calibrated}, ""


def offset_fits(dtpoffs: Iterable[tuple[int, int, int]], memsz: int, machine: str) -> bool:
    """Whether every ``DTPOFF`` slot (value, addend, size in bytes) holds an offset inside a block of ``memsz``:
    the value read as signed, minus its addend, plus the machine's bias."""
    bias = DTV_OFFSET.get(machine, 0)
    for value, addend, size in dtpoffs:
        bits = 8 * size
        signed = value - (1 << bits) if value >= 1 << (bits - 1) else value
        if not 0 <= signed - addend + bias < memsz:
            return False
    return True
