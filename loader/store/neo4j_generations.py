"""The generations of the Neo4j store that readers do not see: a writer's heartbeat on the ones it
is writing or deleting, their deletion in small transactions, and the clean-up of what a writer
that died left (see ``neo4j_store`` for the design).

A writer says it is alive by setting ``heartbeat`` (the server's clock, ``timestamp()``) on the
``StagedFirmware`` / ``RetiredFirmware`` node of each generation it works on, every
``HEARTBEAT`` seconds, from a thread of its own. A generation whose heartbeat is older than
``STALE`` seconds has lost its writer (killed, its machine gone): the next writer claims it (one
claimant only, under the node's write lock) and deletes it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any, LiteralString, cast

from .queries import load_query

HEARTBEAT = 10.0  # seconds between a writer's heartbeats
STALE = 120.0  # seconds without one after which a generation is a dead writer's
READERS_WAIT = 60.0  # at most this long a retired generation waits for the readers that may read it
SETTLE = 0.1  # seconds a reader may take between looking up a generation and reading it


def run(driver: Any, database: str | None, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every statement of the named Neo4j-only query, each in a transaction of its own (auto-commit:
    ``CALL … IN TRANSACTIONS`` needs one); the rows of the last."""
    rows: list[dict[str, Any]] = []
    with driver.session(database=database) as session:
        for statement in load_query(name, "neo4j").statements:
            wanted = {k: v for k, v in params.items() if f"${k}" in statement}
            # linkgraph's own Cypher files, values passed as parameters
            result = session.run(cast(LiteralString, statement), wanted)
            rows = [record.data() for record in result]
    return rows


class Heartbeat:
    """While open, a thread says every ``HEARTBEAT`` seconds that this writer still works on its
    generations; ``add`` takes on more (the retired ones it then deletes)."""

    def __init__(self, driver: Any, database: str | None, generations: list[str]) -> None:
        self._driver, self._database = driver, database
        self._generations = list(generations)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="neo4j-heartbeat", daemon=True)

    def add(self, generations: list[str]) -> None:
        self._generations = [*self._generations, *generations]
        self._say()

    def _say(self) -> None:
        run(self._driver, self._database, "stage-heartbeat", {"generations": self._generations})

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            with contextlib.suppress(Exception):  # the writer's own statements report a lost server
                self._say()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def delete_generation(driver: Any, database: str | None, generation: str) -> None:
    """Delete one generation that no reader sees (staged or retired), in small transactions."""
    run(driver, database, "delete-generation", {"generation": generation})


def clean_stale(driver: Any, database: str | None) -> list[str]:
    """Delete the generations whose writers died (staged, or retired and not yet deleted)."""
    claimed = run(driver, database, "stale-generations", {"stale_ms": int(STALE * 1000)})
    generations = [row["generation"] for row in claimed]
    with Heartbeat(driver, database, generations):
        for generation in generations:
            delete_generation(driver, database, generation)
    return generations


def wait_for_readers(driver: Any, database: str | None) -> None:
    """Wait (at most ``READERS_WAIT``) until the transactions running right after a switch have
    ended: a reader that looked up the retired generation just before may still be reading it.
    Readers that start later look up the new one."""
    time.sleep(SETTLE)
    try:
        running = {row["transactionId"] for row in run(driver, database, "running-transactions", {})}
        deadline = time.monotonic() + READERS_WAIT
        while running and time.monotonic() < deadline:
            time.sleep(0.05)
            running &= {row["transactionId"] for row in run(driver, database, "running-transactions", {})}
    except Exception:  # a user who may not list transactions: delete at once
        return


def live_generation(driver: Any, database: str | None, firmware: str) -> str | None:
    """The generation key of firmware ``firmware``'s live graph (None: there is none)."""
    rows = run(driver, database, "generation", {"firmware": firmware})
    return rows[0]["generation"] if rows else None


@contextlib.contextmanager
def staged(driver: Any, database: str | None, firmware: str, generation: str) -> Iterator[Heartbeat]:
    """The heartbeat of a generation being written; if the write fails before it is switched in,
    the staged graph is deleted again (if the server is gone too, the next writer does it once the
    heartbeat is stale)."""
    with Heartbeat(driver, database, [generation]) as beat:
        try:
            yield beat
        except BaseException:
            with contextlib.suppress(Exception):
                if live_generation(driver, database, firmware) != generation:  # a commit whose reply was lost
                    delete_generation(driver, database, generation)
            raise
