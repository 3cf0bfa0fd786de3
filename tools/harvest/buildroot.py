"""Buildroot package recipes (``package/NAME/NAME.mk``): ``<PKG>_VERSION`` and ``<PKG>_LICENSE``.

Buildroot lists no installed files, so a recipe gives a component and its licence only. Its licence
strings are comma-separated parts with notes in parentheses (``GPL-2.0+ (programs), LGPL-2.1+
(libraries)``): every part applies; each part's text is kept beside its SPDX form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .openwrt import expand, logical_lines, variables

_RECIPE = re.compile(r"^package/([^/]+)/([^/]+)\.mk$")


@dataclass(slots=True)
class Recipe:
    path: str
    name: str
    version: str | None
    licence: str | None


def is_recipe(path: str) -> bool:
    """``package/NAME/NAME.mk`` (the recipe named after its folder; other ``.mk`` files are helpers)."""
    m = _RECIPE.match(path)
    return m is not None and m.group(1) == m.group(2)


def parse(path: str, text: str) -> Recipe:
    name = path.split("/")[1]
    prefix = re.sub(r"[^A-Z0-9]", "_", name.upper())
    found = variables(logical_lines(text))

    def var(suffix: str) -> str | None:
        value = expand(found.get(f"{prefix}_{suffix}", ""), found).strip()
        return " ".join(value.split()) or None

    return Recipe(path, name, var("VERSION"), var("LICENSE"))


def licence_parts(licence: str) -> list[str]:
    """The comma-separated parts, outside parentheses (``A (x, y), B`` -> ``A (x, y)``, ``B``)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(licence):
        depth += (c == "(") - (c == ")")
        if c == "," and depth == 0:
            parts.append(licence[start:i].strip())
            start = i + 1
    parts.append(licence[start:].strip())
    return [p for p in parts if p]
