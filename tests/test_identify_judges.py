"""linkgraph's identification against the tools a user would pick instead, run as judges only
(tests/support/judges.py: cve-bin-tool's version checkers and syft's binary classifiers, each a
subprocess of its own installation, never imported) on the four stock vendor roots and the
TL-MR3020 image: every (file, component) a judge finds that is right, linkgraph finds too, with the
same version where the judge gives one. The judges' errors are listed below, each with its reason,
checked by hand against the file's strings.
"""

from __future__ import annotations

import pytest
from support.judge_compare import ROOTS, Accept, Status, judge, judged, scanned
from support.judges import Judge

pytestmark = pytest.mark.slow

ANY = None
# The judges' findings that are wrong, each checked against the file's strings.
ACCEPTED: list[Accept] = [
    # cve-bin-tool's gcc checker reads the compiler's ".comment" banner ("GCC: (GNU) 3.3.2"), left in
    # every file the toolchain built: the compiler that built a file is not in it (libgcc_s, which
    # is GCC's runtime, linkgraph names gcc and agrees)
    Accept(ANY, r".*", "gcc", "compiler banner: GCC built the file, it is not in it"),
    # pluto's table of vendor IDs names other IKE implementations and older Openswan releases
    # ("strongSwan 4.0.0".."4.0.7", "Openswan 2.2.0", "SSH Communications Security IPSEC Express
    # version 4.0.0"); the file's own version is Openswan 2.6.39, as its siblings say
    Accept("dlink_dir880l", r"/usr/libexec/ipsec/pluto", "strongswan", "a vendor-ID table entry, not the program"),
    Accept(
        "dlink_dir880l",
        r"/usr/libexec/ipsec/pluto",
        "openswan",
        "version 2.2.0 is a vendor-ID table entry; the program is Openswan 2.6.39",
        version=True,
    ),
    # hostapd's and wpa_supplicant's banners say "v0.5.9"; the checkers' patterns stop at two parts
    Accept(ANY, r"/s?bin/hostapd|/usr/sbin/hostapd", "hostapd", "the checker cuts v0.5.9 to 0.5", version=True),
    Accept("tplink_mr3020", r"/sbin/wpa_supplicant", "wpa_supplicant", "the checker cuts v0.5.9 to 0.5", version=True),
    # OpenWrt's wpad is hostapd and wpa_supplicant built as one program ("hostapd v2.7-devel", a
    # snapshot before 2.7): linkgraph names it hostapd, the source tree both come from
    Accept(
        "alt_xiaomi_r4a",
        r"/usr/sbin/wpad",
        "hostapd",
        "the checker drops -devel: 2.7-devel is before 2.7",
        version=True,
    ),
    Accept(
        "alt_xiaomi_r4a",
        r"/usr/sbin/wpad",
        "wpa_supplicant",
        "wpad is hostapd and wpa_supplicant in one program, named hostapd (one source tree)",
    ),
    # D-Link's pppd states "2.4.2b3" (its patchlevel.h); the checker drops the beta suffix
    Accept("dlink_dir880l", r"/usr/sbin/pppd", "ppp", "the checker cuts 2.4.2b3 to 2.4.2", version=True),
]


@pytest.mark.parametrize("j", list(Judge))
@pytest.mark.parametrize("name", ROOTS)
def test_judges_findings_are_linkgraphs(name: str, j: Judge) -> None:
    result = scanned(name)
    verdicts = judge(name, result, judged(name, j, result), ACCEPTED)
    wrong = [
        f"{v.finding.file}: {j.value} says {v.finding.name} {v.finding.version or ''} ({v.status.value}); "
        f"linkgraph: {v.linkgraph}"
        for v in verdicts
        if v.status in (Status.MISSED, Status.OTHER_VERSION)
    ]
    agreed = sum(v.status is Status.AGREED for v in verdicts)
    print(f"{name} {j.value}: {len(verdicts)} findings, {agreed} agreed")
    assert not wrong, "\n".join(wrong)


def test_every_accepted_disagreement_is_used() -> None:
    """An accepted judge error that no finding needs any more is stale: drop it."""
    used = set()
    for name in ROOTS:
        result = scanned(name)
        for j in Judge:
            for v in judge(name, result, judged(name, j, result), ACCEPTED):
                if v.status is Status.ACCEPTED:
                    used.add(v.reason)
    assert [a.reason for a in ACCEPTED if a.reason not in used] == []
