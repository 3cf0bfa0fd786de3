"""Which class a licence expression falls in for the licence findings (``data/classes.yaml``).

``licence_class("GPL-2.0-only")`` is ``gpl``; ``GPL-3.0-or-later WITH GCC-exception-3.1`` is
``lgpl`` (a linking exception); ``MIT OR GPL-2.0-only`` is ``permissive`` (the user may choose);
``GPL-2.0-only AND LicenseRef-Proprietary`` is ``gpl`` (all parts apply, the copyleft one counts
first). No expression, or one the table does not know, is ``unknown``.
"""

from __future__ import annotations

import enum
import functools
from typing import Any

from ..data_files import load_yaml


class LicenceClass(enum.StrEnum):
    """The licence classes of docs/licences.md, in the order every listing uses."""

    GPL = "gpl"  # strong copyleft without a linking exception
    LGPL = "lgpl"  # weak copyleft for dynamic linking, or GPL with a linking exception
    PERMISSIVE = "permissive"  # free and GPL-compatible
    INCOMPATIBLE = "incompatible"  # proprietary or not GPL-compatible
    UNKNOWN = "unknown"  # no licence fact, or one the table does not classify


_C = LicenceClass
# a choice (OR) takes the freest part, a conjunction (AND) the one that binds most
_FREEDOM = {_C.PERMISSIVE: 0, _C.LGPL: 1, _C.GPL: 2, _C.INCOMPATIBLE: 3, _C.UNKNOWN: 4}
_BINDING = {_C.GPL: 0, _C.INCOMPATIBLE: 1, _C.LGPL: 2, _C.UNKNOWN: 3, _C.PERMISSIVE: 4}


@functools.cache
def _table() -> dict[str, Any]:
    return load_yaml("linkgraph.loader.licences", "classes.yaml")


def _class_of_id(licence_id: str) -> LicenceClass:
    table = _table()
    best, best_len = _C.UNKNOWN, -1
    for cls in (_C.GPL, _C.LGPL, _C.PERMISSIVE, _C.INCOMPATIBLE):
        for pattern in table[cls.value]:
            if pattern.endswith("*"):
                if licence_id.startswith(pattern[:-1]) and len(pattern) - 1 > best_len:
                    best, best_len = cls, len(pattern) - 1
            elif licence_id == pattern:
                return cls
    return best


def _classify(node: Any) -> LicenceClass:
    from license_expression import AND, OR, LicenseWithExceptionSymbol

    if isinstance(node, LicenseWithExceptionSymbol):
        base = _class_of_id(node.license_symbol.key)
        linking = node.exception_symbol.key in _table()["linking_exceptions"]
        return _C.LGPL if base is _C.GPL and linking else base
    if isinstance(node, OR):
        return min((_classify(a) for a in node.args), key=_FREEDOM.__getitem__)
    if isinstance(node, AND):
        return min((_classify(a) for a in node.args), key=_BINDING.__getitem__)
    return _class_of_id(node.key)


@functools.cache
def licence_class(expression: str | None) -> LicenceClass:
    """The class of a normalised SPDX expression (see the module docstring)."""
    if not expression:
        return _C.UNKNOWN
    from license_expression import ExpressionError

    from .spdx import spdx_licensing

    try:
        parsed = spdx_licensing().parse(expression)
    except ExpressionError:
        return _C.UNKNOWN
    return _classify(parsed) if parsed is not None else _C.UNKNOWN
