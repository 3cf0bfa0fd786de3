"""The bounded fuzz runs of the text targets (tests/fuzz/fuzz_text.py): licence expressions,
control files and dlopen patterns, each on a few hundred mutants of its seeds.

The mutations are what made these readers slow before: a piece of the seed or a few bytes
repeated up to tens of thousands of times, inserted or put in place of a span. Hypothesis draws
them derandomized, as in tests/fuzz/test_fuzz_runs.py; a failure is shrunk and its message is the
recipe to add to tests/fuzz/crashes.json. The coverage-guided run is
``bench/fuzz.py --target licence`` (or ``control``, ``dlopen``).
"""

from __future__ import annotations

import fuzz_recipes
import pytest
from fuzz_harness import Finding, Stats, address_space_limit
from fuzz_mutate import Patch, apply_patches
from fuzz_text import SEEDS, check_text
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fuzz_runs import BOUNDED

INPUTS = 300
TOKENS = [b" ", b"/", b"%s", b"%d", b".so", b"\n", b"\n ", b" or later", b",", b"(", b"|", b"MIT ", b"A", b"\xff"]


@st.composite
def patches(draw: st.DrawFn, seed: bytes) -> list[Patch]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(seed)))
        start = draw(st.integers(0, len(seed)))
        piece = draw(
            st.one_of(
                st.sampled_from(TOKENS),
                st.binary(min_size=1, max_size=8),
                st.just(seed[start : start + draw(st.integers(1, 32))] or b"x"),
            )
        )
        times = draw(st.sampled_from([1, 2, 7, 300, 3_000, 30_000]))
        cut = draw(st.one_of(st.none(), st.integers(0, len(seed) - at)))
        out.append(Patch(at, piece, cut if cut is not None else 0, times))
    return sorted(out, key=lambda p: p.at, reverse=True)  # last first: each offset is the seed's


@pytest.mark.parametrize("target", list(SEEDS))
def test_text_target_bounded_fuzz(target: str) -> None:
    stats = Stats()
    names = list(SEEDS[target])

    @settings(BOUNDED, max_examples=INPUTS)
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names))
        seed = SEEDS[target][name]
        drawn = data.draw(patches(seed))
        try:
            check_text(target, apply_patches(seed, drawn), stats)
        except Finding as found:
            recipe = fuzz_recipes.make(target, f"text:{target}-{name}", seed, drawn, found)
            raise AssertionError(f"{found}\nrecipe:\n{fuzz_recipes.text(recipe)}") from None

    with address_space_limit():
        one()
    print(f"{target} fuzz: {len(names)} seeds, {stats.summary()}")
    assert stats.inputs >= INPUTS
