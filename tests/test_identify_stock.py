"""The identification stage on three stock vendor roots: the open-source components each one ships
are identified by their own bytes (``loader/identify``), with the version where the binary states
one.

The expected versions are read here independently of the signature table: from a file's name
(``libupnp.so.1.3.1``), from another file of the component (the pppd plugins name the pppd version
they were built for), from the Yocto recipe folder in the JioFi's build paths
(``.../gnueabi/shadow/4.2.1-r0/...``), or from the printable strings of the file, split as a
person reading ``strings`` would. The roots are ``../shared/firmware/roots`` (never copied into
the repository), extracted once into the test cache by tests/support/vendor_roots.py.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from linkgraph.loader.identify.matcher import match_file, table
from linkgraph.loader.identify.model import EvidenceKind
from linkgraph.loader.model import Certainty, Kind
from linkgraph.loader.scan.root import ScanResult, scan_root
from support.vendor_roots import extracted_root

pytestmark = pytest.mark.slow

Oracle = Callable[[Path], str | None]  # the root -> the version the file states, None when it states none
PRINTABLE = re.compile(rb"[\x20-\x7e\t]{4,}")


@functools.cache
def strings(path: Path) -> tuple[str, ...]:
    """The printable runs of 4 and more bytes of a file (what ``strings -a`` prints)."""
    return tuple(m.group().decode("ascii") for m in PRINTABLE.finditer(path.read_bytes()))


def after(rel: str, marker: str, index: int = 0, strip: str = ",.") -> Oracle:
    """The word ``index`` after ``marker`` in the first string of ``rel`` containing it."""

    def read(root: Path) -> str | None:
        line = next(s for s in strings(root / rel) if marker in s)
        return line.split(marker, 1)[1].split()[index].strip(strip)

    return read


def alone(rel: str, shape: str) -> Oracle:
    """The one string of ``rel`` that is entirely of ``shape`` (its group when it has one)."""

    def read(root: Path) -> str | None:
        found = {m.group(m.re.groups) for s in strings(root / rel) if (m := re.fullmatch(shape, s))}
        assert len(found) == 1, (rel, found)
        return found.pop()

    return read


def following(rel: str, marker: str) -> Oracle:
    """The string right after the first string of ``rel`` that is ``marker``."""

    def read(root: Path) -> str | None:
        found = strings(root / rel)
        return found[found.index(marker) + 1]

    return read


def name_version(rel: str) -> Oracle:
    return lambda _root: rel.rsplit(".so.", 1)[1]


def recipe(name: str) -> Oracle:
    """The version of the Yocto recipe ``name`` in the build paths of the root's files."""

    def read(root: Path) -> str | None:
        shape = re.compile(rf"-gnueabi/{re.escape(name)}/(?:\d+_)?([0-9][\w.]*?)-r[\d.]+/")
        found = {m.group(1) for f in root.rglob("*") if f.is_file() and not f.is_symlink() for s in strings_if_elf(f)
                 for m in shape.finditer(s)}  # fmt: skip
        assert len(found) == 1, (name, found)
        return found.pop()

    return read


def strings_if_elf(path: Path) -> tuple[str, ...]:
    with open(path, "rb") as fh:
        return strings(path) if fh.read(4) == b"\x7fELF" else ()


def none(_root: Path) -> str | None:
    return None


OPENSWAN = ["usr/lib/ipsec/" + n for n in ("_copyright", "eroute", "klipsdebug", "spi", "tncfg")] + [
    "usr/libexec/ipsec/" + n
    for n in ("_pluto_adns", "addconn", "ikeping", "pluto", "ranbits", "rsasigkey", "showhostkey", "whack")
]
SHADOW = ["bin/login.shadow", "bin/su.shadow", "usr/bin/passwd.shadow", "usr/bin/chage", "usr/sbin/useradd",
          "usr/sbin/groupadd", "usr/sbin/pwck", "usr/bin/newgrp.shadow"]  # fmt: skip
KBD = ["usr/bin/loadkeys", "usr/bin/setfont", "usr/bin/dumpkeys", "usr/bin/kbd_mode", "usr/bin/chvt.kbd"]
LIBNL = ["usr/lib/libnl-3.so.200", "usr/lib/libnl-route-3.so.200", "usr/lib/libnl-genl-3.so.200"]

# root -> [(path, component, version oracle)]
EXPECTED: dict[str, list[tuple[str, str, Oracle]]] = {
    "hilink_hlk-rm04": [
        ("bin/pppd", "ppp", alone("etc_ro/ppp/plugins/rp-pppoe.so", r"\d+\.\d+\.\d+")),
        *((f"etc_ro/ppp/plugins/{p}.so", "ppp-plugin", none) for p in ("openl2tp", "pppol2tp", "pptp", "rp-pppoe")),
        ("sbin/pppoe-relay", "rp-pppoe", none),
        *((p, "wireless-tools", none) for p in ("lib/libiw.so.29", "bin/iwconfig", "bin/iwpriv")),
        # libupnp states its version (its HTTP server header); ixml and threadutil state none
        ("lib/libupnp.so.1.3.1", "libupnp", name_version("lib/libupnp.so.1.3.1")),
        ("lib/libixml.so.1.3.1", "libupnp", none),
        ("lib/libthreadutil.so.1.3.1", "libupnp", none),
        ("bin/igmpproxy", "igmpproxy", after("bin/igmpproxy", "igmpproxy, Version")),
        ("bin/inadyn", "inadyn", after("bin/inadyn", "User-Agent: inadyn/")),
        ("bin/ntpclient", "ntpclient", none),
        ("bin/mtd_write", "openwrt-mtd", none),  # the Ralink SDK's copy of OpenWrt's mtd
    ],
    "dlink_dir880l": [
        *((p, "openswan", after("usr/lib/ipsec/_copyright", "Openswan")) for p in OPENSWAN),
        ("sbin/udevd", "udev", none),
        ("sbin/udevtrigger", "udev", none),
        ("usr/bin/udevinfo", "udev", none),
        ("usr/sbin/ip", "iproute2", alone("usr/sbin/ip", r"\d{6}")),
        ("usr/sbin/tc", "iproute2", alone("usr/sbin/tc", r"\d{6}")),
        ("usr/sbin/radvd", "radvd", none),
        ("usr/sbin/radvdump", "radvd", none),
        ("usr/sbin/xl2tpd", "xl2tpd", alone("usr/sbin/xl2tpd", r"xl2tpd-([\d.]+)")),
        ("usr/sbin/xl2tpd-control", "xl2tpd", alone("usr/sbin/xl2tpd", r"xl2tpd-([\d.]+)")),
        ("lib/libFLAC.so.8.2.0", "flac", after("lib/libFLAC.so.8.2.0", "reference libFLAC")),
        ("lib/libogg.so.0.8.0", "libogg", none),
        ("lib/libvorbis.so.0.4.5", "libvorbis", alone("lib/libvorbis.so.0.4.5", r"Xiph\.Org libVorbis ([\d.]+)")),
        ("lib/libexif.so.12.3.2", "libexif", none),
        ("lib/libid3tag.so.0.2.0", "libid3tag", after("lib/libid3tag.so.0.2.0", "ID3 Tag Library")),
        ("lib/libjpeg.so.8.3.0", "libjpeg", alone("lib/libjpeg.so.8.3.0", r"(\w+)  \d\d-\w{3}-\d{4}")),
        ("lib/libiconv.so.2.2.0", "libiconv", none),
        ("lib/libgdbm.so.3", "gdbm", after("lib/libgdbm.so.3", "GDBM version")),
        ("sbin/ntfs-3g", "ntfs-3g", alone("sbin/ntfs-3g", r"20\d\d\.\d+\.\d+")),
        ("usr/bin/minidlna", "minidlna", after("usr/bin/minidlna", "Starting MiniDLNA version")),
        ("usr/sbin/stunnel", "stunnel", none),
        ("usr/sbin/wifidog", "wifidog", after("usr/sbin/wifidog", "This is WiFiDog version")),
        ("usr/sbin/dhcp6-multi", "wide-dhcpv6", none),
        ("lib/libavcodec.so.53", "ffmpeg", none),
        ("lib/libcurl.so.4", "curl", after("lib/libcurl.so.4", "CLIENT libcurl")),
        ("lib/libsqlite3.so.0.8.6", "sqlite", none),
    ],
    "jiofi2_m2": [
        *((p, "shadow", recipe("shadow")) for p in SHADOW),
        *((p, "kbd", recipe("kbd")) for p in KBD),
        ("usr/sbin/ubinize", "mtd-utils", after("usr/sbin/ubinize", "ubinize version")),
        ("usr/sbin/flash_erase", "mtd-utils", after("usr/sbin/ubinize", "ubinize version")),
        ("usr/sbin/mkfs.ubifs", "mtd-utils", none),
        *((f"usr/sbin/{p}", "libnl", none) for p in ("nl-link-list", "nl-qdisc-add", "genl-ctrl-list")),
        *((p, "libnl", recipe("libnl")) for p in LIBNL),
        ("sbin/init.sysvinit", "sysvinit", after("sbin/init.sysvinit", "@(#) init")),
        ("sbin/killall5", "sysvinit", none),
        ("sbin/bootlogd", "sysvinit", none),
        ("usr/bin/last.sysvinit", "sysvinit", none),
        *((p, "avahi", recipe("avahi")) for p in ("usr/sbin/avahi-daemon", "usr/lib/libavahi-core.so.7")),
        ("usr/lib/libavahi-client.so.3", "avahi", recipe("avahi")),
        *((p, "dbus", recipe("dbus")) for p in ("usr/bin/dbus-daemon", "usr/lib/libdbus-1.so.3")),
        ("usr/bin/dbus-send", "dbus", none),
        *((f"usr/lib/lib{g}-2.0.so.0", "glib", recipe("glib-2.0")) for g in ("glib", "gio", "gobject")),
        ("usr/lib/libperl.so.5", "perl", alone("usr/lib/libperl.so.5", r"v(5\.\d+\.\d+)")),
        ("sbin/ip.iproute2", "iproute2", alone("sbin/ip.iproute2", r"\d{6}")),
        ("sbin/tc", "iproute2", alone("sbin/tc", r"\d{6}")),
        ("usr/sbin/conntrack", "conntrack-tools", none),
        ("usr/sbin/conntrackd", "conntrack-tools", none),
        ("usr/lib/libnetfilter_conntrack.so.3", "libnetfilter_conntrack", none),
        ("usr/lib/libxml2.so.2", "libxml2", recipe("libxml2")),
        ("usr/lib/libexpat.so.1", "expat", recipe("expat")),
        ("usr/sbin/tcpdump", "tcpdump", none),
        ("usr/sbin/ethtool", "ethtool", after("usr/sbin/ethtool", "ethtool version")),
        ("usr/sbin/wpa_supplicant", "wpa_supplicant", alone("usr/sbin/wpa_supplicant", r"wpa_supplicant v([\d.]+)")),
        ("app/bin/boa", "boa", alone("app/bin/boa", r"Boa/([\w.]+)")),
        ("app/bin/miniupnpd", "miniupnpd", none),
        ("app/bin/dhcp6s", "wide-dhcpv6", none),
        ("app/bin/radvd", "radvd", following("app/bin/radvd", "Version: %s")),
        ("app/bin/ntpclient", "ntpclient", none),
        ("app/bin/brctl", "bridge-utils", none),
        ("usr/sbin/pimd", "pimd", none),
        ("lib/libuuid.so.1", "libuuid", none),
        ("usr/lib/libpcap.so.1", "libpcap", after("usr/lib/libpcap.so.1", "libpcap version")),
        *((p, "perl-xs", none) for p in ("usr/lib/perl/5.20.0/auto/Cwd/Cwd.so", "usr/lib/perl/5.20.0/auto/IO/IO.so")),
        *((p, "android-system-core", none) for p in ("sbin/adbd", "usr/bin/logcat", "usr/lib/liblog.so.0")),
        ("lib/libcap.so.2", "libcap", none),
        ("usr/lib/libffi.so.6", "libffi", none),
        ("usr/sbin/iw", "iw", none),
    ],
}

# a program component's strings and another program component's in one file: the same source tree
SIBLINGS = {frozenset({"hostapd", "wpa_supplicant"})}


@functools.cache
def scanned(name: str) -> tuple[Path, ScanResult]:
    root, _sha = extracted_root(name)
    return root, scan_root(root)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_stock_root_components_identified(name: str) -> None:
    root, result = scanned(name)
    # a file that states no version takes the root's one version of its component (EvidenceKind.ROOT)
    stated: dict[str, set[str]] = {}
    for _rel, component, oracle in EXPECTED[name]:
        if (version := oracle(root)) is not None:
            stated.setdefault(component, set()).add(version)
    wrong = []
    for rel, component, oracle in EXPECTED[name]:
        found = result.identities.get("/" + rel)
        own = found.own if found is not None else None
        expected = oracle(root)
        from_root = expected is None and len(stated.get(component, ())) == 1
        if from_root:
            expected = next(iter(stated[component]))
        got = (own.component, own.version) if own is not None else None
        if (
            got != (component, expected)
            or own is None
            or own.certainty is Certainty.INFERRED
            or from_root != any(e.kind is EvidenceKind.ROOT for e in own.evidence)
        ):
            wrong.append(f"/{rel}: expected {component} {expected or ''}, found {own.label if own else None}"
                         f" ({own.certainty.value if own else '-'})")  # fmt: skip
    userland = [m for m in result.modules if m.facts.kind is not Kind.KERNEL_MODULE]
    facts = [m for m in userland if result.licences.get(m.path) and result.licences[m.path].licence]
    share = len(facts) / len(userland)
    print(f"{name}: {len(facts)} of {len(userland)} userland modules have a licence fact ({share:.0%})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_no_module_is_two_components(name: str) -> None:
    """No file's strings match two different program components (a program is one thing; a library
    component inside it is a copy), and no file contains a copy of what it is."""
    root, result = scanned(name)
    comps = table()
    both = []
    for module in result.modules:
        if module.facts.kind is Kind.KERNEL_MODULE:
            continue
        with open(root / module.path.lstrip("/"), "rb") as fh:
            hits = match_file(fh, (root / module.path.lstrip("/")).stat().st_size)
        # past the table: project families; the vendor table's hits name no component
        signed = [comps[h.component] for h in hits if not h.vendor and 0 <= h.component < len(comps)]
        programs = frozenset(c.name for c in signed if c.kind == "program")
        if len(programs) > 1 and programs not in SIBLINGS:
            both.append(f"{module.path}: {sorted(programs)}")
        found = result.identities.get(module.path)
        if found is not None and found.own is not None:
            inside = [c.component for c in found.contains]
            if found.own.component in inside or len(inside) != len(set(inside)):
                both.append(f"{module.path}: is {found.own.component}, contains {inside}")
    assert not both, "\n".join(both)


# Every identification by a name alone (``inferred``) on the stock roots, each checked by hand against
# the file (its strings, its links, its neighbours) and the component's own sources: the component
# and the licence are right. iptables' extensions (xtables and iptables folders) are iptables by
# their folder and the libxt_/libipt_ names, and are checked by that rule instead of one by one. A
# name that the check found wrong is gone from the list, fixed where the rule was: D-Link's nsbbox
# and mrd are multi-call programs (brctl, ntpclient, vconfig; igmpproxy, mldproxy), JioFi's
# libqmi.so.1 is Qualcomm's QMI library (libqmi installs libqmi-glib), syslog-ng's libcurl.so is its
# plugin that loads libcurl.so.4, ppp's pppoe-discovery is its rp-pppoe plugin's (GPL-2.0-or-later),
# libprocps is LGPL by its own headers (OpenWrt's recipe says GPL-2.0). D-Link's libgmp.so.10.1.3, once
# listed here as GMP 6's dual licence, is GMP 5.1.3 by its own version string: LGPL-3.0-or-later
# (the dual licence began with 6.0); a signature identifies it now, with that version's licence.
HAND_CHECKED: dict[str, dict[str, tuple[str, str]]] = {
    "hilink_hlk-rm04": {
        "/bin/ser2net": ("ser2net", "GPL-2.0-or-later"),
        "/lib/ld-uClibc-0.9.28.so": ("uclibc", "LGPL-2.1-or-later"),
        "/lib/libpthread-0.9.28.so": ("uclibc", "LGPL-2.1-or-later"),
        "/lib/libuClibc-0.9.28.so": ("uclibc", "LGPL-2.1-or-later"),
    },
    "dlink_dir880l": {
        "/bin/sqlite3": ("sqlite", "blessing"),
        "/lib/ld-uClibc-0.9.32.1.so": ("uclibc", "LGPL-2.1-or-later"),
        "/lib/libpthread-0.9.32.1.so": ("uclibc", "LGPL-2.1-or-later"),
        "/usr/bin/udevstart": ("udev", "GPL-2.0-only"),
        "/usr/sbin/taskset": ("util-linux", "GPL-2.0-or-later"),
        "/usr/sbin/udevmonitor": ("udev", "GPL-2.0-only"),
    },
    "jiofi2_m2": {
        "/lib/libBrokenLocale.so.1": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libanl.so.1": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libdl.so.2": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libm.so.6": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libnsl.so.1": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libnss_compat.so.2": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libnss_dns.so.2": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libnss_files.so.2": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libpthread.so.0": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libresolv.so.2": ("glibc", "LGPL-2.1-or-later"),
        "/lib/librt.so.1": ("glibc", "LGPL-2.1-or-later"),
        "/lib/libutil.so.1": ("glibc", "LGPL-2.1-or-later"),
        "/sbin/runlevel.sysvinit": ("sysvinit", "GPL-2.0-or-later"),
        "/usr/bin/aplay": ("alsa-utils", "GPL-2.0-only"),
        "/usr/bin/dbus-launch": ("dbus", "AFL-2.1 OR GPL-2.0-or-later"),
        "/usr/bin/dbus-monitor": ("dbus", "AFL-2.1 OR GPL-2.0-or-later"),
        "/usr/bin/xmlcatalog": ("libxml2", "MIT"),
        "/usr/lib/libgmodule-2.0.so.0": ("glib", "LGPL-2.1-or-later"),
        "/usr/lib/libgps_utils_so.so.1": ("qcom-gps", "BSD-3-Clause"),
        "/usr/lib/libiptc.so.0": ("iptables", "GPL-2.0-only"),
        "/usr/lib/libloc_api_v02.so.1": ("qcom-gps", "BSD-3-Clause"),
        "/usr/lib/libloc_core.so.1": ("qcom-gps", "BSD-3-Clause"),
        "/usr/lib/libloc_pla.so.1": ("qcom-gps", "BSD-3-Clause"),
        "/usr/lib/libloc_stub.so.1": ("qcom-gps", "BSD-3-Clause"),
        "/usr/lib/tc/m_xt.so": ("iproute2", "GPL-2.0-only"),
        "/usr/sbin/logoutd": ("shadow", "BSD-3-Clause"),
        "/usr/sbin/nfnl_osf": ("iptables", "GPL-2.0-only"),
        "/usr/sbin/ubicrc32": ("mtd-utils", "GPL-2.0-or-later"),
        "/usr/sbin/wpa_passphrase": ("wpa_supplicant", "BSD-3-Clause"),
    },
    "alt_xiaomi_r4a": {
        "/lib/libsetlbf.so": ("procd", "GPL-2.0-only"),
        "/usr/bin/curl": ("curl", "curl"),
        "/usr/lib/libglog.so.0.0.0": ("glog", "BSD-3-Clause"),
        "/usr/lib/libgmodule-2.0.so.0.5800.1": ("glib", "LGPL-2.1-or-later"),
        "/usr/lib/libgtest.so.0.0.0": ("gtest", "BSD-3-Clause"),
        "/usr/lib/libgthread-2.0.so.0.5800.1": ("glib", "LGPL-2.1-or-later"),
        "/usr/lib/libhistory.so.7.0": ("readline", "GPL-3.0-or-later"),
        "/usr/lib/libiptext.so": ("iptables", "GPL-2.0-only"),
        "/usr/lib/libiptext4.so": ("iptables", "GPL-2.0-only"),
        "/usr/lib/libiptext6.so": ("iptables", "GPL-2.0-only"),
        "/usr/lib/libpcreposix.so.0.0.5": ("pcre", "BSD-3-Clause"),
        "/usr/lib/libprocps.so": ("procps-ng3", "LGPL-2.0-or-later"),
        "/usr/lib/libprocps.so.5": ("procps-ng3", "LGPL-2.0-or-later"),
        "/usr/lib/libprocps.so.5.0.0": ("procps-ng3", "LGPL-2.0-or-later"),
        "/usr/lib/libsyslog-ng-3.9.so.0.0.0": ("syslog-ng", "LGPL-2.1-or-later"),
        "/usr/lib/libthriftnb-0.9.1.so": ("thrift", "Apache-2.0"),  # Thrift's non-blocking server library
        "/usr/sbin/ipset": ("ipset", "GPL-2.0-only"),
        "/usr/sbin/odhcpd": ("odhcpd", "GPL-2.0-only"),
    },
}
XTABLES = re.compile(r"/(?:usr/)?lib/(?:xtables|iptables)/lib(?:xt|ipt|ip6t|ebt|arpt)_[\w-]+\.so")


@pytest.mark.parametrize("name", list(HAND_CHECKED))
def test_every_inferred_identification_is_hand_checked(name: str) -> None:
    _root, result = scanned(name)
    found = {}
    for path, ident in result.identities.items():
        own = ident.own
        if own is None or own.certainty is not Certainty.INFERRED:
            continue
        if XTABLES.fullmatch(path):
            assert (own.component, own.licence) == ("iptables", "GPL-2.0-only"), path
            continue
        found[path] = (own.component, own.licence)
    assert found == HAND_CHECKED[name]
