"""linkgraph's knowledge base of well-known components (``data/components.yaml``): an inferred licence.

A module is recognised by soname or file name (its own or a symlink's), optionally only in
roots of one C library, and optionally only in a version range read from the file's name or
bytes (OpenSSL is Apache-2.0 from 3.0 on and under its own licence before; mbed TLS changed its
licence twice). The first entry that matches wins; the data file documents the fields.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import translate

from ..data_files import load_yaml
from ..model import Certainty, Flavour, Module
from .base import Candidate, Context, LicenceSource, file_names
from .spdx import normalise

MAX_VERSION_READ = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class VersionRule:
    pattern: re.Pattern[bytes] | None  # the version in the file's bytes
    names: re.Pattern[str] | None  # the version in its file name or a symlink's (libmbedtls.so.2.16.3)
    start: tuple[int, ...] | None  # from this version on
    below: tuple[int, ...] | None  # up to, not including, this one

    def version(self, names: list[str], read: Callable[[], bytes | None]) -> tuple[int, ...] | None:
        """The version the file's names state, else the one in its bytes (None: neither says)."""
        for name in names:
            found = self.names.fullmatch(name) if self.names is not None else None
            if found is not None:
                return _version(found.group(1))
        data = read() if self.pattern is not None else None
        found_bytes = self.pattern.search(data) if self.pattern is not None and data is not None else None
        return _version(found_bytes.group(1).decode("ascii", "replace")) if found_bytes is not None else None

    def holds(self, version: tuple[int, ...] | None) -> bool:
        if version is None:
            return False
        return (self.start is None or version >= self.start) and (self.below is None or version < self.below)


@dataclass(frozen=True, slots=True)
class Component:
    name: str
    licence: str  # normalised SPDX
    sonames: tuple[str, ...]
    files: tuple[str, ...]
    libc: Flavour | None
    version: VersionRule | None
    packages: tuple[str, ...]
    note: str | None = None  # added to the fact's source: what the name and version cannot tell
    soname_globs: re.Pattern[str] | None = None  # the sonames' and the files' globs, as one pattern each
    file_globs: re.Pattern[str] | None = None

    def named(self, module: Module) -> bool:
        soname = module.facts.soname
        if soname is not None and self.soname_globs is not None and self.soname_globs.match(soname):
            return True
        files = self.file_globs
        return files is not None and any(files.match(n) for n in file_names(module))


def _globs(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """Shell globs as one pattern that matches a whole name as ``fnmatchcase`` does one of them."""
    return re.compile("|".join(f"(?:{translate(g)})" for g in globs)) if globs else None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


def _component(entry: dict) -> Component:
    licence = normalise(str(entry["licence"])).expression
    if licence is None:
        raise ValueError(f"knowledge base entry {entry.get('name')}: licence {entry['licence']!r} is not SPDX")
    rule = entry.get("version")
    version = None
    if rule:
        version = VersionRule(
            re.compile(rule["pattern"].encode()) if "pattern" in rule else None,
            re.compile(rule["names"]) if "names" in rule else None,
            _version(str(rule["from"])) if "from" in rule else None,
            _version(str(rule["below"])) if "below" in rule else None,
        )
    sonames = tuple(map(str, entry.get("sonames", ())))
    files = tuple(map(str, entry.get("files", ())))
    return Component(
        name=str(entry["name"]),
        licence=licence,
        sonames=sonames,
        files=files,
        libc=Flavour(entry["libc"]) if entry.get("libc") else None,
        version=version,
        packages=tuple(map(str, entry.get("packages", ()))),
        note=str(entry["note"]) if entry.get("note") else None,
        soname_globs=_globs(sonames),
        file_globs=_globs(files),
    )


@functools.cache
def components() -> tuple[Component, ...]:
    """The knowledge base, in file order."""
    return tuple(_component(e) for e in load_yaml("linkgraph.loader.licences", "components.yaml")["components"])


def recognise(module: Module, flavour: Flavour | None, read: Callable[[], bytes | None]) -> Component | None:
    """The first component that ``module`` is (``read`` gives its bytes, for version rules)."""
    bytes_read: list[bytes | None] = []

    def read_once() -> bytes | None:
        if not bytes_read:
            bytes_read.append(read())
        return bytes_read[0]

    for comp in components():
        if comp.libc is not None and comp.libc is not flavour:
            continue
        if not comp.named(module):
            continue
        if comp.version is not None and not comp.version.holds(comp.version.version(file_names(module), read_once)):
            continue
        return comp
    return None


def recognised(ctx: Context, module: Module) -> Component | None:
    """``recognise`` for a module of the scanned root, once per scan."""
    key = f"knowledge:{module.path}"
    if key not in ctx.cache:
        ctx.cache[key] = recognise(module, ctx.flavour, lambda: ctx.root.read_bytes(module.path, MAX_VERSION_READ))
    return ctx.cache[key]


class KnowledgeBase(LicenceSource):
    NAME = "knowledge-base"
    CERTAINTY = Certainty.INFERRED

    def candidate(self, module: Module) -> Candidate | None:
        comp = recognised(self.ctx, module)
        if comp is None:
            return None
        note = f" ({comp.note})" if comp.note else ""
        return Candidate(comp.licence, f"{self.NAME}:{comp.name}{note}", self.CERTAINTY)
