"""Which files of the root a string of a module may name: an exact library name, or a printf-style
pattern (``libebt_%s.so``, ``/usr/lib/foo/%s.so``) matched against the files where the loader
would look for it.

A name without ``/`` is what ``dlopen`` searches for like a DT_NEEDED entry (``host_map`` maps it);
a pattern without ``/`` is matched against the files of the folders that search visits, one with
``/`` against the files of its folder (or, when the folder itself has a conversion in it, against
the path of every library of the root). Only libraries of the module's class, byte order and
machine are candidates.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ..ldso.world import World
from ..model import ElfFacts, Kind

MAX_MATCHES = 1024  # files one pattern may name (a pattern matching more says little)
MAX_CONVERSIONS = 8
MIN_LITERAL = 3  # letters or digits a pattern's file name must fix, besides lib and .so
# a library file name, with or without a folder: libfoo.so, libfoo.so.1.2, /usr/lib/foo/bar.so
_LIBRARY = re.compile(r"(?:/?[\w.+@-]+/)*[\w+@-][\w.+@-]*\.so(?:\.\d+)*")
# one printf conversion: flags, width, precision, length, conversion
_CONVERSION = re.compile(r"%[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:hh|h|ll|l|L|q|j|z|Z|t)?([diouxXeEfFgGaAcspm%])")
_PIECES = {"d": r"-?\d+", "i": r"-?\d+", "u": r"\d+", "o": r"[0-7]+", "x": r"[0-9a-f]+", "X": r"[0-9A-F]+", "c": "."}


def is_library_name(text: str) -> bool:
    """Whether a string is the name of a library file (no conversions, no blanks)."""
    return _LIBRARY.fullmatch(text) is not None


def pattern_regex(text: str, strict: bool = True) -> re.Pattern[str] | None:
    """The regular expression a printf format naming a library matches, or None when ``text`` is
    not one (no conversion, a stray ``%``, not ending in a library suffix) or, ``strict``, when it
    fixes too little to say which library (neither a folder nor ``MIN_LITERAL`` characters of the
    file name besides ``lib`` and ``.so``)."""
    if not re.search(r"\.so(?:\.[\d%]|$)", text):
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
    return re.compile("".join(parts))


def _fits(source: ElfFacts, facts: ElfFacts | None) -> bool:
    return facts is not None and facts.kind is Kind.LIBRARY and facts.dynamic and facts.abi_key() == source.abi_key()


def files_in(world: World, folder: str, source: ElfFacts, wanted: Callable[[str], object]) -> list[str]:
    """The libraries (canonical paths) of one folder whose names ``wanted`` accepts (a true result)."""
    out: list[str] = []
    for name in world.root.listdir(folder):
        if wanted(name):
            canonical = world.canonical(posixpath.join(folder, name))
            if canonical is not None and canonical not in out and _fits(source, world.modules.get(canonical)):
                out.append(canonical)
    return out[:MAX_MATCHES]


def pattern_matches(world: World, source: ElfFacts, text: str, search_dirs: Iterable[str]) -> list[str]:
    """The libraries a printf pattern may name, in the folders the loader searches (no ``/``), in its
    own folder, or among every library of the root (a conversion in the folder part)."""
    regex = pattern_regex(text)
    if regex is None:
        return []
    if "/" not in text:
        out: list[str] = []
        for folder in search_dirs:
            out += [p for p in files_in(world, folder, source, regex.fullmatch) if p not in out]
        return out[:MAX_MATCHES]
    folder, base = text.rsplit("/", 1)
    if "%" not in folder:
        base_regex = pattern_regex(base, strict=False)
        if base_regex is None:  # the conversions are all in the folder part (none left in the name)
            return []
        return files_in(world, "/" + folder.lstrip("/") if folder else "/", source, base_regex.fullmatch)
    anchored = regex if text.startswith("/") else re.compile("(?:.*/)?" + regex.pattern)
    hits = [p for p, f in sorted(world.modules.items()) if anchored.fullmatch(p) and _fits(source, f)]
    return hits[:MAX_MATCHES]
