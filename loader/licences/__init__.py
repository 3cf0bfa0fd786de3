"""Licence facts per module: what the firmware's package data, a kernel module's .modinfo, the
user's overrides or linkgraph's knowledge base say, with the source and how certain it is.

See ``facts.py`` for the precedence and docs/licences.md for the user's view.
"""

from .facts import NO_FACT, SOURCES, licence_facts
from .overrides import Overrides, OverridesError, load_overrides
from .spdx import normalise

__all__ = ["NO_FACT", "SOURCES", "Overrides", "OverridesError", "licence_facts", "load_overrides", "normalise"]
