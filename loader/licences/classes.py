"""Which class a licence expression falls in for the licence findings (``data/classes.yaml``).

``licence_class("GPL-2.0-only")`` is ``gpl``; ``GPL-3.0-or-later WITH GCC-exception-3.1`` is
``lgpl`` (a linking exception); ``MIT OR GPL-2.0-only`` is ``permissive`` (the user may choose);
``GPL-2.0-only AND LicenseRef-Proprietary`` is ``gpl`` (all parts apply, the copyleft one counts
first). No expression, or one the table does not know, is ``unknown``.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

CLASSES = ("permissive", "lgpl", "gpl", "incompatible", "unknown")
# a choice (OR) takes the freest part, a conjunction (AND) the one that binds most
_FREEDOM = {"permissive": 0, "lgpl": 1, "gpl": 2, "incompatible": 3, "unknown": 4}
_BINDING = {"gpl": 0, "incompatible": 1, "lgpl": 2, "unknown": 3, "permissive": 4}


@functools.cache
def _table() -> dict[str, Any]:
    import yaml

    text = (resources.files("linkgraph.loader.licences") / "data" / "classes.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _class_of_id(licence_id: str) -> str:
    table = _table()
    best, best_len = "unknown", -1
    for cls in ("gpl", "lgpl", "permissive", "incompatible"):
        for pattern in table[cls]:
            if pattern.endswith("*"):
                if licence_id.startswith(pattern[:-1]) and len(pattern) - 1 > best_len:
                    best, best_len = cls, len(pattern) - 1
            elif licence_id == pattern:
                return cls
    return best


def _classify(node: Any) -> str:
    from license_expression import AND, OR, LicenseWithExceptionSymbol

    if isinstance(node, LicenseWithExceptionSymbol):
        base = _class_of_id(node.license_symbol.key)
        linking = node.exception_symbol.key in _table()["linking_exceptions"]
        return "lgpl" if base == "gpl" and linking else base
    if isinstance(node, OR):
        return min((_classify(a) for a in node.args), key=_FREEDOM.__getitem__)
    if isinstance(node, AND):
        return min((_classify(a) for a in node.args), key=_BINDING.__getitem__)
    return _class_of_id(node.key)


@functools.cache
def licence_class(expression: str | None) -> str:
    """The class of a normalised SPDX expression (see the module docstring)."""
    if not expression:
        return "unknown"
    from license_expression import ExpressionError, get_spdx_licensing

    try:
        parsed = get_spdx_licensing().parse(expression)
    except ExpressionError:
        return "unknown"
    return _classify(parsed) if parsed is not None else "unknown"
