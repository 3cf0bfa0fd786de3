"""How many userland modules of a stock vendor root (no package data) get a licence fact, and
the unknown ones with hints for writing signatures: the first strings in the file that look like
a version banner (``name-1.2.3``, ``name v1.2``, ``version 1.2``, ``1.2.3`` alone).

Used by bench/identify.py.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from linkgraph.loader.model import ScanResult
from support.identify_truth import source_kind, userland

PRINTABLE = re.compile(rb"[\x20-\x7e]{4,}")
BANNERS = (
    re.compile(r"\b[A-Za-z][\w+.]*-v?\d+\.\d+(?:\.\d+)*[a-z]?\b"),  # name-1.2.3
    re.compile(r"\b[A-Za-z][\w+-]* v\d+\.\d+(?:\.\d+)*[a-z]?\b"),  # name v1.2
    re.compile(r"\b[Vv]ersion:? *v?\d+\.\d+(?:\.\d+)*[a-z]?\b"),  # version 1.2
    re.compile(r"^v?\d+\.\d+\.\d+[a-z]?$"),  # a version alone: 2.4.2 (an IPv4 address has four parts)
)
NOT_BANNERS = re.compile(r"^(GCC|GLIBC|GLIBCXX|CXXABI|GCC_|ld-|lib[\w+-]*\.so)")
# build paths of the compiler and the C library, in nearly every file of a vendor's toolchain
TOOLCHAIN = re.compile(r"(?i)gcc|toolchain|hndtools|uclibc|glibc|buildroot|binutils|^linux-\d")
HINTS = 3
HINT_WIDTH = 70


def banner_hints(data: bytes, limit: int = HINTS) -> list[str]:
    """The first ``limit`` distinct printable strings of ``data`` that look like a version banner."""
    found: list[str] = []
    for match in PRINTABLE.finditer(data):
        shown = _banner(match.group().decode("ascii").strip())
        if shown is not None and shown not in found:
            found.append(shown)
            if len(found) == limit:
                break
    return found


def _banner(text: str) -> str | None:
    """What to show of a string that looks like a banner; of a build path (``/home/.../progs.gpl/
    openswan/openswan-2.6.39/lib/...``), its ``name-version`` folders that are not the toolchain's."""
    if NOT_BANNERS.match(text) or not any(p.search(text) for p in BANNERS):
        return None
    if text.startswith("/") and " " not in text:
        parts = [p for p in text.split("/") if BANNERS[0].fullmatch(p) and not TOOLCHAIN.search(p)]
        return "/".join(parts) or None
    return text if len(text) <= HINT_WIDTH else text[: HINT_WIDTH - 3] + "..."


@dataclass(slots=True)
class Unknown:
    """A userland module without a licence fact."""

    path: str
    size: int
    soname: str | None
    hints: list[str]


@dataclass
class Coverage:
    """The licence facts of one root's userland modules."""

    name: str
    modules: int
    by_certainty: dict[str, int] = field(default_factory=dict)  # certainty -> modules with a fact
    by_source: dict[str, int] = field(default_factory=dict)  # licence source kind -> modules
    unknown: list[Unknown] = field(default_factory=list)
    elapsed: dict[str, float] = field(default_factory=dict)

    @property
    def known(self) -> int:
        return sum(self.by_certainty.values())

    @property
    def share(self) -> float:
        return self.known / self.modules if self.modules else 0.0

    def record(self) -> dict:
        return {
            "name": self.name,
            "modules": self.modules,
            "with_fact": self.known,
            "share": self.share,
            "by_certainty": self.by_certainty,
            "by_source": self.by_source,
            "elapsed": self.elapsed,
            "unknown": [asdict(u) for u in self.unknown],
        }


def coverage(name: str, root: Path, result: ScanResult) -> Coverage:
    """The coverage of ``result``, a scan of ``root`` (read again for the unknown modules' hints)."""
    paths = set(userland(result))
    found = Coverage(name, len(paths), elapsed=result.elapsed)
    for module in sorted(result.modules, key=lambda m: m.path):
        if module.path not in paths:
            continue
        fact = result.licences.get(module.path)
        if fact is not None and fact.licence is not None and fact.certainty is not None:
            certainty = fact.certainty.value
            found.by_certainty[certainty] = found.by_certainty.get(certainty, 0) + 1
            kind = source_kind(fact.source)
            found.by_source[kind] = found.by_source.get(kind, 0) + 1
            continue
        try:
            data = (root / module.path.lstrip("/")).read_bytes()
        except OSError:
            data = b""
        found.unknown.append(Unknown(module.path, module.facts.size, module.facts.soname, banner_hints(data)))
    return found
