"""The name table: what each source observed about a component, merged into one entry per component.

When sources give a component different licences, the more specific one wins: Debian's (the
copyright paragraph of the installed files themselves) over Buildroot's (licences per part of the
source) over OpenWrt's (often a bare family), and within one source the reading naming more
licences; every source's reading is kept under ``conflicts``. A name installed by several components is ambiguous;
it is *generic* (too common to identify alone) when those components' licences differ (unless one
of them is the name's namesake: ``busybox`` stays busybox's though a fork installs one too) or when
it is on the hand-kept list below.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from linkgraph.loader.licences.manifest import strip_annotations
from linkgraph.loader.licences.spdx import normalise

# names vendors give their own programs; a match on one of these alone identifies nothing
HAND_GENERIC = frozenset([
    "rc", "init", "login", "httpd", "upnpd", "cli", "web", "webs", "main", "sh", "daemon", "server", "client",
    "agent", "app", "test", "tests", "monitor", "core.so", "ssl.so", "lib.so", "util", "utils", "tool", "tools",
    "cgi", "goahead", "dhcpc", "dhcpd",
    # unrelated projects install these: Buildroot's docker is a tray-docking app, not the container
    # engine; U-Boot's tools/env and libubootenv both install fw_printenv and fw_setenv
    "docker", "fw_printenv", "fw_setenv",
    # module names any scripting language's extensions use (lua-eco's; CPython's lib-dynload has
    # time.so and termios.so), and a vendor's speedtest is not speedtestcpp
    "base64.so", "dns.so", "file.so", "genl.so", "log.so", "md5.so", "nl.so", "nl80211.so", "rtnl.so",
    "sha1.so", "sha256.so", "shared.so", "socket.so", "ssh.so", "sync.so", "sys.so", "termios.so", "time.so",
    "speedtest",
    # a vendor's logger is called logd as often as ubox's; libxcrypt and glibc (before 2.38) both
    # install libcrypt.so.1
    "logd", "libcrypt.so.1",
    # ppp installs its rp-pppoe plugin's pppoe-discovery (GPL-2.0-or-later, not ppp's licence)
    "pppoe-discovery",
])  # fmt: skip
# install globs wider than what the package installs: OpenWrt's libqmi copies libqmi*.so.*, which
# also names Qualcomm's own QMI libraries (libqmi_cci, libqmi_csi, ...); it installs libqmi-glib
NARROWED = {"libqmi*.so.*": "libqmi-glib.so.*"}
# Debian source package -> the component name OpenWrt and Buildroot use
ALIASES = {
    "gnutls28": "gnutls", "glib2.0": "glib2", "libnl3": "libnl", "xz-utils": "xz", "sqlite3": "sqlite",
    "libusb-1.0": "libusb", "cyrus-sasl2": "cyrus-sasl", "wpa": "hostapd", "libzstd": "zstd", "gcc-12": "gcc",
    "libtasn1-6": "libtasn1", "stunnel4": "stunnel",
}  # fmt: skip
PRIORITY = {"debian": 3, "buildroot": 2, "openwrt": 1, "openwrt-packages": 1}


def component_key(name: str) -> str:
    key = name.strip().lower()
    return ALIASES.get(key, key)


@dataclass(slots=True)
class Observation:
    source: str  # a key of PRIORITY
    ref: str  # "openwrt-packages:net/curl/Makefile", "debian:libuuid1 2.38.1-5"
    component: str
    version: str | None
    licence: str | None  # as the source writes it
    parts: list[str] = field(default_factory=list)  # the source's own parts of that text
    names: set[str] = field(default_factory=set)
    part_of: str | None = None


def spdx(text: str, parts: list[str] | None = None) -> str | None:
    """A licence text as a normalised SPDX expression (Buildroot's notes dropped when they get in the way).

    With ``parts`` (Buildroot's comma-separated list) the expression is every part's, ANDed, when
    each part reads on its own: ``A or B, C`` is ``(A OR B) AND C``, never ``A OR (B AND C)``.
    """
    if parts and len(parts) > 1:
        each = [spdx(p) for p in parts]
        if all(each):
            return normalise(" AND ".join(f"({e})" for e in each)).expression
    found = normalise(text).expression
    if found is None and "(" in text:
        found = normalise(strip_annotations(text)).expression
    return found


def _weight(expression: str) -> int:
    return len(set(re.findall(r"[A-Za-z0-9.+\-]+", expression)) - {"AND", "OR", "WITH"})


@dataclass(slots=True)
class Table:
    observations: list[Observation] = field(default_factory=list)

    def components(self) -> dict[str, dict[str, Any]]:
        grouped: dict[str, list[Observation]] = defaultdict(list)
        for obs in self.observations:
            grouped[obs.component].append(obs)
        return {key: _merge(group) for key, group in sorted(grouped.items())}

    def names(self) -> dict[str, list[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for obs in self.observations:
            for name in obs.names:
                found[NARROWED.get(name, name)].add(obs.component)
        return {name: sorted(found[name]) for name in sorted(found)}

    def generic(self, components: dict[str, dict[str, Any]], names: dict[str, list[str]]) -> list[str]:
        out = set(HAND_GENERIC & names.keys())
        for name, owners in names.items():
            namesakes = [c for c in owners if c == name]
            if len({components[c]["licence"] for c in owners}) > 1 and len(namesakes) != 1:
                out.add(name)
        return sorted(out)


def _merge(group: list[Observation]) -> dict[str, Any]:
    readings = [
        (obs, spdx(obs.licence, obs.parts if obs.source == "buildroot" else None)) for obs in group if obs.licence
    ]
    parsed = [(obs, expr) for obs, expr in readings if expr is not None]
    best = max(parsed, key=lambda p: (PRIORITY[p[0].source], _weight(p[1])), default=None)
    chosen = best[0] if best else max(group, key=lambda o: PRIORITY[o.source])
    entry: dict[str, Any] = {"licence": best[1] if best else None}
    parts = [spdx(p) for p in chosen.parts]
    if len(chosen.parts) > 1 and all(parts):
        entry["parts"] = parts
        entry["part_text"] = chosen.parts
    entry["version"] = chosen.version
    if part_of := next((o.part_of for o in group if o.part_of), None):
        entry["part_of"] = part_of
    entry["sources"] = sorted({o.ref for o in group})
    if len({expr for _, expr in readings}) > 1:
        entry["conflicts"] = sorted({f"{obs.ref}: {expr or obs.licence}" for obs, expr in readings})
    unparsed = sorted({obs.licence for obs, expr in readings if expr is None and obs.licence})
    if unparsed:
        entry["unparsed_licences"] = unparsed
    return entry
