"""What the SPDX 2.3 and SPDX 3 writers say alike: which relationship type each edge status gets,
the comments that carry an edge's facts (its status, soname and symbols), the licence expressions
SPDX accepts, the creation time and the JSON list writer both stream with (docs/sbom.md).
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from ..model import Status

# SPDX 2.3 relationship type and SPDX 3 relationshipType per status (docs/sbom.md says why):
# a used or hidden edge is a dynamic link (the loader binds symbols across it at run time); a
# declared-unused one is a dependency only (the loader needs the file, nothing binds to it); a
# missing one is a dependency on an element nobody can name; an interposed one is no dependency
# (the module needs nothing there: its own dependencies define those symbols too), nor an upcall
# (the other module loads this one: the dependency runs the other way), each an OTHER
# relationship whose comment says so.
SPDX2_TYPE = {
    Status.USED: "DYNAMIC_LINK",
    Status.HIDDEN: "DYNAMIC_LINK",
    Status.DECLARED_UNUSED: "DEPENDS_ON",
    Status.MISSING: "DEPENDS_ON",
    Status.INTERPOSED: "OTHER",
    Status.UPCALL: "OTHER",
}
SPDX3_TYPE = {
    Status.USED: "hasDynamicLink",
    Status.HIDDEN: "hasDynamicLink",
    Status.DECLARED_UNUSED: "dependsOn",
    Status.MISSING: "dependsOn",
    Status.INTERPOSED: "other",
    Status.UPCALL: "other",
}
# the first line of every edge comment: "linkgraph KIND: STATUS" (KIND one of these)
DEPENDENCY, DLOPEN, KERNEL = "dependency", "dlopen", "kernel link"
_FLUSH_CHARS = 1 << 16
_REF = re.compile(r"(?:DocumentRef-[A-Za-z0-9.+\-]+:)?LicenseRef-[A-Za-z0-9.\-]+")


def created() -> str:
    """The creation time, UTC; SOURCE_DATE_EPOCH (reproducible builds' variable) if it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    seconds = int(epoch) if epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("linkgraph")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class LicenceFact:
    """A module's licence as SPDX can carry it: ``expression`` None means NOASSERTION; ``refs``
    are the LicenseRef- ids it uses (each needs its own licensing info); ``note`` says why an
    expression was not carried (for the comment)."""

    expression: str | None
    refs: tuple[str, ...] = ()
    note: str = ""


@functools.lru_cache(maxsize=4096)
def licence_fact(text: str | None) -> LicenceFact:
    """``text`` (the store's licence, normally an SPDX expression already) as SPDX accepts it:
    every symbol on the SPDX licence list or a LicenseRef-, else NOASSERTION with a note."""
    if not text:
        return LicenceFact(None)
    from license_expression import ExpressionError

    from ..licences.spdx import spdx_licensing

    licensing = spdx_licensing()
    refs = tuple(sorted(set(_REF.findall(text))))
    if any(":" in ref for ref in refs):
        return LicenceFact(None, note=f"licence {text!r} refers to another document")
    try:
        # LicenseRef- ids are valid SPDX, but the library's index has none: check the rest
        info = licensing.validate(_REF.sub("MIT", text), strict=True)
        if info.errors or info.invalid_symbols or not info.normalized_expression:
            return LicenceFact(None, note=f"licence {text!r} is not an SPDX expression")
        expression = info.normalized_expression if not refs else licensing.parse(text, validate=False).render()
    except (ExpressionError, ValueError, TypeError, AttributeError):
        return LicenceFact(None, note=f"licence {text!r} is not an SPDX expression")
    return LicenceFact(expression, tuple(ref.rpartition(":")[2] for ref in refs))


def split_package(package: str) -> tuple[str, str | None]:
    """``NAME VERSION`` (or just the name) of the store's package field."""
    name, _, version = package.partition(" ")
    return name, version.strip() or None


def dependency_lines(entry: dict[str, Any]) -> list[str]:
    """The facts of one dependency edge after its first line: soname, how it was found, symbols."""
    lines = [f"soname: {entry['soname']}"]
    if entry.get("rule"):
        lines.append(f"found by: {entry['rule']} {entry.get('directory') or ''}".rstrip())
    status = entry["status"]
    if status == Status.HIDDEN:
        lines.append("not in DT_NEEDED: bound only because another object of the link map loads it")
    elif status == Status.INTERPOSED:
        lines.append("not in DT_NEEDED and no dependency: the module or its own dependencies define these symbols too")
    elif status == Status.UPCALL:
        lines.append("not in DT_NEEDED and no dependency: an upcall, that file's own dependencies load the module")
    elif status == Status.DECLARED_UNUSED:
        lines.append("in DT_NEEDED and loaded, yet no symbol of the module binds to it")
    elif status == Status.MISSING:
        lines.append("in DT_NEEDED, and no file of the image satisfies it")
    if entry["symbols"]:
        lines.append(f"symbols ({len(entry['symbols'])}): {' '.join(entry['symbols'])}")
    return lines


def dependency_comment(entry: dict[str, Any]) -> str:
    return "\n".join([f"linkgraph {DEPENDENCY}: {entry['status']}", *dependency_lines(entry)])


def dlopen_lines(entry: dict[str, Any]) -> list[str]:
    lines = [f"found in: {entry['found_in']}", f"evidence: {entry['evidence']}"]
    lines.append(f"loaded at start: {'yes' if entry['loaded_at_start'] else 'no'}")
    if entry["hidden"]:
        lines.append(f"hidden ({len(entry['hidden'])}): {' '.join(entry['hidden'])}")
    lines.append(f"bindings of the opened objects: {len(entry['bindings'])}")
    return lines


def dlopen_comment(entry: dict[str, Any]) -> str:
    return "\n".join([f"linkgraph {DLOPEN}: {entry['certainty']}", *dlopen_lines(entry)])


def kernel_is_element(entry: dict[str, Any]) -> bool:
    """Whether a kernel link's target is a module file (else the kernel itself or a missing name)."""
    return entry["state"] != Status.MISSING and str(entry["target"]).startswith("/")


def kernel_lines(entry: dict[str, Any]) -> list[str]:
    lines = [f"target: {entry['target']}"]
    if entry["symbols"]:
        lines.append(f"symbols ({len(entry['symbols'])}): {' '.join(entry['symbols'])}")
    if entry["gpl_only"]:
        lines.append(f"GPL-only ({len(entry['gpl_only'])}): {' '.join(entry['gpl_only'])}")
    return lines


def kernel_comment(entry: dict[str, Any]) -> str:
    return "\n".join([f"linkgraph {KERNEL}: {entry['state']}", *kernel_lines(entry)])


class JsonList:
    """A JSON list written item by item (each a JSON value's text), buffered, ``indent`` deep."""

    def __init__(self, out: TextIO, indent: int = 1) -> None:
        self._out = out
        self._pad = "\n" + " " * (indent + 1)
        self._close = "\n" + " " * indent + "]"
        self._buffer: list[str] = []
        self._size = 0
        self.count = 0

    def add(self, value: Any) -> None:
        text = json.dumps(value, ensure_ascii=False)
        self._buffer.append(("[" if self.count == 0 else ",") + self._pad + text)
        self.count += 1
        self._size += len(text)
        if self._size > _FLUSH_CHARS:
            self._out.write("".join(self._buffer))
            self._buffer, self._size = [], 0

    def extend(self, values: Iterable[Any]) -> None:
        for value in values:
            self.add(value)

    def close(self) -> None:
        self._out.write("".join(self._buffer) + (self._close if self.count else "[]"))
        self._buffer, self._size = [], 0
