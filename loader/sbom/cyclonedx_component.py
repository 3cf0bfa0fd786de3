"""One module of the firmware as a CycloneDX 1.6 component (docs/sbom.md, "CycloneDX 1.6").

A component per ELF module: its path is its ``bom-ref`` (unique in the firmware, the same in every
run and store), its file name its ``name``; SHA-256 and SHA-1 hashes; the licence fact as an SPDX id, an SPDX
expression or, when it is neither, a name, acknowledged ``declared`` or ``concluded`` as the
fact's certainty says; a purl when the firmware's own dpkg or opkg data gives the package.
``evidence.occurrences`` holds where the component is (its path, its aliases) and, for each
``used`` or ``hidden`` edge to it, one occurrence per symbol bound there, located at the module
that binds it. Properties say what the standard cannot: each edge out of the module by status,
blint's ``internal:`` summaries, dlopen edges with their certainty, kernel-module links.
"""

from __future__ import annotations

import enum
import functools
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cyclonedx.spdx import is_expression, is_supported_id
from packageurl import PackageURL

from ..licences.facts import NO_FACT
from ..licences.identified import IdentifiedSource, NamedSource
from ..model import Certainty, Kind, Status
from ..report.inventory import ModuleFile
from .cyclonedx_identity import contained_component, identity_evidence

Entry = dict[str, Any]
# the component type of each module kind; the exact kind is also the property linkgraph:kind
COMPONENT_TYPES: dict[str, str] = {
    Kind.EXECUTABLE: "application",
    Kind.LIBRARY: "library",
    Kind.KERNEL_MODULE: "device-driver",
    Kind.OTHER_ELF: "file",
}
# blint's names for the summaries of a module's edges (its "link hygiene" and "link closure")
BLINT_NAMES = {
    Status.DECLARED_UNUSED: "internal:unused_dependencies",
    Status.HIDDEN: "internal:undeclared_dependencies",
    Status.MISSING: "internal:missing_dependencies",
}
# the edges a module depends on at run time: dependsOn, and symbols as occurrences on the target
BINDING_STATUSES = (Status.USED, Status.HIDDEN)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")


class PackageManager(enum.StrEnum):
    """The firmware package databases whose packages have a purl type."""

    DPKG = "dpkg"
    OPKG = "opkg"
    BUILDROOT = "buildroot"  # a manifest: pkg:generic (purl has no type for them)
    YOCTO = "yocto"


# what the first part of a licence source ("opkg:/usr/lib/opkg/status (package busybox)") says
# of where the module's package came from
_MANAGER_OF_SOURCE = {
    "dpkg": PackageManager.DPKG,
    "dpkg-copyright": PackageManager.DPKG,
    "opkg": PackageManager.OPKG,
    "buildroot": PackageManager.BUILDROOT,
    "yocto": PackageManager.YOCTO,
}
# sources that name no package of their own: a module's package is then its package database's
_NO_PACKAGE_OF_THEIR_OWN = {"knowledge-base", "modinfo", IdentifiedSource.NAME, NamedSource.NAME, NO_FACT}


def _source_kind(source: str) -> str:
    """The source's name: "opkg" of "opkg:/usr/lib/opkg/status (package busybox)", and of "no
    licence fact found; opkg:... no License field" (a package database that had no licence)."""
    rest = source.removeprefix(NO_FACT).removeprefix(";").strip()
    return rest.split(":", 1)[0] if rest else NO_FACT


def firmware_manager(sources: Iterable[str]) -> PackageManager | None:
    """The one package database the firmware's licence sources name, None for none or several."""
    found = {_MANAGER_OF_SOURCE[k] for k in map(_source_kind, sources) if k in _MANAGER_OF_SOURCE}
    return found.pop() if len(found) == 1 else None


def purl(file: ModuleFile, manager: PackageManager | None) -> str | None:
    """``pkg:deb/debian/NAME@VERSION``, ``pkg:opkg/NAME@VERSION`` or (a Buildroot or Yocto
    manifest) ``pkg:generic/NAME@VERSION`` of the module's package, when its licence source or (for
    a source without packages) the firmware's one database says which."""
    if not file.package:
        return None
    kind = _source_kind(file.licence_source)
    found = _MANAGER_OF_SOURCE.get(kind) or (manager if kind in _NO_PACKAGE_OF_THEIR_OWN else None)
    if found is None:
        return None
    name, _, version = file.package.partition(" ")
    if found is PackageManager.DPKG:
        return PackageURL("deb", "debian", name, version or None).to_string()
    if found is PackageManager.OPKG:
        return PackageURL("opkg", None, name, version or None).to_string()
    return PackageURL("generic", None, name, version or None).to_string()


@functools.lru_cache(maxsize=4096)
def licences(licence: str | None, certainty: str | None) -> tuple[Entry, ...]:
    """The ``licenses`` of a licence fact: an SPDX id the schema knows, else a valid SPDX
    expression, else the text as a name."""
    if not licence:
        return ()
    acknowledgement = "declared" if certainty == Certainty.DECLARED else "concluded"
    if is_supported_id(licence):
        return ({"license": {"id": licence, "acknowledgement": acknowledgement}},)
    if is_expression(licence):
        return ({"expression": licence, "acknowledgement": acknowledgement},)
    return ({"license": {"name": licence, "acknowledgement": acknowledgement}},)


def component(
    file: ModuleFile,
    manager: PackageManager | None,
    outgoing: Sequence[Entry],
    incoming: Sequence[Entry],
    dlopen: Sequence[tuple[str, str]],
    kernel: Sequence[tuple[str, str]],
    identified: Entry | None = None,
) -> Entry:
    """The component of ``file``: ``outgoing``/``incoming`` its dependency edges (the report's
    entries), ``dlopen`` its (library, certainty) edges, ``kernel`` its (target, state) links,
    ``identified`` its identification (``identities.by_module``: its own and the components inside)."""
    entry: Entry = {
        "type": COMPONENT_TYPES.get(file.kind, "file"),
        "bom-ref": file.path,
        "name": posixpath.basename(file.path) or file.path,
    }
    version = file.package.partition(" ")[2] if file.package else ""
    if version:
        entry["version"] = version
    hashes = [{"alg": "SHA-256", "content": file.sha256}] if _SHA256.match(file.sha256) else []
    if file.sha1 and _SHA1.match(file.sha1):
        hashes.append({"alg": "SHA-1", "content": file.sha1})
    if hashes:
        entry["hashes"] = hashes
    found = licences(file.licence, file.licence_certainty)
    if found:
        entry["licenses"] = list(found)
    package_url = purl(file, manager)
    if package_url:
        entry["purl"] = package_url
    entry["evidence"] = {"occurrences": occurrences(file, incoming)}
    entry["properties"] = properties(file, outgoing, dlopen, kernel)
    if identified:
        _identified(entry, file.path, identified)
    return entry


def _identified(entry: Entry, path: str, found: Entry) -> None:
    """The module's identification as identity evidence (its version, purl and CPE where the
    package data gave none), and the components found inside it as nested components."""
    own = found["identity"]
    if own:
        entry["evidence"]["identity"] = identity_evidence(own)
        if own["version"]:
            entry.setdefault("version", own["version"])
        if own["cpe"]:
            entry["cpe"] = own["cpe"]
        if own["purl"]:
            entry.setdefault("purl", own["purl"])
    if found["contains"]:
        entry["components"] = [
            contained_component(path, c, licences(c["licence"], c["certainty"])) for c in found["contains"]
        ]


def occurrences(file: ModuleFile, incoming: Sequence[Entry]) -> list[Entry]:
    """Where the module is, then every symbol a used or hidden edge binds to it, at its user."""
    found: list[Entry] = [{"location": file.path}]
    found += ({"location": alias, "additionalContext": "alias"} for alias in file.aliases)
    for edge in incoming:
        if edge["status"] in BINDING_STATUSES:
            context = f"{edge['status']} dependency"
            found += ({"location": edge["from"], "symbol": s, "additionalContext": context} for s in edge["symbols"])
    return found


def properties(
    file: ModuleFile, outgoing: Sequence[Entry], dlopen: Sequence[tuple[str, str]], kernel: Sequence[tuple[str, str]]
) -> list[Entry]:
    """linkgraph's facts of the module and its edges, and blint's summaries of them."""
    found = [_prop("linkgraph:kind", file.kind)]
    if file.static:  # a statically linked executable: its libraries are inside it, it has no dependencies
        found.append(_prop("linkgraph:static", "true"))
    if file.soname:
        found.append(_prop("linkgraph:soname", file.soname))
    found += (_prop("linkgraph:alias", alias) for alias in file.aliases)
    if file.package:
        found.append(_prop("linkgraph:package", file.package))
    found.append(_prop("linkgraph:licence_class", file.licence_class))
    found.append(_prop("linkgraph:licence_source", file.licence_source))
    if file.origin:  # vendor code: whose bytes show a vendor SDK or the device maker (never a licence)
        found.append(_prop("linkgraph:origin", file.origin))
    for edge in outgoing:  # "SONAME -> PATH", or the SONAME of a missing library: one value per edge
        target = f"{edge['soname']} -> {edge['to']}" if edge["to"] else edge["soname"]
        found.append(_prop(f"linkgraph:dependency:{edge['status']}", target))
    for status, name in BLINT_NAMES.items():
        sonames = _sonames(outgoing, status)
        if sonames:
            found.append(_prop(name, ", ".join(sonames)))
    found += (_prop(f"linkgraph:dlopen:{certainty}", to) for to, certainty in dlopen)
    found += (_prop(f"linkgraph:kernel_link:{state}", target) for target, state in kernel)
    return found


def _sonames(edges: Iterable[Entry], status: Status) -> list[str]:
    """The names the module's edges of one status are known by, each once, in order."""
    return list(dict.fromkeys(e["soname"] for e in edges if e["status"] == status))


def _prop(name: str, value: str) -> Entry:
    return {"name": name, "value": value}


def depends_on(outgoing: Sequence[Entry]) -> list[str]:
    """The components a module's used and hidden edges lead to, each once."""
    return list(dict.fromkeys(e["to"] for e in outgoing if e["status"] in BINDING_STATUSES and e["to"]))


def edges_by_module(entries: Iterable[Entry]) -> tuple[Mapping[str, list[Entry]], Mapping[str, list[Entry]]]:
    """The report's dependency entries by the module they leave and the module they reach."""
    outgoing: dict[str, list[Entry]] = {}
    incoming: dict[str, list[Entry]] = {}
    for entry in entries:
        outgoing.setdefault(entry["from"], []).append(entry)
        if entry["to"]:
            incoming.setdefault(entry["to"], []).append(entry)
    return outgoing, incoming
