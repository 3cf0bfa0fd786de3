"""The embedded store: LadybugDB on disk, written in bulk with ``COPY … FROM`` Arrow tables."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from ...cypher.ladybug_schema import ladybug_copy, ladybug_ddl
from ...cypher.schema import TABLES
from ...cypher.table import ColumnType
from ..errors import StoreError
from ..freed_memory import give_back
from .base import GraphStore
from .columns import Columns, column_values
from .db_file import WriterLock, remove_staging, staging_path, switch_in, wal_path
from .finding_paths import batches, finding_rows, read_graph
from .graph_rows import NODE_TABLES, GraphRows, Rows
from .ladybug_memory import buffer_pool_size, full_message, is_full, max_db_size
from .queries import NamedQuery, load_query

# Arrow types of the schema's column types, for COPY
ARROW: dict[ColumnType, pa.DataType] = {
    ColumnType.STRING: pa.string(),
    ColumnType.INT64: pa.int64(),
    ColumnType.BOOL: pa.bool_(),
    ColumnType.STRINGS: pa.list_(pa.string()),
}


FINDING_BATCH = 20_000  # finding (a) rows per COPY


class LadybugStore(GraphStore):
    """LadybugDB at ``path``. A reader opens the live file read-only; a writer holds the writer's
    lock and replaces the file as a whole (``db_file``), so readers never see a half-written graph."""

    engine = "ladybug"

    def __init__(self, path: str, read_only: bool = False) -> None:
        self.path = path
        self.pool = buffer_pool_size()
        self._running = "a query"  # what a full buffer pool is reported for
        self._db: Any = None
        self._conn: Any = None
        self._lock: WriterLock | None = None
        if read_only:
            if not os.path.exists(path):
                raise StoreError(f"{path}: no such database (create it with `linkgraph scan TARGET --db {path}`)")
            self._recover_pending(locked=False)
            self._open_live()
            return
        lock = WriterLock(path)
        if not lock.acquire():
            raise StoreError(
                f"{path}: another linkgraph (process {lock.holder()}) is writing this database; "
                "wait for it to finish, or write to another --db"
            )
        self._lock = lock
        try:
            remove_staging(path)
            if os.path.exists(path):
                self._recover_pending(locked=True)
                self._open_live()
        except BaseException:
            self.close()
            raise

    def _connect(self, path: str, read_only: bool) -> None:
        import ladybug

        try:
            self._db = ladybug.Database(
                path, read_only=read_only, buffer_pool_size=self.pool, max_db_size=max_db_size()
            )
            self._conn = ladybug.Connection(self._db)
        except Exception as exc:  # ladybug raises RuntimeError for every failure
            self._db = self._conn = None
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc

    def _open_live(self) -> None:
        self._connect(self.path, read_only=True)

    def _disconnect(self) -> None:
        for handle in (self._conn, self._db):
            if handle is not None and hasattr(handle, "close"):
                handle.close()
        self._db = self._conn = None

    def _recover_pending(self, locked: bool) -> None:
        """A write-ahead log beside the live file (a writer of an older linkgraph was stopped):
        replay it once, as a writer, so that readers can open the file; or say what to do."""
        if not os.path.exists(wal_path(self.path)):
            return
        lock = None
        if not locked:
            lock = WriterLock(self.path)
            if not lock.acquire():
                raise StoreError(
                    f"{self.path}: a scan is writing this database (process {lock.holder()}); "
                    "run this command again when it has finished"
                )
        try:
            self._connect(self.path, read_only=False)
        finally:
            self._disconnect()
            if lock is not None:
                lock.release()

    def _create_schema(self) -> None:
        for stmt in ladybug_ddl():
            self.execute(stmt)

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        result = self._result(statement, params)
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next(), strict=True)))
        return rows

    def iterate(self, statement: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        result = self._result(statement, params)
        while result.has_next():
            yield tuple(result.get_next())

    def run_query(self, query: NamedQuery, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self._running = f"the query {query.name}"
        try:
            if not query.one_thread:
                return super().run_query(query, params)
            with self._on_one_thread():
                return super().run_query(query, params)
        finally:
            self._running = "a query"

    def stream(self, name: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        rows = super().stream(name, params)
        return self._streamed_on_one_thread(rows) if load_query(name, self.engine).one_thread else rows

    def _streamed_on_one_thread(self, rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
        with self._on_one_thread():  # the query runs when its first row is asked for
            yield from rows

    @contextlib.contextmanager
    def _on_one_thread(self) -> Iterator[None]:
        """Queries run meanwhile on one thread, then on as many as the machine has again (the default)."""
        if self._conn is not None:
            self._conn.set_max_threads_for_exec(1)
        try:
            yield
        finally:
            if self._conn is not None:
                self._conn.set_max_threads_for_exec(os.cpu_count() or 1)

    def _result(self, statement: str, params: dict[str, Any] | None) -> Any:
        if self._conn is None:
            raise StoreError(f"{self.path}: the database holds no firmware yet: run `linkgraph scan` first")
        try:
            result = self._conn.execute(statement, params or {})
        except RuntimeError as exc:
            if "Cannot find property" in str(exc):
                raise StoreError(
                    f"{self.path}: this database was written by an older linkgraph and lacks a property "
                    f"({exc}); scan the firmware again into it (or into a new one)"
                ) from exc
            if is_full(exc):
                raise StoreError(full_message(self._running, self.pool, exc)) from exc
            raise StoreError(f"query failed: {exc}") from exc
        return result[-1] if isinstance(result, list) else result

    def firmware_ids(self) -> list[dict[str, Any]]:
        return [] if self._conn is None else super().firmware_ids()

    def replace_firmware(self, rows: GraphRows) -> None:
        """Write the new graph into a staging database, then switch it in by a rename."""
        if self._lock is None:
            raise StoreError(f"{self.path}: opened read-only")
        others = [f for f in self.firmware_ids() if f["id"] != rows.firmware]
        self._disconnect()
        staged = staging_path(self.path)
        try:
            if others:  # the other firmware stay: start from a copy (one firmware: empty tables load faster)
                shutil.copyfile(self.path, staged)
            self._connect(staged, read_only=False)
            self._create_schema()
            if others:
                self.run_query(load_query("delete-firmware"), {"firmware": rows.firmware})
            self._copy_all(rows)
            give_back()  # the rows and their Arrow forms: the classification's peak comes next
            self.run_query(load_query("classify", self.engine), {"firmware": rows.firmware})
            self._write_findings(rows.firmware)
            self._disconnect()  # LadybugDB checkpoints on close: the staging file is then complete
            switch_in(self.path)
        except BaseException:
            self._disconnect()
            remove_staging(self.path)
            if os.path.exists(self.path):
                self._open_live()
            raise
        self._open_live()

    def _write_findings(self, firmware: str) -> None:
        """Licence finding (a), computed from the classified edges (``finding_paths``), copied in batches."""
        graph = read_graph(lambda name: self.stream(name, {"firmware": firmware}))
        for batch in batches(finding_rows(firmware, graph), FINDING_BATCH):
            self._copy("Finding", None, _arrow("Finding", batch, None))

    def _copy_all(self, rows: GraphRows) -> None:
        """Copies every table in, the nodes first. LadybugDB copies without the GIL, so each table's Arrow
        form is made here while a writer thread copies the one before (one at a time, in order). When
        the scan's last stage is still to run (``rows.later``), it runs here while the writer converts
        and copies the tables that are ready; the tables it fills in are copied last."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ladybug-copy") as writer:
            copied: set[_Key] = set()
            if rows.later is not None:
                ready = writer.submit(self._copy_tables, rows, _tables(rows), copied)
                rows.complete()
                ready.result()
            copying: Future[None] | None = None
            for table, data, pair in _tables(rows):
                if (table, pair) in copied:
                    continue
                arrow = _taken(rows, table, data, pair)
                if copying is not None:
                    copying.result()
                copying = writer.submit(self._copy, table, pair, arrow)
            if copying is not None:
                copying.result()

    def _copy_tables(self, rows: GraphRows, tables: list[_Table], copied: set[_Key]) -> None:
        for table, data, pair in tables:
            self._copy(table, pair, _taken(rows, table, data, pair))
            copied.add((table, pair))

    def _copy(self, table: str, pair: tuple[str, str] | None, arrow: pa.Table) -> None:
        try:
            self._conn.execute(ladybug_copy(table, pair), {"arrow": arrow})
        except RuntimeError as exc:
            if is_full(exc):
                raise StoreError(full_message(f"writing the {table} table", self.pool, exc)) from exc
            raise StoreError(f"writing {table} failed: {exc}") from exc

    def close(self) -> None:
        self._disconnect()
        if self._lock is not None:
            self._lock.release()
            self._lock = None


_Table = tuple[str, Rows, tuple[str, str] | None]  # a table's name, rows, and end tables (an edge table)
_Key = tuple[str, tuple[str, str] | None]


def _tables(rows: GraphRows) -> list[_Table]:
    """The tables with rows, in the order they are copied: nodes first, then edges, DLOPEN first
    among them (its long strings cost the copy most, best while little is held)."""
    tables: list[_Table] = [(t, rows.nodes[t], None) for t in NODE_TABLES if rows.nodes.get(t)]
    edges = ((t, data, (src, dst)) for (t, src, dst), data in rows.rels.items() if data)
    return tables + sorted(edges, key=lambda x: x[0] != "DLOPEN")


# malloc's pool: it gives freed memory back, where Arrow's default pool keeps it for later tables
_POOL = pa.system_memory_pool()


def _taken(rows: GraphRows, table: str, data: Rows, pair: tuple[str, str] | None) -> pa.Table:
    """The table's Arrow form; its rows then emptied when the scan has no further use for them."""
    arrow = _arrow(table, data, pair)
    if rows.disposable and isinstance(data, list | Columns):
        data.clear()
    return arrow


def _arrow(table: str, data: Rows, pair: tuple[str, str] | None) -> pa.Table:
    """The rows of one table as the Arrow table its COPY reads (the ends' ids first for an edge)."""
    types = {name: ARROW[kind] for name, kind in TABLES[table].columns}
    if pair:
        types = {"from": pa.string(), "to": pa.string(), **types}
    return pa.table({c: pa.array(column_values(data, c), type=t, memory_pool=_POOL) for c, t in types.items()})
