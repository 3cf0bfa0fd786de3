"""Risky DT_RPATH / DT_RUNPATH entries: where a library could come from someone else.

Each entry of an object's search path is checked once (one warning per file, tag and entry):

* ``rpath-empty``: an empty entry (``"a::b"``, a leading or trailing ``:``): glibc and uClibc
  read it as the working directory; musl's ``path_open`` skips it, so an object only musl's
  loader reads gets no warning for it;
* ``rpath-relative``: an entry that neither starts with ``/`` nor with ``$ORIGIN``: it is
  resolved from the working directory of the process, whatever that is;
* ``rpath-world-writable``: an entry into a folder anyone may write to: the temporary folders
  (``WORLD_WRITABLE``, which are tmpfs on most devices, with ``/var`` usually a link to ``/tmp``),
  or a folder of the root, or one above it, whose mode has ``o+w``;
* ``rpath-build-host``: an absolute entry that names nothing in the root and looks like a path of
  the machine the firmware was built on (``BUILD_HOST``): home folders, CI workspaces, toolchain
  and source folders. Whoever can create that folder on the device chooses the library.

``$ORIGIN`` is expanded to the folder of the file; an entry still holding another ``$`` token
is only checked for being empty or relative.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterable, Mapping

from ..errors import RootfsError
from ..model import ElfFacts, Flavour, LinkMap
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .flavours import FLAVOURS

WORLD_WRITABLE = ("/tmp", "/var", "/var/tmp", "/dev/shm")
BUILD_HOST = re.compile(r"^/(home|builds?|work|workspace|usr/src|var/lib/jenkins|opt/toolchain[^/]*)(/|$)")
_ORIGIN = re.compile(r"^\$(ORIGIN|\{ORIGIN\})(?=/|$)")


def readers(link_maps: Iterable[LinkMap]) -> dict[str, set[Flavour]]:
    """Per object path, the loaders whose link maps hold it: the ones that read its search path."""
    out: dict[str, set[Flavour]] = {}
    for link_map in link_maps:
        for path in link_map.objects:
            out.setdefault(path, set()).add(link_map.flavour)
    return out


def risky_search_paths(
    root: RootFS, objects: Iterable[ElfFacts], loaders: Mapping[str, set[Flavour]] | None = None
) -> list[Problem]:
    """Warnings for the risky DT_RPATH/DT_RUNPATH entries of ``objects``, in path order.

    ``loaders``: per object path, the loaders whose link maps hold it (the ones that read its
    search path); an object missing from it is taken to be read by any loader."""
    writable: dict[str, bool] = {}
    out: list[Problem] = []
    for facts in sorted(objects, key=lambda f: f.path):
        by = (loaders or {}).get(facts.path)
        empty_is_cwd = not by or any(FLAVOURS[f].empty_entry_is_cwd for f in by)
        newline = bool(by) and all(FLAVOURS[f].newline_separates_paths for f in by)
        for tag, raw in (("DT_RPATH", facts.rpath_raw), ("DT_RUNPATH", facts.runpath_raw)):
            if raw is None:
                continue
            seen: set[str] = set()
            for entry in re.split("[:\n]" if newline else ":", raw):
                if entry in seen:
                    continue
                seen.add(entry)
                if not entry and not empty_is_cwd:
                    continue
                found = _check(root, facts, entry, writable)
                if found is not None:
                    code, why = found
                    shown = display_path(entry) if entry else ""
                    out.append(
                        Problem(
                            display_path(facts.path),
                            Severity.WARNING,
                            f"{tag} entry {shown!r} ({display_path(raw)}): {why}",
                            code,
                        )
                    )
    return out


def _check(root: RootFS, facts: ElfFacts, entry: str, writable: dict[str, bool]) -> tuple[ProblemCode, str] | None:
    if not entry:
        why = "an empty entry: uClibc (and glibc, between colons) search the working directory"
        return ProblemCode.RPATH_EMPTY, why
    origin = _ORIGIN.match(entry)
    if not entry.startswith("/") and origin is None:
        return ProblemCode.RPATH_RELATIVE, "relative: the loader resolves it from the working directory"
    path = entry
    if origin is not None:
        path = (posixpath.dirname(facts.path) or "/") + entry[origin.end() :]
    if "$" in path:
        return None
    path = posixpath.normpath(path)
    if BUILD_HOST.match(path) and not _exists(root, path):
        return ProblemCode.RPATH_BUILD_HOST, "a path of the build machine, absent from the root"
    hit = _world_writable(root, path, writable)
    if hit is not None:
        return ProblemCode.RPATH_WORLD_WRITABLE, f"{display_path(hit)} is writable by anyone on the device"
    return None


def _exists(root: RootFS, path: str) -> bool:
    try:
        return root.resolve(path) is not None
    except RootfsError:
        return False


def _world_writable(root: RootFS, path: str, cache: dict[str, bool]) -> str | None:
    """The first folder on the way to ``path`` (``/`` first) that anyone may write to, or None."""
    current = "/"
    for part in [p for p in path.split("/") if p]:
        current = posixpath.join(current, part)
        if current in WORLD_WRITABLE:
            return current
        if current not in cache:
            cache[current] = _mode_o_w(root, current)
        if cache[current]:
            return current
    return None


def _mode_o_w(root: RootFS, path: str) -> bool:
    try:
        canonical = root.resolve(path)
    except RootfsError:
        return False
    if canonical is None:
        return False
    try:
        st = os.stat(root.host_path(canonical))
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and bool(st.st_mode & stat.S_IWOTH)
