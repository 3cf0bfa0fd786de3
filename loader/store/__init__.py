"""Graph stores: one small interface (``GraphStore``), one implementation per engine."""

from .base import GraphStore, open_store

__all__ = ["GraphStore", "open_store"]
