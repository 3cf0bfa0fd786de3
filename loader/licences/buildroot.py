"""Buildroot's ``legal-info/manifest.csv``: package, version and licence of everything in the target.

``make legal-info`` writes it beside the image, not into it; a vendor (or the analyst) who copies
it into the root at one of ``PLACES`` gets its licences used. Licences are written like
``GPL-2.0+ (programs), LGPL-2.1+ (libraries)``: the parts all apply (AND), the notes in
parentheses are dropped when the whole does not parse as it is.
"""

from __future__ import annotations

import csv
import io

from .manifest import ManifestEntry, ManifestSource, strip_annotations
from .spdx import Normalised, normalise


class BuildrootManifest(ManifestSource):
    NAME = "buildroot"
    PLACES = ("/usr/share/legal-info/manifest.csv", "/legal-info/manifest.csv", "/usr/share/buildroot/manifest.csv")

    def parse(self, text: str) -> list[ManifestEntry]:
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as exc:
            self.ctx.warn(self.PLACES[0] if self.path is None else self.path, f"manifest.csv is not CSV: {exc}")
            return []
        entries = []
        for row in rows:
            fields = {(k or "").strip().upper(): (v or "").strip() for k, v in row.items() if isinstance(v, str)}
            if not fields.get("PACKAGE"):
                continue
            entries.append(
                ManifestEntry(fields["PACKAGE"], fields.get("VERSION") or None, fields.get("LICENSE") or None)
            )
        if rows and not entries:
            self.ctx.warn(self.path or self.PLACES[0], "manifest.csv has no PACKAGE column")
        return entries

    def licence_of(self, entry: ManifestEntry) -> Normalised:
        found = super().licence_of(entry)
        if found.expression is None and entry.licence and "(" in entry.licence:
            stripped = normalise(strip_annotations(entry.licence))
            if stripped.expression is not None:
                return stripped
        return found
