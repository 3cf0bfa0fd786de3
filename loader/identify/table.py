"""The signature table (``data/signatures.yaml``): components and what identifies them.

Each component has a licence (or licences by version), the names it installs, and signatures:
``strings`` (regular expressions over the file's bytes; group 1, when there is one, is the
version), ``statements`` (a licence the file states about itself) and ``symbols`` (an API it
exports). The file documents the fields; every entry names its source.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fnmatch import translate

from packageurl import PackageURL

from ..data_files import load_yaml
from ..licences.spdx import normalise

KINDS = ("library", "program")
# CPE 2.3's formatted string binding (NIST IR 7695, 6.2): a character other than these is quoted
_CPE_UNQUOTED = re.compile(r"[A-Za-z0-9._-]")


def cpe_value(text: str) -> str:
    """``text`` as one component of a CPE 2.3 formatted string: other characters quoted with \\."""
    return "".join(c if _CPE_UNQUOTED.fullmatch(c) else "\\" + c for c in text)


def version_key(text: str) -> tuple[int, ...]:
    """``1.2.11`` -> (1, 2, 11), for the version ranges of a licence."""
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


@dataclass(frozen=True, slots=True)
class Pattern:
    regex: str  # a regular expression both yara-x and Python's re read the same way
    licence: str | None = None  # for a statement: the licence it states


@dataclass(frozen=True, slots=True)
class LicenceRule:
    licence: str | None
    start: tuple[int, ...] | None  # from this version on
    below: tuple[int, ...] | None  # up to, not including, this one

    def holds(self, version: tuple[int, ...]) -> bool:
        return (self.start is None or version >= self.start) and (self.below is None or version < self.below)


@dataclass(frozen=True, slots=True)
class Component:
    name: str
    kind: str  # library or program
    licence: str | None  # when no version rule applies (None: the version decides, unknown without it)
    by_version: tuple[LicenceRule, ...]
    files: re.Pattern[str] | None  # the names it installs (file names and sonames), one pattern
    name_version: re.Pattern[str] | None  # the version in a name it installs (group 1)
    generic: bool  # its names are used by other software too: a name alone does not identify it
    strings: tuple[Pattern, ...]
    statements: tuple[Pattern, ...]
    symbols: frozenset[str]
    symbols_min: int
    purl: str | None
    cpe: str | None
    source: str

    def rule_for(self, version: str) -> LicenceRule | None:
        """The first licence range holding ``version``, if any."""
        key = version_key(version)
        return next((rule for rule in self.by_version if rule.holds(key)), None)

    def licence_of(self, version: str | None) -> str | None:
        rule = self.rule_for(version) if version is not None else None
        return rule.licence if rule is not None else self.licence

    def purl_of(self, version: str | None) -> str | None:
        """The package URL with the version, encoded by packageurl-python."""
        if not self.purl:
            return None
        base = PackageURL.from_string(self.purl)
        return PackageURL(base.type, base.namespace, base.name, version or None, base.qualifiers).to_string()

    def cpe_of(self, version: str | None) -> str | None:
        """The CPE 2.3 formatted string with the version quoted as the binding asks ("*": any)."""
        return self.cpe.replace("{version}", cpe_value(version) if version else "*") if self.cpe else None

    def version_in(self, names: list[str]) -> str | None:
        """The version a name of the file states (``ld-uClibc-0.9.32.1.so``)."""
        if self.name_version is not None:
            for name in names:
                found = self.name_version.fullmatch(name)
                if found is not None:
                    return found.group(1)
        return None

    def named(self, names: list[str]) -> bool:
        return self.files is not None and any(self.files.match(n) for n in names)


def spdx_of(text: object, where: str, table: str = "signature table") -> str:
    """A data table's licence as a normalised SPDX expression; anything else is the table's error."""
    found = normalise(str(text)).expression
    if found is None:
        raise ValueError(f"{table}, {where}: licence {text!r} is not SPDX")
    return found


def _rule(entry: dict, where: str) -> LicenceRule:
    licence = entry.get("licence")
    return LicenceRule(
        spdx_of(licence, where) if licence is not None else None,
        version_key(str(entry["from"])) if "from" in entry else None,
        version_key(str(entry["below"])) if "below" in entry else None,
    )


def _component(entry: dict) -> Component:
    name = str(entry["name"])
    kind = str(entry.get("kind", "library"))
    if kind not in KINDS:
        raise ValueError(f"signature table, {name}: kind {kind!r} is not one of {KINDS}")
    files = tuple(map(str, entry.get("files", ())))
    symbols = entry.get("symbols") or {}
    return Component(
        name=name,
        kind=kind,
        licence=spdx_of(entry["licence"], name) if entry.get("licence") is not None else None,
        by_version=tuple(_rule(r, name) for r in entry.get("licences", ())),
        files=re.compile("|".join(f"(?:{translate(g)})" for g in files)) if files else None,
        name_version=re.compile(str(entry["name_version"])) if entry.get("name_version") else None,
        generic=bool(entry.get("generic", False)),
        strings=tuple(Pattern(str(p)) for p in entry.get("strings", ())),
        statements=tuple(Pattern(str(s["pattern"]), spdx_of(s["licence"], name)) for s in entry.get("statements", ())),
        symbols=frozenset(map(str, symbols.get("names", ()))),
        symbols_min=int(symbols.get("min", len(symbols.get("names", ())))),
        purl=entry.get("purl"),
        cpe=entry.get("cpe"),
        source=str(entry["source"]),
    )


@functools.cache
def components() -> tuple[Component, ...]:
    """The signature table, in file order."""
    return tuple(_component(e) for e in load_yaml("linkgraph.loader.identify", "signatures.yaml")["components"])


def ids_of(name: str, version: str | None) -> tuple[str, str | None]:
    """The purl and CPE of a component the name table names: the signature table's when it knows
    the component (its CPE's vendor and product are checked), else ``pkg:generic/NAME`` and no CPE
    (a guessed vendor would give a vulnerability tool wrong matches)."""
    for comp in components():
        if comp.name == name and comp.purl:
            return comp.purl_of(version) or "", comp.cpe_of(version)
    return PackageURL("generic", None, name, version or None).to_string(), None
