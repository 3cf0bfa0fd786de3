"""A kernel module's own ``.modinfo`` ``license=`` string (what ``MODULE_LICENSE()`` wrote).

The kernel knows a short list (``license_is_gpl_compatible()``: "GPL", "GPL v2", "GPL and
additional rights", "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL"; "Proprietary" taints it);
``data/names.yaml`` maps them to SPDX. "Proprietary" becomes ``LicenseRef-Proprietary``: a
licence fact like any other, and not a free one.
"""

from __future__ import annotations

from ..model import Certainty, Kind, Module
from .base import Candidate, LicenceSource
from .spdx import normalise, normalise_modinfo


class Modinfo(LicenceSource):
    NAME = "modinfo"
    CERTAINTY = Certainty.DECLARED

    def candidate(self, module: Module) -> Candidate | None:
        if module.facts.kind is not Kind.KERNEL_MODULE:
            return None
        written = module.facts.modinfo.get("license")
        if written is None:
            return Candidate(None, self.NAME, self.CERTAINTY, why="no license= in .modinfo")
        # bytes that are not UTF-8 are shown as \xNN (like file names)
        written = written.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        # repeated license= entries (one per source file linked in) are joined by newlines: all apply
        parts = [normalise_modinfo(w) for w in dict.fromkeys(written.split("\n")) if w.strip()]
        bad = next((p for p in parts if p.expression is None), None)
        if bad is not None or not parts:
            why = bad.why if bad is not None else "empty license= in .modinfo"
            self.ctx.warn(module.path, f".modinfo: {why}")
            return Candidate(None, self.NAME, self.CERTAINTY, why=why)
        licence = normalise(" AND ".join(f"({p.expression})" for p in parts)).expression
        return Candidate(licence, self.NAME, self.CERTAINTY)
