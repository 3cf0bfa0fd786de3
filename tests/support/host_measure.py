"""linkgraph's licence facts on the host root, against the host's own package data.

The root (tests/support/hostroot.py: /usr/bin's programs and the libraries they load) carries no
package data, so every fact comes from the identification, the knowledge base and the name table.
The truth is tests/support/host_truth.py's, read from the host's dpkg database and DEP-5 copyright
files by a judge that imports nothing from linkgraph. The figures:

* copyleft recall: of the modules whose truth class is gpl or lgpl, the share whose class found
  is accepted: one the truth allows (an alternative of a choice, a part of a conjunction), or,
  when linkgraph found a choice, one whose alternatives offer the truth's class (as
  tests/support/identify_truth.py counts);
* wrong class: modules with a truth whose class found is known and not accepted, except where the
  component's own sources contradict the DEP-5 paragraph (:data:`DISPUTED`, each with where they
  state it) and linkgraph found what they state: disputed, reported apart and left out of the
  recall;
* coverage: the modules with a licence fact, over all modules;
* the coreutils programs: each identified as ``coreutils`` with the upstream version of the host's
  package.

Used by bench/identify_host.py and tests/test_identify_host.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from linkgraph.loader.licences.classes import licence_class
from linkgraph.loader.model import ScanResult

from .host_truth import Truth, host_truth, package_version, upstream_version
from .identify_truth import choice_classes, scan, userland

COREUTILS = "coreutils"
# Where a DEP-5 paragraph the judge reads is contradicted by the component's own sources: (source
# package, module name less ".so...") -> (the licence the sources state, where). Such a module found
# under that licence's class is *disputed*: reported apart, neither wrong nor in the recall.
DISPUTED = {
    # Debian's lz4 copyright: Files: * BSD-2-clause, only programs/bench.c and programs/platform.h
    # GPL-2+; the program's main file says GPL version 2 or later
    ("lz4", "lz4"): ("GPL-2.0-or-later", "lz4 programs/lz4cli.c header"),
    # Debian's systemd copyright: Files: * LGPL-2.1+; udev's programs are GPL-2.0-or-later
    ("systemd", "udevadm"): ("GPL-2.0-or-later", "systemd src/udev/udevadm.c SPDX header"),
    # Debian's libtool copyright: Files: * GPL-2+; libltdl's files say LGPL version 2 or later
    ("libtool", "libltdl"): ("LGPL-2.0-or-later", "libtool libltdl/ltdl.c header"),
}


@dataclass(slots=True)
class HostOutcome:
    """One module: the judge's truth and what linkgraph found."""

    truth: Truth
    found: str | None  # the licence fact's SPDX expression
    found_class: str
    found_choices: list[str]  # for a choice, the class of each alternative
    found_source: str
    found_certainty: str | None
    component: str | None  # the module's own identification
    version: str | None

    @property
    def hit(self) -> bool:
        return self.found_class in self.truth.classes or self.truth.truth_class in self.found_choices

    @property
    def disputed(self) -> str | None:
        """Where the component's own sources contradict the truth, when linkgraph found what they state."""
        name = self.truth.path.rsplit("/", 1)[-1].split(".so")[0]
        stated = DISPUTED.get((self.truth.source or "", name))
        if stated is not None and not self.hit and licence_class(stated[0]).value == self.found_class:
            return f"{stated[0]} ({stated[1]})"
        return None

    @property
    def wrong(self) -> bool:
        known = self.truth.truth_class != "unknown" and self.found_class != "unknown"
        return known and not self.hit and self.disputed is None

    def record(self) -> dict:
        out = asdict(self)
        return out | {"truth": asdict(self.truth), "hit": self.hit, "wrong": self.wrong, "disputed": self.disputed}


@dataclass
class HostMeasure:
    """The comparison on the host root."""

    root: str
    coreutils_version: str | None  # the upstream version of the host's coreutils package
    outcomes: list[HostOutcome] = field(default_factory=list)
    not_scanned: list[str] = field(default_factory=list)  # truth modules the scan has no module for
    elapsed: dict[str, float] = field(default_factory=dict)

    def copyleft(self) -> list[HostOutcome]:
        """The modules whose truth is gpl or lgpl; a disputed one is judged apart."""
        return [o for o in self.outcomes if o.truth.copyleft and o.disputed is None]

    def disputed(self) -> list[HostOutcome]:
        return [o for o in self.outcomes if o.disputed is not None]

    def recall(self) -> float | None:
        truth = self.copyleft()
        return sum(o.hit for o in truth) / len(truth) if truth else None

    def missed(self) -> list[HostOutcome]:
        return [o for o in self.copyleft() if not o.hit]

    def wrong(self) -> list[HostOutcome]:
        return [o for o in self.outcomes if o.wrong]

    def with_fact(self) -> int:
        return sum(o.found_class != "unknown" for o in self.outcomes)

    def missed_by_source(self) -> dict[str, list[HostOutcome]]:
        """The missed copyleft modules by source package, most first."""
        groups: dict[str, list[HostOutcome]] = {}
        for o in sorted(self.missed(), key=lambda o: o.truth.path):
            groups.setdefault(o.truth.source or "?", []).append(o)
        return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def coreutils(self) -> list[HostOutcome]:
        return [o for o in self.outcomes if o.truth.source == COREUTILS]

    def coreutils_misses(self) -> list[HostOutcome]:
        """The coreutils programs not identified as coreutils with the host's version."""
        return [o for o in self.coreutils() if (o.component, o.version) != (COREUTILS, self.coreutils_version)]

    def figures(self) -> dict:
        """The counts, JSON-ready."""
        truth = [o.truth for o in self.outcomes]
        copyleft = self.copyleft()
        return {
            "modules": len(self.outcomes),
            "truth_by_class": dict(Counter(t.truth_class for t in truth).most_common()),
            "without_truth": dict(Counter((t.why or "").split(":")[0] for t in truth if t.why).most_common()),
            "copyleft": len(copyleft),
            "copyleft_hit": sum(o.hit for o in copyleft),
            "recall": self.recall(),
            "wrong": len(self.wrong()),
            "disputed": len(self.disputed()),
            "with_fact": self.with_fact(),
            "coverage": self.with_fact() / len(self.outcomes) if self.outcomes else None,
            "found_by_certainty": dict(Counter(o.found_certainty or "none" for o in self.outcomes).most_common()),
            "coreutils": len(self.coreutils()),
            "coreutils_version": self.coreutils_version,
            "coreutils_identified": len(self.coreutils()) - len(self.coreutils_misses()),
            "not_scanned": len(self.not_scanned),
        }


def compare(root: Path, result: ScanResult, truths: list[Truth]) -> HostMeasure:
    """The truth of every module beside linkgraph's fact and identification of it."""
    version = package_version(COREUTILS)
    measure = HostMeasure(str(root), upstream_version(version) if version else None, elapsed=result.elapsed)
    scanned = set(userland(result))
    for truth in truths:
        if truth.path not in scanned:
            measure.not_scanned.append(truth.path)
            continue
        fact = result.licences.get(truth.path)
        identity = result.identities.get(truth.path)
        own = identity.own if identity is not None else None
        found = fact.licence if fact is not None else None
        measure.outcomes.append(
            HostOutcome(
                truth=truth,
                found=found,
                found_class=licence_class(found).value,
                found_choices=choice_classes(found),
                found_source=fact.source if fact is not None else "no fact",
                found_certainty=fact.certainty.value if fact is not None and fact.certainty else None,
                component=own.component if own is not None else None,
                version=own.version if own is not None else None,
            )
        )
    return measure


def measure_host(root: Path) -> HostMeasure:
    """Scan the host root (one scan, up to the licence facts) and compare it with the judge's truth."""
    return compare(root, scan(root, "host /usr/bin"), host_truth(root))
