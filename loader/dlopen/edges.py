"""A dlopen edge: a library a module may load at run time with ``dlopen``, how sure that is, and
what the library binds to in the link map of the program that loads it (docs/dlopen.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..model import BindingKey


class DlopenCertainty(enum.StrEnum):
    """How sure a dlopen edge is, strongest first."""

    DECLARED = "declared"  # an ELF .note.dlopen note of the module names the library
    NAMED = "named"  # a string of the module's read-only data is the library's name
    PATTERN = "pattern"  # a printf pattern of the module matches it, or it lies in a plugin folder


class FoundIn(enum.StrEnum):
    """Where the evidence of a dlopen edge was read."""

    NOTE = "note"  # the FDO dlopen metadata note (evidence: the soname)
    STRING = "string"  # the read-only data (evidence: the string)
    RPATH = "rpath"  # a DT_RPATH folder off the default search path (evidence: the folder)
    RUNPATH = "runpath"  # a DT_RUNPATH folder off the default search path (evidence: the folder)


STRENGTH = {c: i for i, c in enumerate(DlopenCertainty)}


@dataclass(slots=True)
class DlopenEdge:
    """``source`` may dlopen ``target``. ``host`` is the program whose link map it was opened in
    (``source`` itself, the first program that loads ``source``, or ``source`` when no program
    does); ``loaded_at_start``: the target is in that link map already at start-up (its bindings
    are then the start-up ones, not repeated here); ``bindings``: those of the target and of the
    objects the dlopen added; ``hidden``: the objects those bind to outside the target's own
    dependencies (what it uses of the program's libraries without declaring them)."""

    source: str
    target: str
    certainty: DlopenCertainty
    found_in: FoundIn
    evidence: str
    host: str
    loaded_at_start: bool
    bindings: list[BindingKey] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
