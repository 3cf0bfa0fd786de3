"""The bounded fuzz runs of the test suite: read_elf_facts on thousands of mutated seeds, and the
scan of small roots in which one file is mutated (tests/fuzz/fuzz_seeds.py names the seeds).

Hypothesis draws the mutations (tests/fuzz/fuzz_mutate.py) derandomized and without an example
database, so the same command on the same code tries the same inputs (Hypothesis also mixes in
constants of the modules loaded, so ``pytest tests/fuzz`` and the whole suite may try different
ones); a failure is shrunk to the fewest patches and its message is the recipe, which reproduces
it anywhere, to add to tests/fuzz/crashes.json. Each input must end with facts or an ElfError,
within 2 s of CPU (a small root: 10 s) and 256 MiB of RSS (tests/fuzz/fuzz_harness.py); the figures
are printed (``pytest -s``). The longer, coverage-guided run is ``bench/fuzz.py --minutes N``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import fuzz_kernel
import fuzz_recipes
import fuzz_seeds
import pytest
from conftest import linkgraph_cmd
from fuzz_harness import ALARM_SECONDS, Finding, Stats, address_space_limit, check_elf, check_scan
from fuzz_mutate import apply_patches, fields, generate
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

ELF_INPUTS = 8000
KERNEL_INPUTS = {"kmod": 3000, "kimage": 600}
SCAN_INPUTS = 300
CLI_INPUTS = 4
BOUNDED = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate, Phase.shrink],
    print_blob=False,
)


class Draws:
    """fuzz_mutate's Chooser over Hypothesis' draws (so that a failure shrinks)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return fuzz_seeds.elf_seeds(tmp_path_factory.mktemp("seeds"))


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("roots")
    return {name: fuzz_seeds.small_root(name, base / name) for name in fuzz_seeds.SCAN_ROOTS}


def test_read_elf_facts_bounded_fuzz(seeds: dict[str, bytes]) -> None:
    names = list(seeds)
    targets = {name: fields(data) for name, data in seeds.items()}
    assert all(targets.values()), "every seed is a well-formed ELF file with fields to mutate"
    stats = Stats()

    @settings(BOUNDED, max_examples=ELF_INPUTS)
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names))
        patches = generate(Draws(data), seeds[name], targets[name])
        try:
            check_elf(apply_patches(seeds[name], patches), stats)
        except Finding as found:
            recipe = fuzz_recipes.make("elf", name, seeds[name], patches, found)
            raise AssertionError(f"{found}\nrecipe:\n{fuzz_recipes.text(recipe)}") from None

    with address_space_limit():
        one()
    print(f"read_elf_facts fuzz: {len(seeds)} seeds, {stats.summary()}")
    assert stats.inputs >= ELF_INPUTS
    assert 0 < stats.rejected < stats.inputs, "mutants both rejected and read: the mutations reach past the header"


@pytest.mark.parametrize("target", fuzz_kernel.TARGETS)
def test_kernel_readers_bounded_fuzz(target: str) -> None:
    """Kernel modules (parse_module) and kernel files (the kernel's exports) on mutants of their
    seeds (tests/fuzz/fuzz_kernel.py): a module or ModuleReadError, exports found or not."""
    seeds = fuzz_kernel.kernel_seeds(target)
    names = list(seeds)
    targets = {name: fields(data) for name, data in seeds.items()}
    check = fuzz_kernel.CHECKS[target]
    stats = Stats()
    outcomes: set[str] = set()

    @settings(BOUNDED, max_examples=KERNEL_INPUTS[target])
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names))
        patches = generate(Draws(data), seeds[name], targets[name])
        try:
            outcomes.add(str(check(apply_patches(seeds[name], patches), stats, ALARM_SECONDS)))
        except Finding as found:
            recipe = fuzz_recipes.make(target, name, seeds[name], patches, found)
            raise AssertionError(f"{found}\nrecipe:\n{fuzz_recipes.text(recipe)}") from None

    with address_space_limit():
        one()
    print(f"{target} fuzz: {len(seeds)} seeds, {stats.summary()}, outcomes {sorted(outcomes)}")
    assert stats.inputs >= KERNEL_INPUTS[target]
    assert len(outcomes) > 1, "mutants both read and refused: the mutations reach the tables"


def _mutate_in_root(data: st.DataObject, roots: dict[str, Path]) -> tuple[str, Path, str, bytes, list]:
    name, file = data.draw(st.sampled_from(fuzz_seeds.scan_pairs(roots)))
    root = roots[name]
    original = Path(str(root) + file).read_bytes()
    return name, root, file, original, generate(Draws(data), original, fields(original))


def test_scan_of_small_roots_bounded_fuzz(roots: dict[str, Path]) -> None:
    stats = Stats()

    @settings(BOUNDED, max_examples=SCAN_INPUTS)
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name, root, file, original, patches = _mutate_in_root(data, roots)
        host = Path(str(root) + file)
        host.write_bytes(apply_patches(original, patches))
        try:
            check_scan(root, stats)
        except Finding as found:
            seed = fuzz_seeds.root_seed_name(name, file)
            recipe = fuzz_recipes.make("scan", seed, original, patches, found, name, file)
            raise AssertionError(f"{found}\nrecipe:\n{fuzz_recipes.text(recipe)}") from None
        finally:
            host.write_bytes(original)

    with address_space_limit():
        one()
    print(f"scan fuzz: roots {', '.join(roots)}, {stats.summary()}")
    assert stats.inputs >= SCAN_INPUTS


def test_cli_scan_of_mutated_roots(roots: dict[str, Path], tmp_path: Path) -> None:
    """A few mutants through the installed command, store and report included: exit 0 or 1, no trace."""
    runs: list[str] = []

    @settings(BOUNDED, max_examples=CLI_INPUTS)
    @given(st.data())
    def one(data: st.DataObject) -> None:
        name, root, file, original, patches = _mutate_in_root(data, roots)
        work = tmp_path / f"run{len(runs)}"
        shutil.copytree(root, work / "root", symlinks=True)
        Path(str(work / "root") + file).write_bytes(apply_patches(original, patches))
        db = str(work / "db.lbdb")
        scan = subprocess.run(
            [*linkgraph_cmd(), "scan", str(work / "root"), "--db", db, "-q"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        report = subprocess.run([*linkgraph_cmd(), "report", "--db", db], capture_output=True, text=True, timeout=300)
        runs.append(f"{name}:{file} scan {scan.returncode} report {report.returncode}")
        patches_text = [p.record() for p in patches]
        assert scan.returncode in (0, 1), f"{name}:{file} {patches_text}: scan exited {scan.returncode}\n{scan.stderr}"
        assert "Traceback" not in scan.stderr + report.stderr
        assert report.returncode == 0 and report.stdout.startswith("{"), report.stderr

    one()
    print("cli fuzz: " + "; ".join(runs))
    assert len(runs) >= CLI_INPUTS
