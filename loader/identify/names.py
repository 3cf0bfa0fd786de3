"""The name table (``data/names.yaml``, made by ``tools/harvest_names.py`` from OpenWrt's and
Buildroot's package recipes and Debian's packages): a file name some package installs -> the
component, and its licence. A name alone is an ``inferred`` identification; names several
components with different licences share, and names on the table's ``generic`` list, identify
nothing (a vendor's ``httpd`` is not lighttpd).

A component whose source lists licences of different parts ("GPL-2.0 LGPL-2.1") gives a library
its one LGPL part and a program its one GPL part (``licences.packages.part_for``, as for opkg's
lists), and says so in the evidence; otherwise the name identifies nothing.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass
from fnmatch import translate

from ..data_files import load_yaml
from ..licences.packages import part_for
from ..model import Certainty, Kind, Module
from .model import Evidence, EvidenceKind, Identification
from .project_table import project_named
from .table import components as signatures
from .table import ids_of

# packaging names, never a component: OpenWrt's "toolchain" ships the C library's and GCC's runtime
# (libpthread, libgcc_s, libstdc++: uClibc's, musl's or glibc's, GCC's), "gettext-full" a gettext
# build whose libintl name uClibc's stub shares
PACKAGING = frozenset({"toolchain", "gettext-full"})
# the C library components of the name table
LIBC_COMPONENTS = frozenset({"glibc", "uclibc", "musl"})
# a C library's own soname, in a module's DT_NEEDED or as its soname (libc.so.0: uClibc and
# uClibc-ng; musl's libc.so), and the component it is
LIBC_SONAMES = {"libc.so.6": "glibc", "libc.so.0": "uclibc", "libc.so.1": "uclibc", "libc.so": "musl"}


def own_libc(module: Module) -> str | None:
    """The C library (its component) a module is built with, as its own dynamic section says: the
    libc it loads (or is); None when it says nothing (a static program, a loader)."""
    names = [*module.facts.needed, *([module.facts.soname] if module.facts.soname else [])]
    found = {LIBC_SONAMES[n] for n in names if n in LIBC_SONAMES}
    found |= {"musl" for n in names if n.startswith("libc.musl-")}
    return found.pop() if len(found) == 1 else None


@dataclass(frozen=True, slots=True)
class Named:
    component: str
    licence: str | None
    parts: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NameTable:
    exact: dict[str, tuple[Named, ...]]
    globs: dict[str, list[tuple[re.Pattern[str], tuple[Named, ...]]]]  # by the literal text before the first *
    generic: frozenset[str]
    components: dict[str, Named]
    libraries: dict[str, tuple[str, ...]]  # component -> the library names (lib*.so*) it installs

    def installs_library(self, component: str, name: str) -> bool | None:
        """Whether ``component`` installs a library called ``name``; None when the table knows
        no library of it."""
        known = self.libraries.get(component)
        if not known:
            return None
        return any(re.fullmatch(translate(glob), name) for glob in known)

    def lookup(self, name: str) -> tuple[Named, ...]:
        if name in self.generic:
            return ()
        found = self.exact.get(name)
        if found:
            return found
        for end in range(len(name), 0, -1):
            for pattern, named in self.globs.get(name[:end], ()):
                if pattern.fullmatch(name):
                    return named
        return ()


@functools.cache
def name_table() -> NameTable:
    data = load_yaml("linkgraph.loader.identify", "names.yaml")
    comps = {
        name: Named(name, c.get("licence"), tuple(c.get("parts") or ()), tuple(c.get("sources") or ()))
        for name, c in data["components"].items()
    }
    exact: dict[str, tuple[Named, ...]] = {}
    globs: dict[str, list[tuple[re.Pattern[str], tuple[Named, ...]]]] = {}
    for name, owners in data["names"].items():
        named = tuple(comps[c] for c in owners if c in comps)
        if len({n.licence for n in named}) != 1:  # several licences: the name does not tell which
            continue
        if "*" in name or "?" in name or "[" in name:
            prefix = re.split(r"[*?\[]", name, maxsplit=1)[0]
            globs.setdefault(prefix, []).append((re.compile(translate(name)), named))
        else:
            exact[name] = named
    libraries: dict[str, list[str]] = {}
    for name, owners in data["names"].items():
        if name.startswith("lib") and ".so" in name:
            for owner in owners:
                libraries.setdefault(owner, []).append(name)
    libs = {c: tuple(n) for c, n in libraries.items()}
    return NameTable(exact, globs, frozenset(data.get("generic") or ()), comps, libs)


def licence_of_component(name: str, kind: Kind) -> tuple[Named, str | None, str | None] | None:
    """The table's component ``name`` (a project a file names itself), the licence of a ``kind``
    file's part of it and a note when the component lists parts; None when the table lacks it."""
    named = name_table().components.get(name)
    return None if named is None else (named, *_part(named, kind))


def _part(named: Named, kind: Kind) -> tuple[str | None, str | None]:
    """The licence of the module's part, and a note when the component lists parts."""
    if len(named.parts) < 2:
        return named.licence, None
    chosen = part_for(kind, named.parts)
    listed = ", ".join(named.parts)
    if chosen is None:
        return None, None
    return chosen, f"{named.component} lists licences of its parts ({listed}): {chosen} for a {kind.value}"


def identify_by_name(module: Module, names: list[str]) -> Identification | None:
    """The component a name of ``module`` is installed by, if the table knows one for sure."""
    table = name_table()
    for name in names:
        found = table.lookup(name)
        if not found:
            continue
        named = found[0]
        if named.component in PACKAGING:
            return None
        libc = own_libc(module)
        if named.component in LIBC_COMPONENTS and libc not in (None, named.component):
            # the name of another C library's file (uClibc's libpthread-0.9.30.so is no glibc)
            named = name_table().components.get(libc or named.component, named)
            evidence_libc = f"its C library: {', '.join(module.facts.needed) or module.facts.soname}"
        else:
            evidence_libc = None
        licence, note = _part(named, module.facts.kind)
        checked = project_named(named.component)  # a project's own sources before a package's word
        if checked is not None and checked.licence_for(module.facts.kind) is not None:
            licence, note = checked.licence_for(module.facts.kind), f"licence: {checked.source}"
        version, licence = _versioned(named.component, module, licence)
        if licence is None:  # the table knows the component, not its licence: nothing to go by
            return None
        where = "; ".join(named.sources[:3])
        evidence = [Evidence(EvidenceKind.NAME, f"{name}: installed by {named.component} ({where})")]
        if evidence_libc:
            evidence = [Evidence(EvidenceKind.NAME, f"{name}: a {named.component} library ({evidence_libc})")]
        if note:
            evidence.append(Evidence(EvidenceKind.NAME, note))
        if version is not None:
            evidence.append(Evidence(EvidenceKind.NAME, f"version {version} from the soname it is or loads"))
        purl, cpe = ids_of(named.component, version)
        return Identification(
            named.component, version, licence, Certainty.INFERRED, tuple(evidence), "name table", purl=purl, cpe=cpe
        )
    return None


_SONAME_VERSION = re.compile(r".*\.so\.(\d+\.\d+(?:\.\d+)*[a-z]?)")


def _versioned(component: str, module: Module, licence: str | None) -> tuple[str | None, str | None]:
    """A component whose licence changed with its version (the signature table's licence ranges:
    OpenSSL is Apache-2.0 from 3.0, its own licence before) takes the version of a soname of it the
    module is or loads (``libcrypto.so.1.0.2``), and the licence of that version; without one its
    licence is unknown (the name table's is the latest release's)."""
    comp = next((c for c in signatures() if c.name == component and c.by_version), None)
    if comp is None:
        return None, licence
    names = [module.facts.soname or "", *module.facts.needed, posixpath.basename(module.path)]
    for name in names:
        found = _SONAME_VERSION.fullmatch(name)
        if found is not None and comp.named([name]):
            return found.group(1), comp.licence_of(found.group(1))
    return None, None
