"""The loader's search-path configuration files read statically: ld.so.conf with its
``include`` globs (expanded inside the root, as glibc's ldconfig ``parse_conf`` does) and musl's
``/etc/ld-musl-{arch}.path`` (musl ``ldso/dynlink.c`` ``path_open``).

glibc and uClibc read ld.so.conf only through ldconfig, which builds ld.so.cache from it
(``ld_cache``): a root without a cache is taken as one where ldconfig runs at boot. musl's loader
reads its path file itself, the first time it searches the system directories. Each file is
bounded in size and includes in depth, so a hostile root cannot make the reader loop or read
without end.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterator

from ..errors import RootfsError
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path

_GLOB_MAGIC = re.compile(r"[*?\[]")


def _exists(root: RootFS, path: str) -> bool:
    try:
        return root.resolve(path) is not None
    except RootfsError:
        return False


def _glob(root: RootFS, pattern: str) -> list[str]:
    """glob(3) without flags, inside the root: no leading-dot matches, results sorted bytewise."""
    parts = [p for p in pattern.split("/") if p]
    paths = ["/"]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        found: list[str] = []
        for base in paths:
            names = [part]
            if _GLOB_MAGIC.search(part):
                part_glob = part.replace("[^", "[!")
                names = [
                    n
                    for n in root.listdir(base)
                    if fnmatch.fnmatchcase(n, part_glob) and (part.startswith(".") or not n.startswith("."))
                ]
            for name in names:
                candidate = posixpath.join(base, name)
                if _exists(root, candidate) if last else root.is_dir(candidate):
                    found.append(candidate)
        paths = found
    return sorted(paths, key=os.fsencode) if parts else []


MAX_CONF_SIZE = 1 << 20  # ld.so.conf and its includes, musl's path file: a few hundred bytes in practice
MAX_INCLUDE_DEPTH = 64  # levels of ld.so.conf ``include``; real configurations use one or two


def _conf_items(root: RootFS, path: str, data: bytes) -> Iterator[tuple[bool, str]]:
    """The items of one configuration file in order: (True, included file) or (False, directory)."""
    for raw in data.split(b"\n"):
        line = raw.split(b"#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(b"include") and line[7:8] in (b" ", b"\t"):
            for pattern in (os.fsdecode(p) for p in line[8:].split()):
                if not pattern.startswith("/"):
                    pattern = posixpath.join(posixpath.dirname(path) or "/", pattern)
                for included in _glob(root, pattern):
                    yield True, included
        elif line[:5].lower() == b"hwcap" and line[5:6] in (b" ", b"\t"):
            continue
        else:
            for word in re.split(rb"[\s,:]+", line):
                word = word.split(b"=", 1)[0].rstrip().rstrip(b"/")  # "DIR=libc5": glibc < 2.32
                entry = os.fsdecode(word)
                if entry:
                    yield False, entry


def _parse_conf(root: RootFS, path: str, dirs: list[str], problems: list[Problem] | None) -> None:
    """Read ``path`` and its includes depth first, as glibc's recursive ``parse_conf``, with a stack."""
    visited: set[str] = set()
    first: dict[ProblemCode, tuple[Problem, str, list[int]]] = {}  # code -> problem, message, count

    def warn(code: ProblemCode, where: str, message: str) -> None:
        if code not in first:
            first[code] = (Problem(display_path(where), Severity.WARNING, message, code), message, [1])
            if problems is not None:
                problems.append(first[code][0])
            return
        problem, message, count = first[code]
        count[0] += 1
        problem.message = f"{message} (and {count[0] - 1} more)"

    stack: list[tuple[str, Iterator[tuple[bool, str]]]] = []  # canonical path, its remaining items
    reading: set[str] = set()  # canonical paths on the stack

    def enter(name: str, includer: str | None) -> None:
        try:
            canonical = root.resolve(name)
        except RootfsError:
            return
        if canonical is None:
            return
        if canonical in reading:
            warn(
                ProblemCode.INCLUDE_LOOP,
                includer or name,
                f"include loop: includes {display_path(name)}, which is being read; not read again",
            )
            return
        if canonical in visited:  # visiting a file twice adds nothing
            return
        if len(stack) > MAX_INCLUDE_DEPTH:
            warn(
                ProblemCode.DEPTH_LIMIT,
                includer or name,
                f"includes nested more than {MAX_INCLUDE_DEPTH} levels deep: {display_path(name)} not read",
            )
            return
        visited.add(canonical)
        data = root.read_bytes(name, MAX_CONF_SIZE + 1)
        if data is None:
            return
        if len(data) > MAX_CONF_SIZE:
            warn(ProblemCode.CONFIG_TOO_LARGE, name, f"larger than {MAX_CONF_SIZE >> 20} MiB: not read")
            return
        stack.append((canonical, _conf_items(root, name, data)))
        reading.add(canonical)

    enter(path, None)
    while stack:
        canonical, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            reading.discard(canonical)
        elif item[0]:
            enter(item[1], canonical)
        elif item[1] not in dirs:
            dirs.append(item[1])


def read_ld_so_conf(root: RootFS, path: str = "/etc/ld.so.conf", problems: list[Problem] | None = None) -> list[str]:
    """Directories listed by ld.so.conf, in order, ``include`` globs expanded inside the root.

    Per line: ``#`` starts a comment; ``include PATTERN...`` reads the matching files (a relative
    pattern counts from the including file's directory; matches sorted bytewise, as glob(3) in
    the C locale); ``hwcap ...`` is ignored; anything else is directories separated by blanks,
    commas or colons (uClibc/libc5 ldconfig; glibc takes the whole line, which differs only for
    names holding those characters), a legacy ``=TYPE`` suffix and trailing slashes removed,
    ``/`` alone dropped as glibc does.  Duplicates keep the first; a file is read at most once.
    Directories are not checked for existence.  A missing file gives ``[]``.

    glibc's ldconfig follows includes recursively with no check but the file system's; here an
    include of a file being read (a loop) and includes nested more than ``MAX_INCLUDE_DEPTH``
    levels are not read, each reason one warning in ``problems`` (``include-loop``,
    ``depth-limit``: the first place found, and a count).
    """
    dirs: list[str] = []
    _parse_conf(root, path, dirs, problems)
    return dirs


def read_musl_path_file(root: RootFS, arch: str, prefix: str = "") -> list[str] | None:
    """musl's ``/etc/ld-musl-{arch}.path``: entries split on newlines and colons, None if absent.

    As in musl's ``path_open``, nothing is trimmed and the text ends at the first NUL; a file that
    exists but cannot be read yields ``[]`` (musl then searches no system directory). ``prefix``
    is the folder above the loader's own folder (musl reads ``PREFIX/etc/...``; "" for /lib).
    """
    path = f"{prefix.rstrip('/')}/etc/ld-musl-{arch}.path"
    if not _exists(root, path):
        return None
    data = root.read_bytes(path, MAX_CONF_SIZE)  # musl reads it whole; no real one comes near the cap
    if data is None:
        return []
    return [os.fsdecode(p) for p in re.split(rb"[:\n]", data.split(b"\0", 1)[0]) if p]
