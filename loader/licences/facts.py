"""One licence fact per module, from the sources in order of precedence (docs/licences.md).

1. the user's overrides (``--licences FILE``)                              declared
2. the firmware's package metadata:
   a. the machine-readable (DEP-5) copyright file of the file's dpkg package   declared
   b. the ``License`` field of its dpkg or opkg package                     declared
   c. a Buildroot or Yocto licence manifest entry for its package           declared (named like
      the file) or inferred (found through the component's usual package names)
3. a kernel module's ``.modinfo`` ``license=``                              declared
4. the identification stage (``loader.identify``): the file's own licence
   statement, or a component whose signature matched                       declared / identified
5. a free-text Debian copyright file that states one licence plainly        inferred
6. linkgraph's knowledge base of well-known components                      inferred
7. the name table: a file name a well-known package installs              inferred

The first source with a licence decides. Sources that know the file but not its licence (a
package without a License field, a string that is no SPDX expression) do not stop the search;
when nothing has a licence the fact stays unknown and its source says why. ``package`` is the
file's dpkg/opkg package whatever decided the licence (or the override's or manifest's).
"""

from __future__ import annotations

from typing import Any

from ..model import Flavour, LicenceFact, Module
from ..problems import Problem
from ..rootfs import RootFS
from .base import Candidate, Context, LicenceSource
from .buildroot import BuildrootManifest
from .copyright import DebianCopyright, DebianCopyrightText
from .dpkg import DpkgDatabase
from .identified import IdentifiedSource, NamedSource
from .knowledge import KnowledgeBase
from .modinfo import Modinfo
from .opkg import OpkgDatabase
from .overrides import Overrides, OverrideSource
from .packages import PackageField
from .yocto import YoctoManifest

NO_FACT = "no licence fact found"

# Package databases that map files to packages, the first that owns a file wins.
DATABASES = (DpkgDatabase, OpkgDatabase)

# Licence sources, highest precedence first.
SOURCES: tuple[type[LicenceSource], ...] = (
    OverrideSource,
    DebianCopyright,
    PackageField,
    BuildrootManifest,
    YoctoManifest,
    Modinfo,
    IdentifiedSource,
    DebianCopyrightText,
    KnowledgeBase,
    NamedSource,
)


def licence_facts(
    root: RootFS,
    modules: list[Module],
    problems: list[Problem],
    overrides: Overrides | None = None,
    flavour: Flavour | None = None,
    identities: dict[str, Any] | None = None,
) -> dict[str, LicenceFact]:
    """The licence fact of every module (by path); bad metadata becomes warnings in ``problems``;
    ``identities``: the identification stage's answers (``loader.identify``), by path."""
    ctx = Context(root, modules, problems, flavour, overrides, identities=identities or {})
    for database in DATABASES:
        for path, package in database.owners(ctx).items():
            ctx.owners.setdefault(path, package)
    sources = [cls(ctx) for cls in SOURCES]
    return {m.path: decide(ctx, m, sources) for m in modules}


def decide(ctx: Context, module: Module, sources: list[LicenceSource]) -> LicenceFact:
    owner = ctx.owners.get(module.path)
    package = owner.label if owner is not None else None
    first_unknown: Candidate | None = None
    for source in sources:
        found = source.candidate(module)
        if found is None:
            continue
        if found.licence is not None:
            if found.package and (package is None or isinstance(source, OverrideSource)):
                package = found.package
            return LicenceFact(found.licence, found.source, found.certainty, package)
        first_unknown = first_unknown or found
    if first_unknown is None:
        return LicenceFact(None, NO_FACT, None, package)
    return LicenceFact(
        None, f"{NO_FACT}; {first_unknown.source}: {first_unknown.why}", None, package or first_unknown.package
    )
