"""Licence facts of this machine's /usr/bin root, which has no package data, against the host's own
dpkg database (issue 37).

The root is tests/support/hostroot.py's (cached between runs); the truth is
tests/support/host_truth.py's: each module's package by ``dpkg-query -S``, its source package and
the DEP-5 paragraph of its source folder, read by a judge that imports nothing from linkgraph.
One scan serves every test of the module. Goals: copyleft recall >= 0.90, no module put in another
known class, every coreutils program identified as coreutils with the host package's upstream
version. bench/identify_host.py prints the same comparison with the missed modules and the
strings that could identify them.
"""

from __future__ import annotations

from collections import Counter

import pytest
from support.host_measure import HostMeasure, HostOutcome, measure_host
from support.hostroot import cached_host_root

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

RECALL_GOAL = 0.90


@pytest.fixture(scope="module")
def measure() -> HostMeasure:
    return measure_host(cached_host_root())


def by_source(outcomes: list[HostOutcome]) -> str:
    """``coreutils 104 (ls, cat, ...)`` lines, most first."""
    groups: dict[str, list[str]] = {}
    for o in outcomes:
        groups.setdefault(o.truth.source or "?", []).append(o.truth.path.rsplit("/", 1)[-1])
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return "\n".join(f"  {s} {len(n)} ({', '.join(n[:4])}{', ...' if len(n) > 4 else ''})" for s, n in ranked)


def test_the_judge_has_a_truth(measure: HostMeasure) -> None:
    """What the measure relies on: the scan has every module the judge has, and the judge has a
    truth of both copyleft classes, the coreutils programs among them."""
    figures = measure.figures()
    assert measure.not_scanned == [], measure.not_scanned[:10]
    assert figures["truth_by_class"].get("gpl", 0) >= 20 and figures["truth_by_class"].get("lgpl", 0) >= 20, figures
    assert figures["coreutils"] >= 50 and figures["coreutils_version"], figures
    assert all(o.truth.truth_class == "gpl" for o in measure.coreutils())


def test_copyleft_recall(measure: HostMeasure) -> None:
    figures = measure.figures()
    recall = figures["recall"]
    assert recall is not None and recall >= RECALL_GOAL, (
        f"copyleft recall {figures['copyleft_hit']}/{figures['copyleft']} = {recall:.2f} (goal {RECALL_GOAL}); "
        f"coverage {figures['with_fact']}/{figures['modules']}; missed by source package:\n"
        + by_source(measure.missed())
    )


def test_no_wrong_class(measure: HostMeasure) -> None:
    wrong = [
        f"{o.truth.path}: truth {o.truth.licence} ({o.truth.source}, Files: {o.truth.paragraph}), "
        f"found {o.found} from {o.found_source}"
        for o in measure.wrong()
    ]
    assert not wrong, f"{len(wrong)} modules in another class:\n" + "\n".join(wrong)


def test_every_coreutils_program_has_its_version(measure: HostMeasure) -> None:
    missed = measure.coreutils_misses()
    found = Counter(f"{o.component or 'nothing'} {o.version or ''}".strip() for o in missed)
    assert not missed, (
        f"{len(missed)} of {len(measure.coreutils())} coreutils programs not identified as coreutils "
        f"{measure.coreutils_version}: found {dict(found)}; "
        f"{', '.join(o.truth.path for o in missed[:8])}{', ...' if len(missed) > 8 else ''}"
    )
