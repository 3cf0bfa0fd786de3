"""Licence manifests of build systems (Buildroot, Yocto): one licence per package, no file lists.

Such a manifest says which packages are in the image and their licences, not which files each
package installed. A module is given a package's licence when the package is the one the
firmware's dpkg/opkg database says owns the file, or is named like the file (``busybox``,
``kernel-module-xt-tcpudp``): then the fact is ``declared``. A package found only through the
names distributions use for a component (the knowledge base's ``packages``) or the soname
(``libz.so.1`` -> ``libz1``, ``libz``) gives an ``inferred`` fact.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import ClassVar

from ..model import Certainty, Kind, Module
from .base import Candidate, Context, LicenceSource, file_names
from .knowledge import recognised
from .spdx import Normalised, normalise


@dataclass(slots=True)
class ManifestEntry:
    name: str
    version: str | None
    licence: str | None  # as written
    recipe: str | None = None  # Yocto: the recipe that built the package

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}" if self.version else self.name


def soname_guesses(name: str) -> list[str]:
    """Package names a library file name suggests: ``libz.so.1`` -> ``libz1``, ``libz``, ``z``."""
    stem, sep, version = name.partition(".so")
    if not sep or not stem:
        return []
    version = version.lstrip(".").split(".")[0] if version else ""
    out = []
    if version:
        out.append(f"{stem}-{version}" if stem[-1].isdigit() else f"{stem}{version}")  # Debian/Yocto style
    out.append(stem)
    if stem.startswith("lib") and len(stem) > 3:
        out.append(stem[3:])
    return out


class ManifestSource(LicenceSource):
    """A manifest at one of ``PLACES`` in the root; subclasses parse their format."""

    PLACES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.path: str | None = None
        self.entries: dict[str, ManifestEntry] = {}
        self.recipes: dict[str, ManifestEntry] = {}
        for place in self.PLACES:
            text = ctx.read_text(place, f"{self.NAME} manifest") if ctx.exists(place) else None
            if text is not None:
                self.path = place
                for entry in self.parse(text):
                    self.entries.setdefault(entry.name, entry)
                    if entry.recipe:
                        self.recipes.setdefault(entry.recipe, entry)
                break

    def parse(self, text: str) -> list[ManifestEntry]:  # pragma: no cover - abstract
        raise NotImplementedError

    def licence_of(self, entry: ManifestEntry) -> Normalised:
        return normalise(entry.licence) if entry.licence else Normalised(None, "no licence in the manifest")

    def _find(self, module: Module) -> tuple[ManifestEntry, Certainty] | None:
        owner = self.ctx.owners.get(module.path)
        exact = ([owner.name] if owner else []) + file_names(module)
        if module.facts.kind is Kind.KERNEL_MODULE:
            exact.append("kernel-module-" + posixpath.basename(module.path).removesuffix(".ko").replace("_", "-"))
        for name in exact:
            if name in self.entries:
                return self.entries[name], Certainty.DECLARED
        if module.facts.kind is Kind.KERNEL_MODULE:  # Yocto appends the kernel version
            prefix = exact[-1] + "-"
            for name, entry in self.entries.items():
                if name.startswith(prefix) and name[len(prefix) :][:1].isdigit():
                    return entry, Certainty.DECLARED
        comp = recognised(self.ctx, module)
        guesses = list(comp.packages if comp else ())
        for name in [module.facts.soname or "", *file_names(module)]:
            guesses += soname_guesses(name)
        for name in guesses:
            entry = self.entries.get(name) or self.recipes.get(name)
            if entry is not None:
                return entry, Certainty.INFERRED
        return None

    def candidate(self, module: Module) -> Candidate | None:
        if not self.entries:
            return None
        found = self._find(module)
        if found is None:
            return None
        entry, certainty = found
        licence = self.licence_of(entry)
        if licence.expression is None and entry.licence:
            self.ctx.warn(self.path or "", f"package {entry.name}: {licence.why}")
        source = f"{self.NAME}:{self.path} (package {entry.name})"
        return Candidate(licence.expression, source, certainty, entry.label, why=licence.why)


def strip_annotations(text: str) -> str:
    """``GPL-2.0+ (programs), LGPL-2.1+ (libraries)`` -> ``GPL-2.0+, LGPL-2.1+``."""
    return re.sub(r"\s*\([^()]*\)", "", text)
