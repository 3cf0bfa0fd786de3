"""The viewer's search box (docs/viewer.md "Search"): modules by path, soname or symlink, and a
symbol's providers and binders, from the named queries ``search-modules``, ``symbol-providers``,
``symbol-bindings``, ``symbol-duplicates``, ``symbol-names`` and ``symbol-names-any-case``.

Long answers come a page at a time (``Page``): the query is asked for one row more than the page
holds, so ``more`` says whether another page follows without counting them all (a common symbol
such as ``malloc`` stays fast)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from .rows import Queryable, Row

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
# the programs listed with one binding (the rest are counted): a libc symbol holds in every link map
PROGRAMS_SHOWN = 12
# the symbol names starting with the text asked for, offered when it is not a whole name
NAMES_SHOWN = 20
# a name nothing matches: the close names (difflib) among the first CANDIDATES that share its first
# PREFIX characters in any case (a typo there goes unsuggested; the store is not read whole)
CLOSE_SHOWN, CANDIDATES, PREFIX = 5, 500, 2


@dataclass(frozen=True, slots=True)
class Page:
    """Which rows to answer: ``limit`` of them from ``offset`` (0-based), within bounds."""

    offset: int = 0
    limit: int = DEFAULT_LIMIT

    def __post_init__(self) -> None:
        if self.offset < 0:
            raise ValueError(f"offset {self.offset}: at least 0")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise ValueError(f"limit {self.limit}: from 1 to {MAX_LIMIT}")


def paged(store: Queryable, name: str, params: dict[str, Any], page: Page) -> Row:
    """One page of the named query *name* (which ends in ``SKIP $offset LIMIT $limit``)."""
    rows = store.query(name, {**params, "offset": page.offset, "limit": page.limit + 1})
    return {"items": rows[: page.limit], "offset": page.offset, "limit": page.limit, "more": len(rows) > page.limit}


def search_modules(store: Queryable, firmware_id: str, text: str, page: Page) -> Row:
    """The modules whose path, soname or a symlink to them contains *text* (any case), by path."""
    return {"text": text, "modules": paged(store, "search-modules", {"firmware": firmware_id, "text": text}, page)}


def _binding(row: Row) -> Row:
    programs = list(row["programs"] or [])
    own = row["module"] == row["provider"]
    return {
        "module": row["module"],
        "version": row["version"],
        "provider": row["provider"],
        "copy": bool(row["copy"]),
        "status": row["status"],  # None: the module binds its own definition (no dependency edge)
        "own": own,
        "programs": programs[:PROGRAMS_SHOWN],
        "program_count": len(programs),
    }


def suggestions(store: Queryable, firmware_id: str, text: str) -> list[str]:
    """Names to offer when *text* names no symbol and begins none: the names containing it in any case
    (``NVRAM_GET`` finds ``nvram_get``), else the closest names of the same beginning (a typo)."""

    def names(start: str, part: str, limit: int) -> list[str]:
        params = {"firmware": firmware_id, "start": start, "text": part}
        return [r["name"] for r in paged(store, "symbol-names-any-case", params, Page(0, limit))["items"]]

    found = names("", text, NAMES_SHOWN)
    if found or len(text) <= PREFIX:
        return found
    # (LadybugDB's CONTAINS '' is false: the beginning is the text too)
    lowered = {n.lower(): n for n in names(text[:PREFIX], text[:PREFIX], CANDIDATES)}
    return [lowered[n] for n in difflib.get_close_matches(text.lower(), list(lowered), CLOSE_SHOWN)]


def symbol_search(store: Queryable, firmware_id: str, symbol: str, page: Page) -> Row:
    """The symbol names that start with *symbol* (the first ``NAMES_SHOWN``), who provides *symbol*
    (each provider a reference binds it to, with its version and how many references bind there),
    where several objects of one link map define it (the first in load order wins), and a page of
    who binds it: the referencing module, the provider, the status of the edge between them and the
    programs whose link maps hold the binding; when no reference binds it and no name starts with it,
    the ``suggestions``."""
    params = {"firmware": firmware_id, "symbol": symbol}
    bindings = paged(store, "symbol-bindings", params, page)
    bindings["items"] = [_binding(r) for r in bindings["items"]]
    names = paged(store, "symbol-names", {"firmware": firmware_id, "text": symbol}, Page(0, NAMES_SHOWN))
    providers = store.query("symbol-providers", params)
    return {
        "symbol": symbol,
        "names": {"items": [r["name"] for r in names["items"]], "more": names["more"]},
        "suggestions": [] if providers or names["items"] else suggestions(store, firmware_id, symbol),
        "providers": providers,
        "duplicates": [
            {
                **d,
                "executables": list(d["executables"] or [])[:PROGRAMS_SHOWN],
                "program_count": len(d["executables"] or []),
            }
            for d in store.query("symbol-duplicates", params)
        ],
        "bindings": bindings,
    }
