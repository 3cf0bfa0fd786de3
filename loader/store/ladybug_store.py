"""The embedded store: LadybugDB on disk, written in bulk with ``COPY … FROM`` Arrow tables."""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from ..errors import StoreError
from ..graph_rows import NODE_TABLES, GraphRows
from ..queries import load_query
from .base import GraphStore

# Column types of each table, for Arrow (the schema file is the truth; these must match it).
_LIST = pa.list_(pa.string())
COLUMNS: dict[str, dict[str, pa.DataType]] = {
    "Firmware": {"id": pa.string(), "name": pa.string(), "sha256": pa.string(), "scanned_at": pa.string(),
                 "source": pa.string()},
    "Module": {"id": pa.string(), "firmware": pa.string(), "path": pa.string(), "name": pa.string(),
               "root": pa.string(), "kind": pa.string(), "soname": pa.string(), "machine": pa.string(),
               "class": pa.int64(), "endian": pa.string(), "osabi": pa.string(), "interpreter": pa.string(),
               "needed": _LIST, "aliases": _LIST, "size": pa.int64(), "sha256": pa.string(),
               "licence": pa.string(), "licence_source": pa.string(), "licence_certainty": pa.string(),
               "package": pa.string(), "licence_class": pa.string()},
    "Missing": {"id": pa.string(), "firmware": pa.string(), "soname": pa.string()},
    "Symbol": {"id": pa.string(), "firmware": pa.string(), "name": pa.string(), "version": pa.string()},
    "LinkMap": {"id": pa.string(), "firmware": pa.string(), "executable": pa.string(), "flavour": pa.string(),
                "objects": _LIST, "missing": _LIST},
    "Duplicate": {"id": pa.string(), "firmware": pa.string(), "symbol": pa.string(), "providers": _LIST,
                  "chosen": pa.string(), "executables": _LIST},
    "Problem": {"id": pa.string(), "firmware": pa.string(), "path": pa.string(), "severity": pa.string(),
                "message": pa.string(), "code": pa.string()},
    "CONTAINS": {},
    "NEEDED": {"soname": pa.string(), "position": pa.int64(), "executables": _LIST, "status": pa.string(),
               "symbols": _LIST, "rule": pa.string(), "directory": pa.string(), "via": pa.string(),
               "tried": _LIST, "found_by": pa.string()},
    "RESOLVES_TO": {"symbol": pa.string(), "version": pa.string(), "copy": pa.bool_(), "scope": pa.string()},
    "PROVIDES": {},
    "UNRESOLVED": {"weak": pa.bool_(), "scope": pa.string()},
    "Scope": {"id": pa.string(), "firmware": pa.string(), "executables": _LIST},
}
ALL_TABLES = ("CONTAINS", "NEEDED", "HIDDEN", "RESOLVES_TO", "PROVIDES", "UNRESOLVED") + NODE_TABLES


class LadybugStore(GraphStore):
    engine = "ladybug"

    def __init__(self, path: str, read_only: bool = False) -> None:
        import ladybug

        if read_only and not os.path.exists(path):
            raise StoreError(f"{path}: no such database (create it with `linkgraph scan TARGET --db {path}`)")
        try:
            self._db = ladybug.Database(path, read_only=read_only)
            self._conn = ladybug.Connection(self._db)
        except Exception as exc:  # ladybug raises RuntimeError for every failure
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        self.path = path
        if not read_only:
            self._create_schema()

    def _create_schema(self) -> None:
        for stmt in load_query("schema", self.engine).statements:
            self.execute(stmt)

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        try:
            result = self._conn.execute(statement, params or {})
        except RuntimeError as exc:
            if "Cannot find property" in str(exc):
                raise StoreError(f"{self.path}: this database was written by an older linkgraph and lacks a property "
                                 f"({exc}); scan the firmware again into it (or into a new one)") from exc
            raise StoreError(f"query failed: {exc}") from exc
        if isinstance(result, list):
            result = result[-1]
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next(), strict=True)))
        return rows

    def replace_firmware(self, rows: GraphRows) -> None:
        others = [f for f in self.firmware_ids() if f["id"] != rows.firmware]
        if others:
            self.run_query(load_query("delete-firmware"), {"firmware": rows.firmware})
        else:  # empty tables load far faster than tables with deleted rows
            for table in ALL_TABLES:
                self.execute(f"DROP TABLE IF EXISTS {table}")
            self._create_schema()
        for table in NODE_TABLES:
            self._copy(table, rows.nodes.get(table, []), None)
        for (table, src, dst), data in rows.rels.items():
            self._copy(table, data, (src, dst))
        self.run_query(load_query("classify", self.engine), {"firmware": rows.firmware})

    def _copy(self, table: str, data: list[dict], pair: tuple[str, str] | None) -> None:
        if not data:
            return
        columns = (["from", "to"] if pair else []) + list(COLUMNS[table])
        types = {"from": pa.string(), "to": pa.string(), **COLUMNS[table]}
        arrow = pa.table({c: pa.array([r.get(c) for r in data], type=types[c]) for c in columns})
        options = f" (from='{pair[0]}', to='{pair[1]}')" if pair else ""
        try:
            self._conn.execute(f"COPY {table} FROM $arrow{options}", {"arrow": arrow})
        except RuntimeError as exc:
            raise StoreError(f"writing {table} failed: {exc}") from exc

    def close(self) -> None:
        self._conn.close() if hasattr(self._conn, "close") else None
        self._db.close() if hasattr(self._db, "close") else None
