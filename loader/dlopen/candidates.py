"""Which files of the root a string of a module may name: an exact library name, or a printf-style
pattern (``libebt_%s.so``, ``/usr/lib/foo/%s.so``) matched against the files where the loader
would look for it.

A name without ``/`` is what ``dlopen`` searches for like a DT_NEEDED entry (``host_map`` maps it);
a pattern without ``/`` is matched against the files of the folders that search visits, one with
``/`` against the files of its folder (or, when the folder itself has a conversion in it, against
the path of every library of the root). Only libraries of the module's class, byte order and
machine are candidates.

The patterns are matched with RE2 (google-re2), in time linear in the path: Python's ``re``
backtracks, and ``/%s/%s/%s/%s/%s/%s/%s/%sabc.so`` against a path 120 folders deep tries every way
of cutting it (billions). They match the bytes of a path (``%c`` is one byte, as printf writes it);
a folder's libraries are listed once per root (``Libraries``), not once per pattern.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import Any

import re2

from ..ldso.world import World
from ..model import ElfFacts, Kind

MAX_MATCHES = 1024  # files one pattern may name (a pattern matching more says little)
MAX_CONVERSIONS = 8
MAX_PATTERN = 4096  # PATH_MAX: a longer pattern names no file
MIN_LITERAL = 3  # letters or digits a pattern's file name must fix, besides lib and .so
# a library file name, with or without a folder: libfoo.so, libfoo.so.1.2, /usr/lib/foo/bar.so
_LIBRARY = re.compile(r"(?:/?[\w.+@-]+/)*[\w+@-][\w.+@-]*\.so(?:\.\d+)*")
# one printf conversion: flags, width, precision, length, conversion
_CONVERSION = re.compile(r"%[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:hh|h|ll|l|L|q|j|z|Z|t)?([diouxXeEfFgGaAcspm%])")
_PIECES = {
    "d": r"-?[0-9]+",
    "i": r"-?[0-9]+",
    "u": r"[0-9]+",
    "o": r"[0-7]+",
    "x": r"[0-9a-f]+",
    "X": r"[0-9A-F]+",
    "c": ".",
}
_BYTES: Any = re2.Options()
_BYTES.encoding = re2.Options.Encoding.LATIN1  # one character a byte: any byte of a path matches
_BYTES.log_errors = False  # RE2 writes to stderr (a large pattern's DFA out of memory: it goes on without)


class PathPattern:
    """A compiled pattern (an RE2 expression over the bytes of a path, the file system's own)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._regex: Any = re2.compile(_encode(source), _BYTES)

    def fullmatch(self, path: str) -> bool:
        return self._regex.fullmatch(_encode(path)) is not None


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def is_library_name(text: str) -> bool:
    """Whether a string is the name of a library file (no conversions, no blanks)."""
    return _LIBRARY.fullmatch(text) is not None


def pattern_regex(text: str, strict: bool = True) -> PathPattern | None:
    """``pattern_source``, compiled."""
    source = pattern_source(text, strict)
    return PathPattern(source) if source is not None else None


def pattern_source(text: str, strict: bool = True) -> str | None:
    """The regular expression a printf format naming a library matches, or None when ``text`` is
    not one (no conversion, a stray ``%``, not ending in a library suffix) or, ``strict``, when it
    fixes too little to say which library (neither a folder nor ``MIN_LITERAL`` characters of the
    file name besides ``lib`` and ``.so``)."""
    if len(text) > MAX_PATTERN or not re.search(r"\.so(?:\.[\d%]|$)", text):
        return None
    parts: list[str] = []
    pos = conversions = 0
    for m in _CONVERSION.finditer(text):
        literal = text[pos : m.start()]
        if "%" in literal:
            return None
        parts.append(re.escape(literal))
        conversion = m.group(1)
        if conversion == "%":
            parts.append("%")
        else:
            conversions += 1
            rest = text[m.end() :]
            parts.append(_PIECES.get(conversion, "[^/]+" if "/" not in rest else ".+"))
        pos = m.end()
    if "%" in text[pos:] or not conversions or conversions > MAX_CONVERSIONS:
        return None
    folder, _, name = text.rpartition("/")
    literal = re.sub(r"\.so(?:\.[\d.]*)?$", "", _CONVERSION.sub("", name))
    if strict and len(re.sub(r"^lib|[^A-Za-z0-9]", "", literal)) < MIN_LITERAL and (not folder or "%" in folder):
        return None  # "lib%s.so", "%.*s/%s%s.so": any library at all, no evidence of which
    parts.append(re.escape(text[pos:]))
    return "".join(parts)


def _fits(source: ElfFacts, facts: ElfFacts | None) -> bool:
    return facts is not None and facts.kind is Kind.LIBRARY and facts.dynamic and facts.abi_key() == source.abi_key()


class Libraries:
    """The libraries of a root's folders and the root's modules in path order, each listed once
    (a module's patterns all search the same folders)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._folders: dict[tuple[str, object], list[tuple[str, str]]] = {}
        self._sorted: list[tuple[str, ElfFacts]] | None = None

    def in_folder(self, folder: str, source: ElfFacts) -> list[tuple[str, str]]:
        """(name, canonical path) of each entry of ``folder`` that is a library ``source`` can load."""
        key = (folder, source.abi_key())
        if key not in self._folders:
            world = self.world
            found = []
            for name in world.root.listdir(folder):
                canonical = world.canonical(posixpath.join(folder, name))
                if canonical is not None and _fits(source, world.modules.get(canonical)):
                    found.append((name, canonical))
            self._folders[key] = found
        return self._folders[key]

    def modules(self) -> list[tuple[str, ElfFacts]]:
        if self._sorted is None:
            self._sorted = sorted(self.world.modules.items())
        return self._sorted


def files_in(libraries: Libraries, folder: str, source: ElfFacts, wanted: Callable[[str], object]) -> list[str]:
    """The libraries (canonical paths) of one folder whose names ``wanted`` accepts (a true result)."""
    out: dict[str, None] = {}
    for name, canonical in libraries.in_folder(folder, source):
        if canonical not in out and wanted(name):
            out[canonical] = None
            if len(out) == MAX_MATCHES:
                break
    return list(out)


def pattern_matches(libraries: Libraries, source: ElfFacts, text: str, search_dirs: Iterable[str]) -> list[str]:
    """The libraries a printf pattern may name, in the folders the loader searches (no ``/``), in its
    own folder, or among every library of the root (a conversion in the folder part)."""
    regex = pattern_regex(text)
    if regex is None:
        return []
    if "/" not in text:
        out: dict[str, None] = {}
        for folder in search_dirs:
            out.update(dict.fromkeys(files_in(libraries, folder, source, regex.fullmatch)))
            if len(out) >= MAX_MATCHES:
                break
        return list(out)[:MAX_MATCHES]
    folder, base = text.rsplit("/", 1)
    if "%" not in folder:
        base_regex = pattern_regex(base, strict=False)
        if base_regex is None:  # the conversions are all in the folder part (none left in the name)
            return []
        return files_in(libraries, "/" + folder.lstrip("/") if folder else "/", source, base_regex.fullmatch)
    anchored = regex if text.startswith("/") else PathPattern("(?:.*/)?" + regex.source)
    hits: list[str] = []
    for path, facts in libraries.modules():
        if _fits(source, facts) and anchored.fullmatch(path):
            hits.append(path)
            if len(hits) == MAX_MATCHES:
                break
    return hits
