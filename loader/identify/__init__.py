"""The identification stage: which well-known component each ELF file is, or contains, with evidence.

Runs after parsing, before the licence facts (``loader.licences``), which take its answers as a
source. ``stage.identify_modules`` is the entry point; ``data/signatures.yaml`` the facts it matches.
"""

from .model import Evidence, EvidenceKind, Identification, ModuleIdentity
from .stage import identify_modules

__all__ = ["Evidence", "EvidenceKind", "Identification", "ModuleIdentity", "identify_modules"]
