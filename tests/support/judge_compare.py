"""linkgraph's identification of a stock root against the judges of tests/support/judges.py: each
(file, component) a judge finds is agreed (linkgraph names the file, or a copy inside it, with that
component), agreed in name with another version, accepted (a known judge error, listed with its
reason by the caller) or missed. Used by tests/test_identify_judges.py and bench/identify_stock.py.

The roots: the four stock vendor roots (tests/support/vendor_roots.py) and the TL-MR3020 image
unpacked by linkgraph, each keyed by its archive's or image's sha256.
"""

from __future__ import annotations

import enum
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from linkgraph.loader.model import Kind, ScanResult
from linkgraph.loader.scan.root import scan_root

from . import qemu_oracle as qo
from .images import MR3020
from .judges import Finding, Judge, cache_dir, findings
from .vendor_roots import VENDOR_ROOTS, extracted_root, sha256_of

ROOTS = [*VENDOR_ROOTS, "tplink_mr3020"]


def judged_root(name: str) -> tuple[Path, str]:
    """The root's folder and the sha256 of what it was unpacked from."""
    if name in VENDOR_ROOTS:
        return extracted_root(name)
    sha = sha256_of(MR3020)
    dest = cache_dir() / "judges" / "roots" / name / sha[:20]
    done = dest / "root.txt"
    if not done.is_file():
        root = qo.extract_root(MR3020, dest / "unpacked")
        done.write_text(str(root.relative_to(dest)))
    return dest / done.read_text().strip(), sha


@functools.cache
def scanned(name: str) -> ScanResult:
    return scan_root(judged_root(name)[0])


def judged(name: str, j: Judge, result: ScanResult) -> list[Finding]:
    """The judge's findings on the root's userland modules (kernel modules are not compared)."""
    root, sha = judged_root(name)
    userland = {m.path for m in result.modules if m.facts.kind is not Kind.KERNEL_MODULE}
    return [f for f in findings(j, root, sha[:20]) if f.file in userland]


class Status(enum.StrEnum):
    AGREED = "agreed"  # same component, same version (or the judge gives none)
    ACCEPTED = "accepted"  # a judge error (component or version) the caller lists with its reason
    OTHER_VERSION = "other version"  # same component, linkgraph's version differs or is missing
    MISSED = "missed"  # linkgraph does not name it


@dataclass(frozen=True, slots=True)
class Verdict:
    finding: Finding
    status: Status
    linkgraph: str  # what linkgraph says of the file ("-" for nothing)
    reason: str = ""
    same_component: bool = False  # linkgraph names the file (or a copy inside it) with this component


@dataclass(frozen=True, slots=True)
class Accept:
    """A judge's finding the comparison accepts as the judge's error: on ``root`` (every root for
    None), files matching ``files``, the judge's ``component``; with ``version`` only the version
    is disputed (linkgraph names the component with another version, or none)."""

    root: str | None
    files: str  # a regular expression over the whole path
    component: str
    reason: str
    version: bool = False

    def covers(self, name: str, f: Finding, version: bool) -> bool:
        return (self.root in (None, name) and self.component == f.component and self.version == version
                and re.fullmatch(self.files, f.file) is not None)  # fmt: skip


def judge(name: str, result: ScanResult, found: list[Finding], accepted: list[Accept]) -> list[Verdict]:
    verdicts = []
    for f in found:
        ident = result.identities.get(f.file)
        named = ([ident.own] if ident and ident.own else []) + (ident.contains if ident else [])
        label = ", ".join(f"{i.component} {i.version or ''}".strip() for i in named) or "-"
        same = [i for i in named if i.component == f.component]
        if same and (f.version is None or any(_same_version(i.version, f.version) for i in same)):
            verdicts.append(Verdict(f, Status.AGREED, label, same_component=True))
            continue
        rule = next((a for a in accepted if a.covers(name, f, version=bool(same))), None)
        if rule is not None:
            verdicts.append(Verdict(f, Status.ACCEPTED, label, rule.reason, bool(same)))
        else:
            verdicts.append(Verdict(f, Status.OTHER_VERSION if same else Status.MISSED, label, "", bool(same)))
    return verdicts


def _same_version(ours: str | None, theirs: str) -> bool:
    return ours is not None and ours.lstrip("vV") == theirs.lstrip("vV")


@dataclass
class Tally:
    """One root's figures per judge."""

    root: str
    judge: Judge
    findings: int = 0
    by_status: Counter[Status] = field(default_factory=Counter)
    versions_given: int = 0  # agreed in name, the judge giving a version
    versions_same: int = 0
    linkgraph_only: int = 0  # files linkgraph identifies that this judge names nothing right in


def tally(name: str, j: Judge, result: ScanResult, verdicts: list[Verdict]) -> Tally:
    t = Tally(name, j, findings=len(verdicts))
    for v in verdicts:
        t.by_status[v.status] += 1
        if v.same_component and v.finding.version is not None:
            t.versions_given += 1
            t.versions_same += v.status is Status.AGREED
    judged = {v.finding.file for v in verdicts if v.status is not Status.ACCEPTED}  # a judge error names nothing
    userland = {m.path for m in result.modules if m.facts.kind is not Kind.KERNEL_MODULE}
    t.linkgraph_only = sum(1 for p, i in result.identities.items() if i.own and p in userland and p not in judged)
    return t
