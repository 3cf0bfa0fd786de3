"""Licence names as firmware metadata writes them, turned into normalised SPDX expressions.

``normalise("GPLv2 | BSD-3c")`` gives ``GPL-2.0-only OR BSD-3-Clause``. The free-text names come
from ``data/names.yaml``; SPDX ids, their deprecated forms and the expression grammar from the
``license-expression`` library. Understood: ``and``/``or``/``with`` in any case, ``&`` and ``|``
(Yocto), Debian's commas (``A or B, and C`` is ``(A OR B) AND C``), blank-separated lists
(``GPL-2.0 GPL-2.0+``: as one expression every part applies, so AND; ``listed_parts`` gives the
parts of OpenWrt's lists, which name the licences of different parts of a package), ``A/B`` as a
choice when ``A/B`` is not itself a known name, and ``LicenseRef-...`` ids. Anything else gives no
expression and a reason.
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from ..data_files import load_yaml

_TOKEN = re.compile(r"\(|\)|&|\||,|[^\s()&|,]+")
_OPERATORS = {"and": "AND", "&": "AND", "or": "OR", "|": "OR", "and/or": "OR", "with": "WITH"}
_REF_ID = re.compile(r"(?:DocumentRef-[A-Za-z0-9.\-]+:)?LicenseRef-[A-Za-z0-9.\-]+")
_REF = re.compile(rf"^{_REF_ID.pattern}$")
# license-expression's "at position: N" counts in the rewritten expression (names resolved),
# not in the text the firmware holds
_POSITION = re.compile(r"\s*at position:?\s*\d+")
_OR_LATER = re.compile(r"(\S+?)\+?\s+or\s+(?:\(at your option\)\s+)?(?:any\s+)?later(?:\s+version)?", re.I)
# the same, starting at a word (a match starting inside a word has one at the word's start too)
_OR_LATER_WORD = re.compile(r"(?<!\S)" + _OR_LATER.pattern, re.I)
MAX_CHOICES = 8  # names of one "A/B/..." choice (a longer one is not read as a choice)
MAX_TEXT = 64 * 1024  # characters of one licence text read (license-expression takes ~10 us each)
MAX_DEPTH = 64  # parentheses (and Debian's commas) nested: license-expression recurses per level
_UNSTATED = {"", "NONE", "NOASSERTION", "UNKNOWN", "N/A"}


class Normalised(NamedTuple):
    """An SPDX expression, or None and why not."""

    expression: str | None
    why: str | None = None


class _Unknown(Exception):
    pass


@functools.cache
def names_data() -> dict[str, dict[str, str]]:
    """``data/names.yaml`` with its keys folded (lower case, blanks collapsed)."""
    raw: dict[str, Any] = load_yaml("linkgraph.loader.licences", "names.yaml")
    return {
        table: {fold(k): v for k, v in entries.items()} for table, entries in raw.items() if isinstance(entries, dict)
    }


@functools.cache
def ignored_package_licences() -> tuple[dict[str, str], ...]:
    """``ignored_package_licences`` of ``data/names.yaml``: metadata known not to describe its files."""
    return tuple(load_yaml("linkgraph.loader.licences", "names.yaml").get("ignored_package_licences", ()))


def _quote(text: str) -> str:
    """``'text'`` for messages: printable, and any stray surrogate shown as an escape, never raised later."""
    return "'" + text.encode("utf-8", "backslashreplace").decode("utf-8") + "'"


def or_later(text: str) -> str:
    """``_OR_LATER.sub(r"\\1+", text)`` in time linear in ``text``: the regex alone tries every
    position inside a word, each scanning to the word's end (quadratic in a long word). A match
    starts at a word, or where the previous one ended (which may be inside a word)."""
    out: list[str] = []
    pos = 0
    while True:
        found = _OR_LATER.match(text, pos) if pos else None
        found = found or _OR_LATER_WORD.search(text, pos)
        if found is None:
            out.append(text[pos:])
            return "".join(out)
        out += (text[pos : found.start()], found.group(1), "+")
        pos = found.end()


def fold(name: str) -> str:
    return " ".join(name.lower().split())


@functools.cache
def spdx_licensing() -> Any:
    """license-expression's SPDX licensing, built once (building it reads the whole licence index)."""
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


@functools.cache
def _known() -> dict[str, tuple[str, bool]]:
    """Folded SPDX key or alias -> (key, is_exception)."""
    out: dict[str, tuple[str, bool]] = {}
    for key, symbol in spdx_licensing().known_symbols.items():
        if key.startswith("LicenseRef-scancode"):
            continue  # ScanCode's own ids: not SPDX
        out.setdefault(fold(key), (key, symbol.is_exception))
        for alias in symbol.aliases:
            if not alias.startswith("LicenseRef-"):
                out.setdefault(fold(alias), (key, symbol.is_exception))
    return out


def _name(phrase: str, exception: bool) -> str | None:
    """One licence (or exception) name -> SPDX, or None if unknown."""
    folded = fold(phrase)
    table = names_data()["exceptions" if exception else "names"]
    if folded in table:
        value = table[folded]
        return value if " " not in value else f"({value})"
    if not exception and _REF.match(phrase):
        return phrase
    known = _known().get(folded)
    if known is not None and known[1] == exception:
        return known[0]
    if not exception and "/" in phrase:
        parts = [_name(p, False) for p in phrase.split("/")]
        if all(parts) and len(parts) > 1:
            return "(" + " OR ".join(p for p in parts if p) + ")"
    return None


def _phrase(words: list[str], exception: bool) -> str:
    """Blank-separated words: one name if they form one, else several names that all apply."""
    whole = _name(" ".join(words), exception)
    if whole is not None:
        return whole
    if exception:
        raise _Unknown(f"unknown exception {_quote(' '.join(words))}")
    parts = _names(words)
    return "(" + " AND ".join(parts) + ")" if len(parts) > 1 else parts[0]


@functools.cache
def _longest_names() -> tuple[int, int]:
    """The most words a known licence name has, and the most one with a ``/`` in it has."""
    keys = [*names_data()["names"], *_known()]
    return max(len(key.split()) for key in keys), max([1] + [len(key.split()) for key in keys if "/" in key])


def _reach(words: list[str], i: int) -> int:
    """The end of the longest phrase from ``words[i]`` that can be a known name (``_names`` need
    not try longer ones: linear, not cubic): a name itself, or a choice ``A/B`` whose parts are
    known names (each at most as long as the longest), of at most ``MAX_CHOICES`` parts past the
    first word."""
    most, most_with_slash = _longest_names()
    return max(_choice_reach(words, i, most), min(len(words), i + most_with_slash))


def _choice_reach(words: list[str], i: int, most: int) -> int:
    count = choices = 0
    part: list[str] = []  # the words of the current part of a choice (its first may be a tail)
    for k in range(i, len(words)):
        word = words[k]
        if "/" not in word:
            count += 1
            part.append(word)
            if count > most:
                return k
            continue
        pieces = word.split("/")
        choices += len(pieces) - 1
        if (choices > MAX_CHOICES and k > i) or _name(" ".join([*part, pieces[0]]), False) is None:
            return k
        part = [pieces[-1]] if pieces[-1] else []  # "A/ B": B starts the next part
        count = len(part)
    return len(words)


def _names(words: list[str]) -> list[str]:
    """Blank-separated words as the longest known names, in order."""
    parts, i = [], 0
    while i < len(words):
        for j in range(_reach(words, i), i, -1):
            found = _name(" ".join(words[i:j]), False)
            if found is not None:
                parts.append(found)
                i = j
                break
        else:
            raise _Unknown(f"unknown name {_quote(words[i])}")
    return parts


def listed_parts(text: str) -> list[str] | None:
    """The licences of a blank-separated list (OpenWrt's ``PKG_LICENSE:=GPL-2.0 LGPL-2.1``), each
    normalised, in order; None when ``text`` is one licence, an expression, or has an unknown name."""
    if len(text) > MAX_TEXT:
        return None  # normalise says why
    tokens = _TOKEN.findall(or_later(" ".join(text.split())))
    if len(tokens) < 2 or any(t in ("(", ")", ",", "&", "|") or t.lower() in _OPERATORS for t in tokens):
        return None
    if _name(" ".join(tokens), False) is not None:
        return None
    try:
        parts = [normalise(p).expression or p for p in _names(tokens)]
    except _Unknown:
        return None
    return list(dict.fromkeys(parts)) if len(set(parts)) > 1 else None


def _tokens(text: str) -> list[str]:
    """The expression as SPDX tokens (names resolved, operators upper case, commas as parentheses)."""
    out: list[str] = []
    words: list[str] = []
    after_with = False
    opens = 0

    def flush() -> None:
        nonlocal after_with
        if words:
            if out and out[-1] not in ("AND", "OR", "WITH", "("):
                out.append("AND")  # "A, B" (Buildroot) or "(A) B"
            out.append(_phrase(words, after_with))
            words.clear()
            after_with = False

    for tok in _TOKEN.findall(text):
        op = _OPERATORS.get(tok.lower())
        if op is None and tok not in "(),":
            words.append(tok)
            continue
        flush()
        if tok == ",":
            if out:  # all before it in parentheses: counted, written once at the end (not copied)
                opens += 1
                out.append(")")
            continue
        if op is not None:
            after_with = op == "WITH"
            out.append(op)
        else:
            out.append(tok)
    flush()
    return ["("] * opens + out


@functools.lru_cache(maxsize=4096)
def normalise(text: str) -> Normalised:
    """A licence as written in metadata -> a normalised SPDX expression (or None and why)."""
    from boolean.boolean import ParseError
    from license_expression import ExpressionError

    stripped = " ".join(text.split())
    if len(stripped) > MAX_TEXT:
        return Normalised(None, f"licence text of {len(stripped)} characters not read (more than {MAX_TEXT})")
    if stripped.upper() in _UNSTATED:
        return Normalised(None, f"licence stated as {_quote(stripped)}" if stripped else "empty licence")
    try:
        tokens = _tokens(or_later(stripped))
    except _Unknown as exc:
        return Normalised(None, f"licence {_quote(stripped)} is not an SPDX expression ({exc})")
    if _depth(tokens) > MAX_DEPTH:
        return Normalised(None, f"licence {_quote(stripped)} nests more than {MAX_DEPTH} levels: not read")
    expression = " ".join(tokens)
    licensing = spdx_licensing()
    # LicenseRef- ids are valid SPDX, but the library's index has none: check the rest (the id
    # alone is replaced, never a parenthesis around it)
    check = _REF_ID.sub("MIT", expression)
    try:
        errors = licensing.validate(check).errors
    except Exception:  # validate() itself fails on some malformed input (license-expression 30.4)
        errors = ["malformed expression"]
    if errors:
        return Normalised(None, f"licence {_quote(stripped)} is not an SPDX expression ({_error(errors[0])})")
    try:
        parsed = licensing.parse(expression, validate=False)
    except (ExpressionError, ParseError) as exc:
        return Normalised(None, f"licence {_quote(stripped)} is not an SPDX expression ({_error(str(exc))})")
    return Normalised(parsed.render() if parsed is not None else None, None if parsed is not None else "empty")


def _depth(tokens: list[str]) -> int:
    depth = deepest = 0
    for token in tokens:
        depth += (token == "(") - (token == ")")
        deepest = max(deepest, depth)
    return deepest


def _error(message: str) -> str:
    """license-expression's message about the rewritten expression, without its position there."""
    return _POSITION.sub("", message)


def normalise_modinfo(text: str) -> Normalised:
    """A kernel module's ``license=`` (MODULE_LICENSE) -> SPDX, by the kernel's own list first."""
    table = names_data()["modinfo"]
    folded = fold(text)
    return Normalised(table[folded]) if folded in table else normalise(text)
