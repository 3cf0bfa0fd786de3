"""What the identification stage finds: a component, its version, licence, certainty and evidence."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..model import Certainty


class EvidenceKind(enum.StrEnum):
    STRING = "string"  # a distinctive string of the component (a version banner, a copyright line)
    SYMBOLS = "symbols"  # exported symbols of the component's API
    NAME = "name"  # the file's name (or soname) is one the component installs
    STATEMENT = "statement"  # a licence statement the file makes about itself
    ROOT = "root"  # the version of the root's own copy of the component (a static program's libc)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence: what was matched and, for bytes of the file, its offset in the file."""

    kind: EvidenceKind
    text: str
    offset: int | None = None

    def record(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.value, "text": self.text}
        if self.offset is not None:
            out["offset"] = self.offset
        return out


@dataclass(frozen=True, slots=True)
class Identification:
    """A component found in one file: the file *is* it, or (``contained``) carries a copy of it.

    ``certainty``: declared (the file's own licence statement), identified (a signature matched),
    inferred (the name alone). ``source`` says where the table's facts come from."""

    component: str
    version: str | None
    licence: str | None  # a normalised SPDX expression
    certainty: Certainty
    evidence: tuple[Evidence, ...]
    source: str
    contained: bool = False
    purl: str | None = None
    cpe: str | None = None

    @property
    def label(self) -> str:
        return f"{self.component} {self.version}" if self.version else self.component

    def record(self) -> dict[str, object]:
        """The JSON form of the report, the store's ``identity`` column and the SBOMs' evidence."""
        return {
            "component": self.component,
            "version": self.version,
            "licence": self.licence,
            "certainty": self.certainty.value,
            "source": self.source,
            "purl": self.purl,
            "cpe": self.cpe,
            "evidence": [e.record() for e in self.evidence],
        }


@dataclass(frozen=True, slots=True)
class Origin:
    """Whose code a module is (``name``: a vendor SDK or the device maker), and what shows it
    (``loader.identify.vendor``): never a licence."""

    name: str
    evidence: tuple[Evidence, ...]

    def record(self) -> dict[str, object]:
        return {"name": self.name, "evidence": [e.record() for e in self.evidence]}


@dataclass(slots=True)
class ModuleIdentity:
    """What one module is (``own``), which other components it carries inside (``contains``), and,
    when nothing names it, whose vendor code it is (``origin``)."""

    own: Identification | None = None
    contains: list[Identification] = field(default_factory=list)
    origin: Origin | None = None
