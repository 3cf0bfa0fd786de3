"""A version as a text that sorts like the version: what the stores compare (docs/identify.md,
"Comparing versions").

Cypher compares strings character by character ("1.0.10" < "1.0.9") and neither store knows
version order, so each identified version is stored with its key, made here at write time, and a
query compares keys. A version is cut into runs of digits and runs of letters (dots, dashes and
other separators only separate); a run of digits becomes ``N`` and the number, zero-padded to
``DIGITS`` places, a run of letters ``A`` and the letters in lower case. A version that is a
prefix of another sorts first, and a letter run before a number run, so

    1.0.2 < 1.0.2k < 1.0.2l < 1.0.2za < 1.1.0 < 1.1.0a < 3.0.19 < 3.0.20

OpenSSL's letter releases (1.0.2k), glibc's and zlib's dotted numbers and dates sort as their
projects mean. Not modelled: pre-releases (``3.0.0-alpha1`` sorts after ``3.0.0``) and epochs of
distribution versions; the identification stage gives upstream versions, which have neither.

Hand-written because the maintained version libraries compare two versions (``univers``,
``packaging``) but give no text key a database can order by, and ``packaging`` refuses
OpenSSL's ``1.0.2k``.
"""

from __future__ import annotations

import re

DIGITS = 12  # a run of more digits is kept whole: it still sorts after every shorter number
MAX_RUNS = 32  # a version's first 32 runs decide (a hostile "version" cannot make a huge key)
_RUNS = re.compile(r"\d+|[A-Za-z]+")


def version_key(version: str) -> str:
    """The key of ``version``: equal versions give equal keys, and keys sort as the versions."""
    parts = []
    for run in _RUNS.findall(version)[:MAX_RUNS]:
        if run.isdigit():
            number = run.lstrip("0") or "0"
            parts.append("N" + number.rjust(DIGITS, "0") if len(number) <= DIGITS else "O" + number)
        else:
            parts.append("A" + run.lower())
    return ".".join(parts)


def version_key_or_none(version: str | None) -> str | None:
    return version_key(version) if version else None
