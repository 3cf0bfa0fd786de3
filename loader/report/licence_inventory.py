"""The inventory a lawyer reads first (docs/licences.md, "Inventory"): every module by licence
class, with its licence, where that fact comes from (source, certainty, package), statically
linked executables marked, and for kernel modules which GPL-only kernel exports they bind to
(docs/kernel.md). From the named queries ``licences`` and ``kernel-links``.
"""

from __future__ import annotations

from ..licences.classes import LicenceClass
from ..licences.facts import NO_FACT
from ..model import Kind
from .rows import Queryable, Row


def _gpl_only_use(store: Queryable, firmware_id: str) -> dict[str, Row]:
    """Per kernel module binding to GPL-only exports: those symbols and their providers."""
    found: dict[str, Row] = {}
    for module, target, _state, _symbols, gpl_only in store.stream("kernel-links", {"firmware": firmware_id}):
        if gpl_only:
            entry = found.setdefault(module, {"symbols": set(), "providers": set()})
            entry["symbols"].update(gpl_only)
            entry["providers"].add(target)
    return {m: {"symbols": sorted(e["symbols"]), "providers": sorted(e["providers"])} for m, e in found.items()}


def licence_inventory(store: Queryable, firmware_id: str, licences: list[Row] | None = None) -> list[Row]:
    """One group per licence class (in ``LicenceClass`` order, empty ones left out): ``class`` and
    its ``modules`` in path order, each with ``path``, ``kind``, ``static`` (None: a store written
    before it was kept), ``licence``, ``certainty``, ``source``, ``package``, ``component`` and
    ``version`` (the identification's, or None) and, for a kernel module, ``gpl_only`` (None, or
    the GPL-only ``symbols`` it binds and their ``providers``).
    ``licences``: the rows of the ``licences`` query when the caller has read them already."""
    gpl_only = _gpl_only_use(store, firmware_id)
    groups: dict[str, list[Row]] = {c.value: [] for c in LicenceClass}
    rows = store.query("licences", {"firmware": firmware_id}) if licences is None else licences
    for r in rows:
        klass = r["class"] if r["class"] in groups else LicenceClass.UNKNOWN.value
        kernel = r["kind"] == Kind.KERNEL_MODULE
        groups[klass].append(
            {
                "path": r["path"],
                "kind": r["kind"],
                "static": None if r["static"] is None else bool(r["static"]),
                "licence": r["licence"],
                "class": klass,
                "certainty": r["certainty"],
                "source": r["source"] or NO_FACT,
                "package": r["package"],
                "gpl_only": gpl_only.get(r["path"]) if kernel else None,
                "component": r["component"],  # what the identification stage says it is (docs/identify.md)
                "version": r["version"],
            }
        )
    return [{"class": c, "modules": rows} for c, rows in groups.items() if rows]
