"""One read-only store per app, shared by the requests (LadybugDB connections are not thread-safe,
so every query holds the app's lock).

A scan replaces the embedded database as a whole, by renaming a new file over it (store/db_file):
a store opened before keeps reading the old file. So every request looks at the file's identity
(device and inode): when a scan has replaced it, the new database is opened and the old one
closed once the queries still reading it are done. The next request after a scan shows the new
graph; a page already in the browser shows it on reload (docs/viewer.md).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

from flask import Flask, abort, current_app

from ..loader.errors import StoreError
from ..loader.near_names import close_names, did_you_mean
from ..loader.store import GraphStore, open_store

_EXTENSION = "linkgraph_store"
_SWAP = threading.Lock()  # one thread at a time opens a replaced database


class LockedStore:
    """The store with a lock around each query, as the viewer uses it."""

    def __init__(self, store: GraphStore, file: tuple[int, int] | None = None) -> None:
        self.store = store
        self.engine = store.engine
        self.file = file  # the embedded database's (device, inode) when it was opened
        self._lock = threading.Lock()

    def query(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return self.store.query(name, params)

    def stream(self, name: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """The rows one at a time, the lock held until the last one is read."""
        with self._lock:
            yield from self.store.stream(name, params)

    def close(self) -> None:
        with self._lock:  # after the query or stream still reading it
            self.store.close()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[GraphStore]:
        """The store itself, for a reader that streams (``compare``), the lock held meanwhile."""
        with self._lock:
            yield self.store


def init_app(app: Flask) -> None:
    app.extensions[_EXTENSION] = None


def _file_of(path: str | None) -> tuple[int, int] | None:
    """The database file's identity, or None (no file: a server, or the file cannot be seen)."""
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def current_store() -> LockedStore:
    """The app's store: the one ``LINKGRAPH_STORE`` holds, else opened read-only on first use, and
    opened again when a scan has replaced the database file since."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    store = app.extensions.get(_EXTENSION)
    if store is None and app.config.get("LINKGRAPH_STORE") is not None:
        store = LockedStore(app.config["LINKGRAPH_STORE"], _file_of(app.config["LINKGRAPH_DB"]))
        app.extensions[_EXTENSION] = store
    if store is not None and (store.file is None or store.file == _file_of(app.config["LINKGRAPH_DB"])):
        return store
    with _SWAP:
        if app.extensions.get(_EXTENSION) is not store:
            return app.extensions[_EXTENSION]  # another request has opened the new one
        file = _file_of(app.config["LINKGRAPH_DB"])
        fresh = LockedStore(
            open_store(
                db=app.config["LINKGRAPH_DB"],
                neo4j=app.config["LINKGRAPH_NEO4J"],
                read_only=True,
                neo4j_database=app.config["LINKGRAPH_NEO4J_DATABASE"],
            ),
            file,
        )
        app.extensions[_EXTENSION] = fresh
    if store is not None:
        store.close()
    return fresh


def firmware_or_404(firmware_id: str) -> dict[str, Any]:
    """The firmware row for an id (or unique id prefix); 404 with a message otherwise."""
    try:
        rows = current_store().query("firmware")
    except StoreError as exc:
        abort(503, str(exc))
    hits = [f for f in rows if f["id"] == firmware_id] or [f for f in rows if f["id"].startswith(firmware_id)]
    if len(hits) > 1:
        abort(404, f"{firmware_id!r} begins the ids of {len(hits)} firmware in this store: give more of the id")
    if not hits:
        names = {f["name"]: f for f in rows if f["name"]}
        near = [f"{n} ({names[n]['id'][:12]})" for n in close_names(firmware_id, names)]
        listed = did_you_mean(near) if near else f"; the store holds {len(rows)} firmware, listed on the start page"
        abort(404, f"no firmware {firmware_id!r} in this store{listed}")
    return hits[0]
