"""Hand-built graph JSON (docs/viewer.md) for the diagram tests."""

from __future__ import annotations

from typing import Any


def edge(index: int, tail: int, head: int, status: str, symbols: list[str]) -> dict[str, Any]:
    """Edge ``e{index}`` from node ``n{tail}`` to ``n{head}`` with ``symbols`` (soname ``lib{head}.so``)."""
    return {
        "id": f"e{index}",
        "from": f"n{tail}",
        "to": f"n{head}",
        "status": status,
        "soname": f"lib{head}.so",
        "symbols": symbols,
        "count": len(symbols),
    }
