"""Recipes: every input a fuzz run found, kept as a seed name plus patches (tests/fuzz/crashes.json).

A recipe is readable and reproducible where a saved binary is neither:

    {"id": ..., "target": "elf" | "scan" | "kmod" | "kimage" | a text target, "seed": "vendor:ROOT:PATH",
     "seed_sha256": ...,
     "root": "lede", "file": "/lib/libubox.so",          (scan only: small root and replaced file)
     "patches": [{"at": OFFSET, "put": HEX, "cut": N, "times": K}, ...],
     "triggered": what it did before the fix, "fixed_by": commit,
     "expect": {"outcome": "facts" | "elf-error", "anomalies": [...], "problems": [...]}}

A ``scan`` recipe's seed is the replaced file of the small root (its source root's file).
``expect`` is optional: what the fixed code must answer besides finishing within the bounds.
:func:`diff` turns any input back into patches on a seed, :func:`minimise` drops what a crash
does not need.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fuzz_kernel
import fuzz_seeds
import fuzz_text
from fuzz_harness import ALARM_SECONDS, Finding, Stats, check_elf, check_scan
from fuzz_mutate import Patch, apply_patches
from fuzz_text import check_text

CRASHES = Path(__file__).with_name("crashes.json")


def load() -> dict[str, Any]:
    """The whole crashes file: its runs and its recipes."""
    return json.loads(CRASHES.read_text())


def make(
    target: str,
    seed: str,
    seed_data: bytes,
    patches: list[Patch],
    finding: Finding,
    root: str | None = None,
    file: str | None = None,
) -> dict[str, Any]:
    """A recipe for an input just found (``fixed_by`` is filled in by whoever fixes it)."""
    recipe: dict[str, Any] = {
        "id": f"{target}-{finding.kind}-{hashlib.sha256(repr(patches).encode()).hexdigest()[:8]}",
        "target": target,
        "seed": seed,
        "seed_sha256": hashlib.sha256(seed_data).hexdigest(),
    }
    if root is not None:
        recipe.update(root=root, file=file)
    recipe["patches"] = [p.record() for p in patches]
    recipe["triggered"] = finding.detail.splitlines()[0] if finding.detail else finding.kind
    recipe["fixed_by"] = None
    if seed.partition(":")[0] not in fuzz_seeds.STABLE:
        recipe["note"] = "seed bytes are this machine's: move the patches onto a synthetic or firmware seed"
    return recipe


def text(recipe: dict[str, Any]) -> str:
    """The recipe as it goes into crashes.json."""
    return json.dumps(recipe, indent=1)


def seed_of(recipe: dict[str, Any], work: Path) -> bytes:
    """The recipe's seed bytes, checked against its sha256 (the offsets only mean something on them)."""
    if recipe["target"] == "scan":
        root = fuzz_seeds.small_root(recipe["root"], work / "root")
        data = Path(str(root) + recipe["file"]).read_bytes()
    else:
        data = fuzz_seeds.seed_bytes(recipe["seed"])
    digest = hashlib.sha256(data).hexdigest()
    if digest != recipe["seed_sha256"]:
        raise AssertionError(
            f"{recipe['id']}: seed {recipe['seed']} has sha256 {digest}, the recipe was made on {recipe['seed_sha256']}"
        )
    return data


def replay(recipe: dict[str, Any], work: Path, stats: Stats) -> list[str] | list[tuple[str, str]] | None:
    """Run the recipe's input (a Finding if it still does what it did): the anomaly codes (None for
    an ElfError) of an ``elf`` recipe, the (path, code) problems of a ``scan`` recipe, None for a
    text target's (tests/fuzz/fuzz_text.py), the outcome of an unpacking target's
    (tests/fuzz/fuzz_unpack.py)."""
    seed = seed_of(recipe, work)
    mutant = apply_patches(seed, [Patch.from_record(p) for p in recipe["patches"]])
    if recipe["target"] == "elf":
        return check_elf(mutant, stats)
    if recipe["target"] in fuzz_kernel.CHECKS:
        return [str(fuzz_kernel.CHECKS[recipe["target"]](mutant, stats, ALARM_SECONDS))]
    if recipe["target"] in fuzz_text.TARGETS:
        check_text(recipe["target"], mutant, stats)
        return None
    import fuzz_unpack  # it imports linkgraph (see bench/fuzz.py)

    if recipe["target"] in fuzz_unpack.CHECKS:  # the outcome: what each reader gave, or the roots found
        return [fuzz_unpack.CHECKS[recipe["target"]](mutant, stats, ALARM_SECONDS)]
    Path(str(work / "root") + recipe["file"]).write_bytes(mutant)
    return check_scan(work / "root", stats)


def diff(seed: bytes, mutant: bytes, gram: int = 16, window: int = 4096) -> list[Patch]:
    """Patches turning ``seed`` into ``mutant``, last first (each offset is the seed's, so any of
    them can be left out): after each difference, the nearest place where ``gram`` bytes agree
    again within ``window`` bytes resumes the comparison; a replaced, deleted or inserted block
    becomes one patch."""
    where: dict[bytes, list[int]] = {}
    for pos in range(len(seed) - gram + 1):
        where.setdefault(seed[pos : pos + gram], []).append(pos)
    patches, i, j = [], 0, 0
    while i < len(seed) and j < len(mutant):
        if seed[i] == mutant[j]:
            i, j = i + 1, j + 1
            continue
        best = None  # (cost, skipped in seed, skipped in mutant)
        for dj in range(min(window, len(mutant) - j - gram + 1)):
            if best is not None and dj >= best[0]:
                break
            spots = where.get(mutant[j + dj : j + dj + gram], [])
            k = bisect.bisect_left(spots, i)
            if k < len(spots) and spots[k] - i < window and (best is None or spots[k] - i + dj < best[0]):
                best = (spots[k] - i + dj, spots[k] - i, dj)
        di, dj = (len(seed) - i, len(mutant) - j) if best is None else best[1:]
        patches.append(Patch(i, mutant[j : j + dj], cut=None if di == dj else di))
        i, j = i + di, j + dj
    if i < len(seed) or j < len(mutant):
        patches.append(Patch(i, mutant[j:], cut=len(seed) - i))
    return patches[::-1]


def minimise(seed: bytes, patches: list[Patch], fails: Callable[[bytes], bool], budget: int = 400) -> list[Patch]:
    """Drop patches, then restore the seed's bytes inside overwrites, while ``fails`` stays true
    (``patches`` at the seed's offsets, as :func:`diff` gives them)."""
    tries = 0
    i = 0
    while i < len(patches) and tries < budget:
        trial = patches[:i] + patches[i + 1 :]
        tries += 1
        if trial and fails(apply_patches(seed, trial)):
            patches = trial
        else:
            i += 1
    out = []
    for n, patch in enumerate(patches):
        if patch.cut is not None or patch.times != 1:
            out.append(patch)
            continue
        kept = list(patch.put)
        for k in range(len(kept)):
            if tries >= budget or patch.at + k >= len(seed) or kept[k] == seed[patch.at + k]:
                continue
            trial_bytes = [*kept[:k], seed[patch.at + k], *kept[k + 1 :]]
            tries += 1
            trial = [*out, Patch(patch.at, bytes(trial_bytes)), *patches[n + 1 :]]
            if fails(apply_patches(seed, trial)):
                kept = trial_bytes
        same = [patch.at + k < len(seed) and byte == seed[patch.at + k] for k, byte in enumerate(kept)]
        start, end = 0, len(kept)
        while start < end and same[start]:
            start += 1
        while end > start and same[end - 1]:
            end -= 1
        if start < end:  # the bytes the seed already has are left out
            out.append(Patch(patch.at + start, bytes(kept[start:end])))
    return out
