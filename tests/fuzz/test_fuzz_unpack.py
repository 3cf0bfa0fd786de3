"""The bounded fuzz runs of the unpacking targets (tests/fuzz/fuzz_unpack.py): both squashfs
readers on mutants of a squashfs, and the unpacking walk on mutants of nested streams and
archives. Hypothesis draws the words to change, derandomized (the same inputs on the same code);
each input must end with a tree or its refusal, within the harness's bounds and the budget's
entries. The longer, coverage-guided run is ``bench/fuzz.py --target squashfs`` / ``unpack``.
"""

from __future__ import annotations

import fuzz_unpack
import pytest
from fuzz_harness import ALARM_SECONDS, Finding, Stats
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fuzz_runs import BOUNDED

pytestmark = pytest.mark.slow

INPUTS = {"squashfs": 150, "unpack": 80}
VALUES = (0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF)


def _mutant(data: st.DataObject, seed: bytes) -> bytes:
    """``seed`` with one to four of its words (fuzz_unpack.fields) set to interesting values."""
    words = fuzz_unpack.fields(seed)
    out = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 4))):
        at, width = data.draw(st.sampled_from(words))
        value = data.draw(st.sampled_from(VALUES) | st.integers(0, (1 << (8 * width)) - 1))
        out[at : at + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
    return bytes(out)


@pytest.mark.parametrize("target", fuzz_unpack.TARGETS)
def test_unpack_readers_bounded_fuzz(target: str) -> None:
    seeds = fuzz_unpack.unpack_seeds(target)
    names = list(seeds)
    check = fuzz_unpack.CHECKS[target]
    stats = Stats()
    outcomes: set[str] = set()

    @settings(BOUNDED, max_examples=INPUTS[target])
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names))
        mutant = _mutant(data, seeds[name])
        try:
            outcomes.add(str(check(mutant, stats, ALARM_SECONDS)))
        except Finding as found:
            raise AssertionError(f"{found} (seed {name}, mutant of {len(mutant)} bytes)") from None

    for name, seed in seeds.items():  # the seeds themselves read whole
        outcomes.add(f"seed {name}: {check(seed, stats, ALARM_SECONDS)}")
    one()
    print(f"{target} fuzz: {len(seeds)} seeds, {stats.summary()}, outcomes {sorted(outcomes)}")
    assert stats.inputs >= INPUTS[target]
    assert len(outcomes) > len(seeds), "mutants both read and refused"
