"""The build options of a uClibc loader that change its search order, read from its file."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..model import SHN_UNDEF, STB_WEAK, ElfFacts


@dataclass(frozen=True)
class UclibcBuild:
    """What a uClibc loader was built with, as far as its search order depends on it.

    The loader exports its global variables, so its dynamic symbol table shows the options
    (``extra/Configs/Config.in``; OpenWrt's ``toolchain/uClibc/config/common`` turns
    ``LDSO_SEARCH_INTERP_PATH`` off, uClibc's default is on):

    * ``_dl_ldsopath`` exists only with ``LDSO_SEARCH_INTERP_PATH``: the folder of the
      interpreter, as PT_INTERP names it, is searched before /lib:/usr/lib;
    * ``_dl_map_cache`` exists only with ``LDSO_CACHE_SUPPORT``: /etc/ld.so.cache is read;
      without it the default list is /lib:/usr/lib:/usr/X11R6/lib;
    * uClibc-ng (loader ABI 1, ``ld-uClibc.so.1``; ``$ORIGIN`` support since 1.0.0) expands a
      leading ``$ORIGIN`` in RPATH entries; uClibc 0.9.x (``ld-uClibc.so.0``) takes RPATH
      entries literally.

    * before 0.9.33 (``ldso.c``, up to commit 02f56b3 "Do not add the ld.so at the end of the
      loaded modules list"), ``_dl_get_ready_to_run`` skips every NEEDED entry naming the loader
      and always appends the loader after the whole walk; the version is in the loader's file
      name (``ld-uClibc-0.9.32.1.so``), as uClibc installs it;
    * up to 0.9.28 (before commit 24acea547, "Fix bug 430", which brought the st_dev/st_ino check),
      ``_dl_check_if_named_library_is_loaded`` reuses a loaded module whose opened path ends in
      the NEEDED name's last component (``libc.so.N`` with N other than 0 is still searched).

    When the loader is not in the root, uClibc's defaults are assumed.
    """

    searches_interp_dir: bool = True
    cache: bool = True
    rpath_origin: bool = False
    name: str = "ld-uClibc.so.0"  # UCLIBC_LDSO: the NEEDED name that means the loader itself
    loader_always_last: bool = False
    reuse_by_basename: bool = False

    @classmethod
    def of(cls, interpreter: str | None, loader: ElfFacts | None) -> UclibcBuild:
        name = (
            (loader.soname if loader is not None and loader.soname else None)
            or posixpath.basename(interpreter or "")
            or cls.name
        )
        ng = not name.endswith(".so.0")
        version = uclibc_version(loader) or (99,)
        last, by_basename = version < (0, 9, 33), version < (0, 9, 29)
        if loader is None or not loader.symbols:
            return cls(rpath_origin=ng, name=name, loader_always_last=last, reuse_by_basename=by_basename)
        defined = {s.name for s in loader.symbols if s.shndx != SHN_UNDEF}
        return cls("_dl_ldsopath" in defined, "_dl_map_cache" in defined, ng, name, last, by_basename)


_UCLIBC_VERSION = re.compile(r"^ld-uClibc-(\d+)\.(\d+)\.(\d+)")

#: uClibc's ``_dl_find_hash`` up to 0.9.26 kept a weak definition aside (``weak_result``) and went
#: on looking for a global one, and a global ``STT_NOTYPE`` definition of a library did not end the
#: search either (``data_result``, the "nakao" hack); commit e98bb7452 (February 2004, first
#: released in 0.9.27) put the weak case under ``#if 0`` and dropped ``data_result``: from then on
#: the first definition wins whatever its binding, as in every later uClibc and uClibc-ng.
FIRST_DEFINITION_WINS = (0, 9, 27)


def uclibc_version(loader: ElfFacts | None) -> tuple[int, ...] | None:
    """The version of a uClibc loader as its file name states it (uClibc installs it as
    ``ld-uClibc-0.9.26.so``, ``ld-uClibc.so.0`` being a link to it); None when the name is silent
    (the loader's bytes hold no version string: its ``VERSION`` is not compiled into ld.so)."""
    found = _UCLIBC_VERSION.match(posixpath.basename(loader.path)) if loader is not None else None
    return tuple(int(v) for v in found.groups()) if found else None


#: What a loader whose file name is silent is taken for when the ``libdl.so.0`` beside it defines
#: the loader's ``_dl_*`` functions as weak stubs: libdl up to 0.9.26 did (``foobar`` aliases,
#: "we provide these weak symbols to make the link succeed"), counting on the loader's own global
#: definitions to win; from 0.9.27 it only references them.
WEAK_STUBS_LIBDL = (0, 9, 26)


def loader_version(loader: ElfFacts | None, libdl: ElfFacts | None) -> tuple[int, ...] | None:
    """The uClibc version a loader behaves as: its file name's, else 0.9.26 or older when the
    libdl beside it defines weak ``_dl_find_hash`` stubs, else unknown (None)."""
    version = uclibc_version(loader)
    if (
        version is None
        and libdl is not None
        and any(s.name == "_dl_find_hash" and s.bind == STB_WEAK and s.shndx != SHN_UNDEF for s in libdl.symbols)
    ):
        return WEAK_STUBS_LIBDL
    return version
