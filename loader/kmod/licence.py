"""Which ``MODULE_LICENSE()`` strings the kernel treats as GPL-compatible: exactly the list of
``license_is_gpl_compatible()`` in include/linux/license.h (unchanged since 2.6.x but for "Dual
MPL/GPL"); any other string, or none ("unspecified" to the loader), taints the kernel as
proprietary and keeps the module from binding to GPL-only exports (kernel/module/main.c
``resolve_symbol``: ``gplok``)."""

from __future__ import annotations

GPL_COMPATIBLE = frozenset(
    {"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL"}
)


def is_gpl_compatible(licence: str | None) -> bool:
    return licence in GPL_COMPATIBLE
