"""The identification stage's answers as licence sources (``loader.identify``).

``IdentifiedSource``: a component the file states its own licence for (``declared``), or that a
signature identified (``identified``). ``NamedSource``: a component the file's name alone names
(the name table, ``inferred``), after the knowledge base, which knows more about names (libc
flavours, version rules).
"""

from __future__ import annotations

from ..model import Certainty, Module
from .base import Candidate, LicenceSource


class IdentifiedSource(LicenceSource):
    NAME = "identified"
    CERTAINTY = Certainty.IDENTIFIED
    BY_NAME = False  # which identifications: found by a signature (False), or by the name alone

    def candidate(self, module: Module) -> Candidate | None:
        found = self.ctx.identities.get(module.path)
        own = found.own if found is not None else None
        if own is None or (own.certainty is Certainty.INFERRED) is not self.BY_NAME:
            return None
        source = f"{self.NAME}:{own.label}"
        if own.licence is None:
            return Candidate(None, source, own.certainty, why=f"no licence of {own.component} known for this file")
        return Candidate(own.licence, source, own.certainty)


class NamedSource(IdentifiedSource):
    NAME = "name-table"
    CERTAINTY = Certainty.INFERRED
    BY_NAME = True
