"""Did-you-mean: the known names closest to a mistyped one (a query name, a format, a path).

difflib's ratio (the standard library's) ranks them; a path also matches the same path made
absolute and other paths with the same file name, which a ratio over the whole path can miss
("busybox" against "/bin/busybox")."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Iterable

MAX_SUGGESTIONS = 3
CUTOFF = 0.6  # difflib's own default: "licenses" -> "licences" (0.875), "pdff" -> "pdf" (0.857)


def close_names(word: str, known: Iterable[str], n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to *n* of *known* closest to *word*, best first (case ignored for the ranking)."""
    by_lower: dict[str, str] = {}
    for name in known:
        by_lower.setdefault(name.lower(), name)
    return [by_lower[m] for m in difflib.get_close_matches(word.lower(), list(by_lower), n, CUTOFF)]


def close_paths(path: str, known: Iterable[str], n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to *n* of the paths *known* that *path* most likely meant: the same path made absolute
    (or normalised), then paths with its file name, then the closest by difflib's ratio."""
    paths = set(known)
    found: list[str] = []
    normal = posixpath.normpath("/" + path.lstrip("/")) if path.strip("/") else ""
    if normal in paths:
        found.append(normal)
    base = posixpath.basename(path.rstrip("/"))
    by_base: dict[str, list[str]] = {}
    for p in sorted(paths):
        by_base.setdefault(posixpath.basename(p), []).append(p)
    found += by_base.get(base, [])
    found += difflib.get_close_matches(path, sorted(paths), n, CUTOFF)
    found += [p for b in (close_names(base, by_base) if base else []) for p in by_base[b]]
    return [f for f in dict.fromkeys(found) if f != path][:n]


def did_you_mean(suggestions: list[str]) -> str:
    """ "; did you mean A, B or C?" for a message, or "" when there is nothing to suggest."""
    if not suggestions:
        return ""
    quoted = [repr(s) for s in suggestions]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"; did you mean {listed}?"
