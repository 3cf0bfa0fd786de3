"""LadybugDB's side of the schema (``schema``): its typed tables and their bulk load."""

from __future__ import annotations

from .schema import EDGES, NODES, TABLES


def ladybug_ddl() -> list[str]:
    """LadybugDB: typed tables (it has no schema-free nodes), then every column added if missing,
    so that a database written by an older linkgraph gains the newer ones."""
    out: list[str] = []
    for table in NODES:
        columns = ", ".join(f"{name} {kind}" for name, kind in table.columns)
        out.append(f"CREATE NODE TABLE IF NOT EXISTS {table.name}({columns}, PRIMARY KEY(id))")
        out += [f"ALTER TABLE {table.name} ADD IF NOT EXISTS {n} {k}" for n, k in table.columns[1:]]
    for table in EDGES:
        parts = [f"FROM {src} TO {dst}" for src, dst in table.ends]
        parts += [f"{name} {kind}" for name, kind in table.columns]
        out.append(f"CREATE REL TABLE IF NOT EXISTS {table.name}({', '.join(parts)})")
        out += [f"ALTER TABLE {table.name} ADD IF NOT EXISTS FROM {src} TO {dst}" for src, dst in table.ends]
        out += [f"ALTER TABLE {table.name} ADD IF NOT EXISTS {n} {k}" for n, k in table.columns]
    return out


def ladybug_copy(table: str, ends: tuple[str, str] | None) -> str:
    """LadybugDB's bulk load of one table from an Arrow table passed as ``$arrow``."""
    options = f" (from='{ends[0]}', to='{ends[1]}')" if ends else ""
    return f"COPY {TABLES[table].name} FROM $arrow{options}"
