"""The user's licence overrides (``linkgraph scan --licences FILE``): globs -> SPDX expressions.

YAML, either a mapping ``PATTERN: LICENCE`` or a list of ``{match: PATTERN, licence: LICENCE,
package: "NAME VERSION"}``; or CSV with the columns ``pattern,licence[,package]`` (a header row
naming them is optional). A pattern containing ``/`` is a glob on the module's path and the
symlinks to it (``*`` matches across ``/``); any other pattern is a glob on its soname and file
names. The first matching rule decides. A file that cannot be read or parsed, or a licence that is
not an SPDX expression, stops the scan before it starts: an override that silently did nothing
would be worse.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..errors import LinkgraphError
from ..model import Certainty, Module
from .base import Candidate, LicenceSource, file_names
from .spdx import normalise

MAX_OVERRIDES_SIZE = 16 * 1024 * 1024
_HEADER = {"pattern", "match", "glob", "path"}


class OverridesError(LinkgraphError):
    """The overrides file cannot be used."""


@dataclass(frozen=True, slots=True)
class OverrideRule:
    pattern: str
    licence: str  # normalised SPDX
    package: str | None = None

    def matches(self, module: Module) -> bool:
        if "/" in self.pattern:
            return any(fnmatchcase(p, self.pattern) for p in (module.path, *module.aliases))
        names = ([module.facts.soname] if module.facts.soname else []) + file_names(module)
        return any(fnmatchcase(n, self.pattern) for n in names)


@dataclass(frozen=True, slots=True)
class Overrides:
    file: str  # as the user named it
    sha256: str
    content: str
    rules: tuple[OverrideRule, ...]

    def rule_for(self, module: Module) -> OverrideRule | None:
        return next((r for r in self.rules if r.matches(module)), None)

    def record(self) -> dict[str, Any]:
        """What the scan stores about the file (in the firmware's ``source``), so reports can say."""
        return {"file": self.file, "sha256": self.sha256, "rules": len(self.rules), "content": self.content}


def load_overrides(path: str | Path) -> Overrides:
    name = str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_OVERRIDES_SIZE + 1)
    except OSError as exc:
        raise OverridesError(f"--licences {name}: cannot read: {exc.strerror}") from exc
    if len(data) > MAX_OVERRIDES_SIZE:
        raise OverridesError(f"--licences {name}: larger than {MAX_OVERRIDES_SIZE >> 20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OverridesError(f"--licences {name}: not UTF-8 (byte {exc.start})") from exc
    rows = _csv_rows(text) if name.lower().endswith(".csv") else _yaml_rows(text, name)
    rules = []
    for where, pattern, licence, package in rows:
        if not isinstance(pattern, str) or not pattern.strip():
            raise OverridesError(f"--licences {name}: {where}: the pattern must be a non-empty string")
        if not isinstance(licence, str):
            raise OverridesError(f"--licences {name}: {where}: {pattern}: the licence must be a string")
        found = normalise(licence)
        if found.expression is None:
            raise OverridesError(f"--licences {name}: {where}: {pattern}: {found.why}")
        rules.append(OverrideRule(pattern.strip(), found.expression, str(package) if package else None))
    return Overrides(name, hashlib.sha256(data).hexdigest(), text, tuple(rules))


Row = tuple[str, Any, Any, Any]  # (where in the file, pattern, licence, package)


def _yaml_rows(text: str, name: str) -> list[Row]:
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise OverridesError(f"--licences {name}: not YAML: {str(exc).splitlines()[0]}") from exc
    if doc is None:
        return []
    if isinstance(doc, dict):
        return [(f"key {k!r}", k, v, None) for k, v in doc.items()]
    if not isinstance(doc, list):
        raise OverridesError(f"--licences {name}: expected a mapping PATTERN: LICENCE or a list of rules")
    rows = []
    for i, item in enumerate(doc, 1):
        if not isinstance(item, dict):
            raise OverridesError(f"--licences {name}: rule {i}: expected {{match: PATTERN, licence: LICENCE}}")
        pattern = item.get("match", item.get("pattern"))
        licence = item.get("licence", item.get("license"))
        rows.append((f"rule {i}", pattern, licence, item.get("package")))
    return rows


def _csv_rows(text: str) -> list[Row]:
    rows = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if not rows and cells[0].lower() in _HEADER:
            continue
        cells += [""] * (3 - len(cells))
        rows.append((f"line {number}", cells[0], cells[1], cells[2] or None))
    return rows


class OverrideSource(LicenceSource):
    NAME = "override"
    CERTAINTY = Certainty.DECLARED

    def candidate(self, module: Module) -> Candidate | None:
        overrides = self.ctx.overrides
        rule = overrides.rule_for(module) if overrides is not None else None
        if overrides is None or rule is None:
            return None
        return Candidate(rule.licence, f"{self.NAME}:{overrides.file}:{rule.pattern}", self.CERTAINTY, rule.package)
