"""Every crash a fuzz run ever found, replayed from its recipe (tests/fuzz/crashes.json), and the
mechanism that finds and records them: what counts as a finding, patches, diff and minimisation."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import fuzz_kernel
import fuzz_recipes
import fuzz_seeds
import pytest
from fuzz_harness import HANG_SECONDS, MEMORY_BOUND, Finding, Stats, address_space_limit, measured
from fuzz_mutate import Patch, apply_patches
from fuzz_recipes import diff, minimise
from linkgraph.loader.elf.facts import is_elf
from linkgraph.loader.errors import ElfError

RECIPES = fuzz_recipes.load()["crashes"]


@pytest.mark.parametrize("recipe", RECIPES, ids=[r["id"] for r in RECIPES])
def test_recorded_crash_stays_fixed(recipe: dict[str, Any], tmp_path: Path) -> None:
    seed_kind = recipe["seed"].partition(":")[0]
    assert seed_kind in fuzz_seeds.STABLE, f"{recipe['id']}: seed {recipe['seed']} is not the same on every machine"
    assert recipe["fixed_by"] and recipe["triggered"] and recipe["patches"]
    stats = Stats()
    with address_space_limit():
        result = fuzz_recipes.replay(recipe, tmp_path, stats)  # a Finding fails the test
    expect = recipe.get("expect", {})
    print(f"{recipe['id']}: {stats.summary()}")
    if recipe["target"] == "elf":
        if "outcome" in expect:
            assert ("elf-error" if result is None else "facts") == expect["outcome"]
        assert set(expect.get("anomalies", ())) <= set(result or ())
    elif recipe["target"] in fuzz_kernel.TARGETS or recipe["target"] in ("squashfs", "unpack"):
        assert result is not None and result[0] == expect.get("outcome", result[0])  # a module's layout, roots found
    elif recipe["target"] == "scan":
        codes = {code for path, code in result if path == recipe["file"]}
        assert set(expect.get("problems", ())) <= codes, result


def test_crashes_file_records_the_runs() -> None:
    """The file says how much fuzzing found what it holds (or that it found nothing)."""
    runs = fuzz_recipes.load()["runs"]
    assert runs, "no fuzz run recorded"
    for run in runs:
        assert {"what", "inputs", "crashes"} <= run.keys(), run


def _raise(exc: BaseException) -> None:
    raise exc


def _spin(seconds: float) -> None:
    """Use the CPU for ``seconds`` (a hang is judged by CPU time)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


@pytest.mark.parametrize(
    ("kind", "run"),
    [
        ("exception", lambda: {}["missing"]),
        ("exception", lambda: _raise(MemoryError())),
        ("message", lambda: _raise(ElfError("two\nlines"))),
        ("hang", lambda: _spin(HANG_SECONDS + 0.2)),
        ("memory", lambda: len(b"\1" * (MEMORY_BOUND + (64 << 20)))),
    ],
    ids=["key-error", "memory-error", "multi-line-message", "slow", "large"],
)
def test_what_counts_as_a_finding(kind: str, run: Any) -> None:
    with pytest.raises(Finding) as found:
        measured(run, Stats(), "input")
    assert found.value.kind == kind


def test_an_input_that_blocks_is_stopped_by_the_alarm() -> None:
    started = time.perf_counter()
    with pytest.raises(Finding, match=r"still running after 0\.5 s"):
        measured(lambda: time.sleep(10), Stats(), "input", alarm=0.5)
    assert time.perf_counter() - started < 5


def test_elf_error_and_facts_are_fine() -> None:
    stats = Stats()
    assert measured(lambda: _raise(ElfError("unusable")), stats, "input") is None
    assert measured(lambda: 7, stats, "input") == 7
    assert (stats.inputs, stats.rejected) == (2, 1)


def test_patches_diff_and_minimise_on_a_seed() -> None:
    seed = fuzz_seeds.seed_bytes("synthetic:x86_64-rela")
    patches = [Patch(300, b"\xff\xfe"), Patch(0, b"\x00"), Patch(40, b"\x12\x34\x56")]
    mutant = apply_patches(seed, patches)
    found = diff(seed, mutant)
    assert apply_patches(seed, found) == mutant
    assert minimise(seed, found, lambda data: not is_elf(data)) == [Patch(0, b"\x00")]
    for other in (mutant[:200], mutant[:100] + b"inserted" + mutant[100:], Patch(50, b"x", times=9).apply(mutant)):
        assert apply_patches(seed, diff(seed, other)) == other
    record = Patch(8, b"ab", cut=4, times=3).record()
    assert record == {"at": 8, "put": "6162", "cut": 4, "times": 3}
    assert Patch.from_record(record).apply(b"0123456789abcdef") == b"01234567ababab" + b"cdef"
