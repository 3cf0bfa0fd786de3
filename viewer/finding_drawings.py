"""The compliance report's finding diagrams, drawn several at a time.

Each finding's graph is read from the store on the caller's thread (``finding_graph``: a store
connection is not shared between threads); Graphviz then draws it in a pool of threads, each waiting
on its own ``dot`` process, as many at once as the machine has processors. ``Drawings.add`` returns
the diagram's slot, ``Drawings.done`` fills every slot (in the order they were added) and says how
far it got through ``progress`` (stage, done, total), as the scan does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..loader.report.analysis import Queryable, Row
from .finding_diagram import draw, finding_graph

Progress = Callable[[str, int, int], None]
STAGE = "drawing the findings' diagrams"


class Drawings:
    """Finding diagrams of one firmware, ``image`` (svg or png) each, drawn in a pool."""

    def __init__(self, store: Queryable, firmware_id: str, image: str, progress: Progress | None = None) -> None:
        self.store, self.firmware_id, self.image, self.progress = store, firmware_id, image, progress
        self._pool = ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1)))
        self._slots: list[tuple[Row, Future[Row]]] = []

    def add(self, group: Row, root: str, edges: list[Row]) -> None:
        """Draw the diagram of ``root``'s finding (``edges``: {from, to, status, symbols}) into ``group["diagram"]``."""
        graph, omitted = finding_graph(self.store, self.firmware_id, root, edges)
        self._slots.append((group, self._pool.submit(draw, graph, omitted, root, edges, self.image)))

    def done(self) -> None:
        """Wait for every diagram and put each in its group (a drawing's error is raised here)."""
        try:
            total = len(self._slots)
            for number, (group, future) in enumerate(self._slots, 1):
                group["diagram"] = future.result()
                if self.progress is not None:
                    self.progress(STAGE, number, total)
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Drawings:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
