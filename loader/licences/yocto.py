"""Yocto's ``license.manifest``: one paragraph per installed package (``PACKAGE NAME``,
``PACKAGE VERSION``, ``RECIPE NAME``, ``LICENSE``), licences written with ``&`` (and) and ``|`` (or).

With ``COPY_LIC_MANIFEST = "1"`` the build puts it into the image at
``/usr/share/common-licenses/license.manifest``.
"""

from __future__ import annotations

from .manifest import ManifestEntry, ManifestSource


class YoctoManifest(ManifestSource):
    NAME = "yocto"
    PLACES = ("/usr/share/common-licenses/license.manifest", "/usr/share/licenses/license.manifest")

    def parse(self, text: str) -> list[ManifestEntry]:
        entries: list[ManifestEntry] = []
        fields: dict[str, str] = {}
        for line in [*text.splitlines(), ""]:
            if line.strip():
                key, sep, value = line.partition(":")
                if sep:
                    fields[key.strip().upper()] = value.strip()
                continue
            if fields.get("PACKAGE NAME"):
                entries.append(
                    ManifestEntry(
                        fields["PACKAGE NAME"],
                        fields.get("PACKAGE VERSION") or None,
                        fields.get("LICENSE") or None,
                        fields.get("RECIPE NAME") or None,
                    )
                )
            fields = {}
        return entries
