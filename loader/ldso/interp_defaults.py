"""The search directories compiled into the device's own loader, read from the loader file.

* glibc: ``elf/dl-load.c`` builds its system directories from ``SYSTEM_DIRS``, one string of
  NUL-separated absolute paths, each ending in ``/`` (``"/lib/x86_64-linux-gnu/\\0/usr/lib/...
  /\\0/lib/\\0/usr/lib/\\0"`` on Debian; ``"/lib/\\0/usr/lib/\\0"`` on a plain build). It is the list
  ``ld.so --help`` prints as "system search path". Its glibc-hwcaps subdirectories (glibc 2.33
  and later, ``elf/dl-hwcaps.c``) are named by a ``:``-separated string of the machine's
  levels in priority order (x86-64: ``"x86-64-v4:x86-64-v3:x86-64-v2"``; POWER: ``power10``,
  ``power9``; s390x: ``z16``, ``z15``, ...); which of them a CPU supports is not in the file:
  that is the user's ``--cpu`` (default: none, a baseline CPU).
* uClibc: ``_dl_load_shared_library`` ends with ``search_for_named_library(name, ...,
  UCLIBC_RUNTIME_PREFIX "lib:" UCLIBC_RUNTIME_PREFIX "usr/lib" [":" ... "usr/X11R6/lib"])``, one
  ``:``-separated string. Vendor SDKs build with a host folder as the prefix
  (``/home/USER/.../romfs/lib:...``): that device's loader searches those folders, not ``/lib``.
* musl: ``/lib:/usr/local/lib:/usr/lib`` (``ldso/dynlink.c``), fixed; nothing to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_GLIBC_DIRS = re.compile(rb"(?<![\x21-\x7e])(?:/[\x21-\x7e]*/\x00){2,}")
_UCLIBC_DIRS = re.compile(rb"(?<![\x21-\x7e])(/[\x21-\x7e]*?)lib:\1usr/lib((?::\1usr/X11R6/lib)?)\x00")
_HWCAPS = re.compile(rb"(?<![\x21-\x7e])((?:x86-64-v\d|power\d+|z\d\d)(?::(?:x86-64-v\d|power\d+|z\d\d))*)\x00")


@dataclass(frozen=True)
class CompiledDefaults:
    """The default directories one loader searches, and where linkgraph learnt them."""

    dirs: tuple[str, ...]
    source: str  # "interpreter PATH" or "layout of the root (no interpreter to read)"
    hwcaps: tuple[str, ...] = ()  # glibc-hwcaps subdirectories searched, in priority order
    known_hwcaps: tuple[str, ...] = field(default=(), compare=False)  # all the loader knows
    guessed: bool = False  # from the root's layout: no interpreter to read them from

    def record(self) -> dict[str, object]:
        """For the firmware's ``source`` in the report."""
        return {
            "dirs": list(self.dirs),
            "from": self.source,
            "glibc_hwcaps": list(self.hwcaps),
            "glibc_hwcaps_known": list(self.known_hwcaps),
        }


def glibc_system_dirs(loader: bytes) -> list[str] | None:
    """``SYSTEM_DIRS`` of a glibc ``ld.so`` (without the trailing slashes), None if not found."""
    for found in _GLIBC_DIRS.finditer(loader):
        dirs = [d.decode("ascii").rstrip("/") for d in found.group().split(b"\0") if d]
        if any("lib" in d for d in dirs):
            return dirs
    return None


def glibc_hwcaps(loader: bytes) -> list[str]:
    """The glibc-hwcaps subdirectory names a glibc ``ld.so`` knows, in priority order."""
    found = _HWCAPS.search(loader)
    return found.group(1).decode("ascii").split(":") if found else []


def uclibc_dirs(loader: bytes) -> list[str] | None:
    """uClibc's compiled-in library path, with its ``UCLIBC_RUNTIME_PREFIX``; None if not found."""
    found = _UCLIBC_DIRS.search(loader)
    return found.group().rstrip(b"\0").decode("ascii").split(":") if found else None


def supported_hwcaps(known: list[str], cpu: tuple[str, ...]) -> tuple[str, ...]:
    """The subdirectories searched for a CPU that supports the levels ``cpu`` names: a level
    implies the ones after it in the loader's priority order (x86-64-v3 implies x86-64-v2)."""
    for i, name in enumerate(known):
        if name in cpu:
            return tuple(known[i:])
    return ()
