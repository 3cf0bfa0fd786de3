"""``DynSymbols.named`` finds the symbols by name without making the others: checked against the
plain definition (cut every name at its offset up to the next NUL, keep those in the set) on string
tables built at random, with names that share a tail, offsets inside a name and past the table,
names read past DT_STRSZ, and tables that are not ASCII."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st
from linkgraph.loader.elf.dynsym import UNVERSIONED, DynSymbols

NAMES = st.lists(st.text(alphabet="abcé_", min_size=0, max_size=6), min_size=1, max_size=40)


def _symbols(table: str | bytes, offsets: list[int], far: dict[int, str]) -> DynSymbols:
    n = len(offsets)
    zeros = array("H", [0] * n)
    return DynSymbols(
        table, far, array("I", offsets), bytes(n), bytes(n), zeros, array("I", [0] * n), None, UNVERSIONED, False
    )


def _plain(table: str | bytes, offsets: list[int], far: dict[int, str], wanted: set[str]) -> list[int]:
    out = []
    for i, off in enumerate(offsets):
        if i in far:
            name = far[i]
        else:
            end = table.find("\0" if isinstance(table, str) else b"\0", off)  # type: ignore[arg-type]
            cut = table[off:end] if off < len(table) and end >= 0 else table[:0]
            name = cut if isinstance(cut, str) else cut.decode("utf-8", "surrogateescape")
        if name in wanted:
            out.append(i)
    return out


@settings(max_examples=300, deadline=None)
@given(
    names=NAMES,
    picks=st.lists(st.integers(0, 200), min_size=0, max_size=30),
    wanted=st.lists(st.text(alphabet="abcé_", max_size=6), max_size=40),
    as_bytes=st.booleans(),
    far_at=st.lists(st.integers(0, 29), max_size=3),
)
def test_named_equals_the_plain_definition(
    names: list[str], picks: list[int], wanted: list[str], as_bytes: bool, far_at: list[int]
) -> None:
    text = "\0".join(names) + "\0"
    table: str | bytes = text.encode() + b"\0" if as_bytes or not text.isascii() else text + "\0"
    size = len(table)
    offsets = [p % (size + 5) for p in picks]  # inside names, at their starts, and past the table
    far = {i: "far" + str(i) for i in far_at if i < len(offsets)}
    # the empty name is never looked up (a symbol without a name binds nothing)
    wanted_set = (set(wanted) | {"far1"} | set(names[:3])) - {""}
    symbols = _symbols(table, offsets, far)
    expected = _plain(table, offsets, far, wanted_set)
    assert [s.name for s in symbols.named(wanted_set)] == [symbols.name(i) for i in expected]
    assert [s.name for s in symbols.named(frozenset(wanted_set))] == [symbols.name(i) for i in expected]
    assert [s.name for s in symbols.named(list(wanted_set))] == [symbols.name(i) for i in expected]
