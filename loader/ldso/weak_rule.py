"""The loaders whose lookup rule changed between their versions: the older rule, and which
version a root's loader behaves as (``musl_build``, ``uclibc_build`` read the version)."""

from __future__ import annotations

from ..model import Flavour
from .flavours import LoaderFlavour, Musl, UClibc


class MuslBefore1117(Musl):
    """musl 0.8.0 to 1.1.16: ``find_sym`` keeps looking after a weak definition and takes a
    later global one (``if (def.sym && weak) continue; ... if (global) break;``)."""

    weak_yields_to_later_global = True

    @property
    def key(self) -> str:
        return "musl<1.1.17"


class UClibcBefore0927(UClibc):
    """uClibc up to 0.9.26: ``_dl_find_hash`` keeps the first weak definition aside and returns
    the first global one found later; a library's global STT_NOTYPE definition is kept aside too
    (the last one wins) and beats the weak one (``uclibc_build.FIRST_DEFINITION_WINS``)."""

    weak_yields_to_later_global = True
    notype_global_yields = True

    @property
    def key(self) -> str:
        return "uclibc<0.9.27"


MUSL_BEFORE_1_1_17 = MuslBefore1117()
UCLIBC_BEFORE_0_9_27 = UClibcBefore0927()
_OLDER_WEAK_RULE: dict[Flavour, LoaderFlavour] = {f.flavour: f for f in (MUSL_BEFORE_1_1_17, UCLIBC_BEFORE_0_9_27)}


def for_loader_version(flavour: LoaderFlavour, version: tuple[int, ...] | None) -> LoaderFlavour:
    """The flavour as the device's loader of that version behaves (``version``: the one the
    loader's file states; an unstated one is taken as today's loader)."""
    if flavour.weak_rule_by_version and version is not None and version < flavour.first_definition_wins_since:
        return _OLDER_WEAK_RULE[flavour.flavour]
    return flavour
