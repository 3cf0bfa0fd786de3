"""The identification stage's answer as a licence source (``loader.identify``).

A component the file states its own licence for (``declared``), or that a signature identified
(``identified``); a component named only by the file's name stays behind the knowledge base, which
knows more about names (libc flavours, version rules).
"""

from __future__ import annotations

from ..model import Certainty, Module
from .base import Candidate, LicenceSource


class IdentifiedSource(LicenceSource):
    NAME = "identified"
    CERTAINTY = Certainty.IDENTIFIED

    def candidate(self, module: Module) -> Candidate | None:
        found = self.ctx.identities.get(module.path)
        own = found.own if found is not None else None
        if own is None or own.certainty is Certainty.INFERRED:
            return None
        source = f"{self.NAME}:{own.label}"
        if own.licence is None:
            return Candidate(None, source, own.certainty, why=f"the licence of {own.component} depends on its version")
        return Candidate(own.licence, source, own.certainty)


class NamedSource(LicenceSource):
    """A component the file's name alone identifies (the name table): after the knowledge base."""

    NAME = "name-table"
    CERTAINTY = Certainty.INFERRED

    def candidate(self, module: Module) -> Candidate | None:
        found = self.ctx.identities.get(module.path)
        own = found.own if found is not None else None
        if own is None or own.certainty is not Certainty.INFERRED or own.licence is None:
            return None
        return Candidate(own.licence, f"{self.NAME}:{own.component}", self.CERTAINTY)
