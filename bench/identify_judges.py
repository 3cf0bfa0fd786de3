"""linkgraph's identification against cve-bin-tool's version checkers and syft's binary classifiers
(judges only, each run as a subprocess of its own installation: tests/support/judges.py) on the
stock vendor roots and the TL-MR3020 image. Per root and judge: the judge's findings on userland
modules, agreed (same component, same version where the judge gives one), accepted judge errors
with their reasons (the list of tests/test_identify_judges.py), other version, missed; the version
agreement where the judge gives a version; the files linkgraph identifies that the judge names
nothing in (linkgraph-only).

Usage: python bench/identify_judges.py [--root NAME ...] [--json FILE]
Exit status 0 when nothing is missed and no version differs outside the accepted list.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.judge_compare import ROOTS, Status, judge, judged, scanned, tally
from support.judges import Judge
from test_identify_judges import ACCEPTED


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", action="append", choices=ROOTS, help="only these roots")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    records = []
    bad = 0
    for name in args.root or ROOTS:
        result = scanned(name)
        for j in Judge:
            verdicts = judge(name, result, judged(name, j, result), ACCEPTED)
            t = tally(name, j, result, verdicts)
            agreed = t.by_status[Status.AGREED]
            accepted = t.by_status[Status.ACCEPTED]
            versions = f"{t.versions_same}/{t.versions_given}" if t.versions_given else "-"
            print(f"{name:16} {j.value:12} findings {t.findings:4}  agreed {agreed:4}  accepted {accepted:4}  "
                  f"other version {t.by_status[Status.OTHER_VERSION]:3}  missed {t.by_status[Status.MISSED]:3}  "
                  f"versions same {versions:7}  linkgraph-only {t.linkgraph_only:4}")  # fmt: skip
            reasons: dict[str, int] = {}
            for v in verdicts:
                if v.status is Status.ACCEPTED:
                    reasons[v.reason] = reasons.get(v.reason, 0) + 1
                elif v.status is not Status.AGREED:
                    bad += 1
                    print(f"    {v.status.value}: {v.finding.file} {v.finding.name} {v.finding.version or ''}"
                          f" (linkgraph: {v.linkgraph})")  # fmt: skip
            for reason, n in sorted(reasons.items(), key=lambda r: -r[1]):
                print(f"    accepted {n:3}: {reason}")
            records.append({"root": name, "judge": j.value, "findings": t.findings, "agreed": agreed,
                            "accepted": reasons, "other_version": t.by_status[Status.OTHER_VERSION],
                            "missed": t.by_status[Status.MISSED], "versions_given": t.versions_given,
                            "versions_same": t.versions_same, "linkgraph_only": t.linkgraph_only})  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
