"""Coverage-guided fuzzing of read_elf_facts, of the scan of small roots and of the kernel readers
(atheris, libFuzzer).

The long companion of tests/fuzz/test_fuzz_runs.py: the same seeds (tests/fuzz/fuzz_seeds.py),
the same judgement of each input (tests/fuzz/fuzz_harness.py: nothing but ElfError may be raised,
at most 2 s and 256 MiB of RSS per input) and, half of the time, the same mutations
(tests/fuzz/fuzz_mutate.py: interesting values in the fields a loader reads); the other half are
libFuzzer's own. Coverage is counted over linkgraph's code only.

    python bench/fuzz.py --minutes 30               # read_elf_facts 1/2 of the time, the scan 1/5, kernel 3/10
    python bench/fuzz.py --minutes 60 --jobs 2      # both at once, one worker each
    python bench/fuzz.py --minutes 10 --target scan
    python bench/fuzz.py --minutes 30 --target kmod --jobs 2 # kernel modules (parse_module)
    python bench/fuzz.py --minutes 30 --target kimage        # vmlinux and raw kernel images
    python bench/fuzz.py --minutes 30 --target kernel        # both kernel targets, one after the other
    python bench/fuzz.py --minutes 30 --target text          # licence expressions, control files, dlopen patterns
    python bench/fuzz.py --minutes 30 --target squashfs      # both squashfs readers (unsquashfs, the LZMA variant)
    python bench/fuzz.py --minutes 30 --target unpack        # the unpacking walk: nested streams and archives

The unpacking targets (tests/fuzz/fuzz_unpack.py: ``squashfs``, ``unpack``) take one file's
bytes too, each input under a small scan budget; they are run by name (``--target``), not in ``all``.
The kernel targets (tests/fuzz/fuzz_kernel.py) take one file's bytes, like ``elf``; ``all``
gives them a share of the time after ``elf`` and ``scan``. The text targets
(tests/fuzz/fuzz_text.py) take the input as the text itself; their mutations are libFuzzer's,
and a quarter of the time a piece of the input repeated (what made those readers slow).

A scan input is one byte choosing a file of a small root, then that file's new content. Each
worker is a libFuzzer process; one that finds something stops and is started again on the same
corpus until the time is up. Everything goes under --out (default
``${XDG_CACHE_HOME:-~/.cache}/linkgraph/fuzz/TIME``): corpora, libFuzzer's logs and crash files,
and recipes.json. At the end each crash is replayed here, minimised and printed as the recipe to
add to tests/fuzz/crashes.json (with the commit that fixes it). Prints inputs, exec/s, coverage
(libFuzzer's cov: and ft:), crashes and the max RSS per input; exit status 1 if anything was found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "fuzz")]
ARTIFACTS = ("crash-", "timeout-", "oom-", "slow-unit-", "leak-")
TARGETS = ("elf", "scan", "kmod", "kimage")  # kmod, kimage: tests/fuzz/fuzz_kernel.py
SHARES = {"elf": 0.5, "scan": 0.2, "kmod": 0.15, "kimage": 0.15}  # of the time of 'all' with one job
TEXT_TARGETS = ("licence", "control", "dlopen")  # fuzz_text.TARGETS (not imported here: see below)
TEXT_MAX_LEN = 256 * 1024
UNPACK_TARGETS = ("squashfs", "unpack")  # fuzz_unpack.TARGETS
GROUPS = {
    "all": list(TARGETS),
    "text": list(TEXT_TARGETS),
    "kernel": ["kmod", "kimage"],
    "unpacking": list(UNPACK_TARGETS),
}
# Nothing from linkgraph (or the fuzz modules, which import it) is imported at the top: a worker
# must instrument linkgraph's modules before their first import.


def default_out() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "linkgraph" / "fuzz" / time.strftime("%Y%m%d-%H%M%S")


# --------------------------------------------------------------------------- one worker (a libFuzzer process)


def worker(args: argparse.Namespace) -> None:
    """Fuzz one target until libFuzzer stops (its time is up, or an input was a finding)."""
    import atheris

    with atheris.instrument_imports(include=["linkgraph"]):
        import linkgraph.loader.dlopen.candidates
        import linkgraph.loader.elf.facts
        import linkgraph.loader.kmod.kernel_exports
        import linkgraph.loader.kmod.ko
        import linkgraph.loader.licences.control
        import linkgraph.loader.licences.spdx
        import linkgraph.loader.scan.root
        import linkgraph.loader.store.rows
        import linkgraph.loader.unpack.driver
        import linkgraph.loader.unpack.squashfs  # noqa: F401
    import fuzz_harness as fh
    import fuzz_kernel
    import fuzz_mutate as fm
    import fuzz_seeds
    import fuzz_text
    import fuzz_unpack

    out = Path(args.out)
    stats = fh.Stats()
    stats_file = out / f"stats-{args.target}-{args.job}-{args.run}.json"

    def save() -> None:
        stats_file.write_text(
            json.dumps(
                {
                    "inputs": stats.inputs,
                    "rejected": stats.rejected,
                    "slowest": stats.slowest,
                    "rss_growth": stats.rss_growth,
                }
            )
        )

    if args.target == "scan":
        roots = {n: fuzz_seeds.small_root(n, out / f"roots-{args.job}" / n) for n in fuzz_seeds.SCAN_ROOTS}
        pairs = fuzz_seeds.scan_pairs(roots)

    def judge(data: bytes) -> None:
        if args.target in TEXT_TARGETS:
            fuzz_text.check_text(args.target, data, stats, alarm=None)
            return
        if args.target == "elf":
            fh.check_elf(data, stats, alarm=None)
            return
        if args.target in fuzz_kernel.CHECKS:
            fuzz_kernel.CHECKS[args.target](data, stats, None)
            return
        if args.target in fuzz_unpack.CHECKS:
            fuzz_unpack.CHECKS[args.target](data, stats, None)
            return
        name, path = pairs[data[0] % len(pairs)] if data else pairs[0]
        host = Path(str(roots[name]) + path)
        original = host.read_bytes()
        host.write_bytes(data[1:])
        try:
            fh.check_scan(roots[name], stats, alarm=None)
        finally:
            host.write_bytes(original)

    def one(data: bytes) -> None:
        try:
            judge(data)
        except fh.Finding:
            save()
            raise
        if stats.inputs % 200 == 0:
            save()

    def mutate(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if args.target in TEXT_TARGETS:
            if data and rng.random() < 0.25:  # a piece repeated
                at = rng.randrange(len(data))
                piece = data[at : at + rng.randint(1, 16)]
                return (data[:at] + piece * rng.randint(2, max_size // len(piece)) + data[at:])[:max_size]
            return atheris.Mutate(data, max_size)
        head, body = (data[:1], data[1:]) if args.target == "scan" else (b"", data)
        words = fuzz_unpack.fields(body) if args.target in UNPACK_TARGETS else fm.fields(body)
        if body and rng.random() < 0.5:
            body = fm.apply_patches(body, fm.generate(fm.RandomChooser(rng), body, words))
        else:
            body = atheris.Mutate(body, max_size - len(head))
        return (head + body)[:max_size]

    flags = [
        f"-max_total_time={args.seconds}",
        f"-artifact_prefix={out / 'artifacts' / args.target}/",
        "-timeout=30",
        "-rss_limit_mb=4096",
        "-len_control=0",
        f"-max_len={args.max_len}",
        "-print_final_stats=1",
        f"-seed={args.job * 1000 + args.run + 1}",
    ]
    atheris.Setup([sys.argv[0], *flags, str(out / "corpus" / args.target)], one, custom_mutator=mutate)
    with fh.address_space_limit():
        atheris.Fuzz()


# --------------------------------------------------------------------------- the run


def prepare(out: Path) -> dict[str, Any]:
    """Seed corpora (the seeds, and for the scan each root's files behind their index byte)."""
    import fuzz_kernel
    import fuzz_seeds
    import fuzz_text
    import fuzz_unpack

    seeds = fuzz_seeds.elf_seeds(out / "seeds")
    roots = {n: fuzz_seeds.small_root(n, out / "roots" / n) for n in fuzz_seeds.SCAN_ROOTS}
    pairs = fuzz_seeds.scan_pairs(roots)
    by_target = {"elf": seeds, **{t: fuzz_kernel.kernel_seeds(t) for t in fuzz_kernel.TARGETS}}
    by_target |= {t: fuzz_unpack.unpack_seeds(t) for t in fuzz_unpack.TARGETS}
    for folder in ("corpus", "artifacts"):
        for target in (*TARGETS, *UNPACK_TARGETS):
            (out / folder / target).mkdir(parents=True, exist_ok=True)
    for target, some in by_target.items():
        for i, data in enumerate(some.values()):
            (out / "corpus" / target / f"seed-{i:03}").write_bytes(data)
    for i, (name, path) in enumerate(pairs):
        (out / "corpus" / "scan" / f"seed-{i:03}").write_bytes(bytes([i]) + Path(str(roots[name]) + path).read_bytes())
    for target, named in fuzz_text.SEEDS.items():
        for folder in ("corpus", "artifacts"):
            (out / folder / target).mkdir(parents=True, exist_ok=True)
        for name, data in named.items():
            (out / "corpus" / target / f"seed-{name}").write_bytes(data)
    text = {t: list(n) for t, n in fuzz_text.SEEDS.items()}
    return {"seeds": by_target, "roots": roots, "pairs": pairs, "text": text}


def run_job(out: Path, target: str, job: int, seconds: float, totals: dict[str, Any]) -> None:
    """Run workers for ``target`` until ``seconds`` are spent, restarting one that found something."""
    end = time.monotonic() + seconds
    run = 0
    max_len = max(p.stat().st_size for p in (out / "corpus" / target).iterdir()) + 4096
    if target in TEXT_TARGETS:
        max_len = TEXT_MAX_LEN
    while (left := int(end - time.monotonic())) >= 5:
        log = out / f"log-{target}-{job}-{run}.txt"
        opts = {"--target": target, "--out": out, "--job": job, "--run": run, "--seconds": left, "--max-len": max_len}
        cmd = [sys.executable, __file__, "--worker", *(str(x) for pair in opts.items() for x in pair)]
        with open(log, "w") as fh:
            subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONHASHSEED": "0"})
        text = log.read_text(errors="replace")
        done = re.findall(r"stat::number_of_executed_units: (\d+)", text) or re.findall(r"^#(\d+)", text, re.M)
        with totals["lock"]:
            t = _totals(totals, target)
            t["inputs"] += int(done[-1]) if done else 0
            t["cov"] = max([t["cov"], *map(int, re.findall(r"cov: (\d+)", text))])
            t["ft"] = max([t["ft"], *map(int, re.findall(r"ft: (\d+)", text))])
            t["corpus"] = max([t["corpus"], *map(int, re.findall(r"corp: (\d+)/", text))])
            t["runs"] += 1
        run += 1
    with totals["lock"]:
        _totals(totals, target)["seconds"] += seconds


def _totals(totals: dict[str, Any], target: str) -> dict[str, Any]:
    return totals.setdefault(target, {"inputs": 0, "cov": 0, "ft": 0, "corpus": 0, "runs": 0, "seconds": 0.0})


def recipes(out: Path, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """libFuzzer's artifacts replayed here and grouped by what they do (exception type and place,
    hang, memory); the smallest of each group becomes patches on its closest seed, minimised."""
    import fuzz_harness as fh
    import fuzz_recipes
    import fuzz_seeds

    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for artifact in sorted((out / "artifacts").glob("*/*")):
        if not artifact.name.startswith(ARTIFACTS):
            continue
        case: dict[str, Any] = {"data": artifact.read_bytes(), "where": (), "host": None, "root": None}
        if artifact.parent.name in TEXT_TARGETS:
            target = artifact.parent.name
            named = {f"text:{target}-{n}": fuzz_seeds.seed_bytes(f"text:{target}-{n}") for n in ctx["text"][target]}
            case["name"] = max(named, key=lambda n, d=case["data"]: _closeness(named[n], d))
            case.update(seed=named[case["name"]], text=target)
        elif artifact.parent.name == "scan":
            data = case["data"]
            where = ctx["pairs"][data[0] % len(ctx["pairs"])] if data else ctx["pairs"][0]
            root = ctx["roots"][where[0]]
            host = Path(str(root) + where[1])
            case.update(where=where, root=root, host=host, seed=host.read_bytes(), data=data[1:])
            case["name"] = fuzz_seeds.root_seed_name(*where)
        else:
            seeds = ctx["seeds"][artifact.parent.name]
            case["name"] = max(seeds, key=lambda n, d=case["data"], s=seeds: _closeness(s[n], d))
            case["seed"] = seeds[case["name"]]
        case["target"] = artifact.parent.name
        case["found"] = _finding(case["data"], case["seed"], case["host"], case["root"], case["target"])
        key = (artifact.parent.name, getattr(case["found"], "signature", "not reproduced: " + artifact.name[:5]))
        best = groups.setdefault(key, {**case, "artifact": artifact, "count": 0})
        best["count"] += 1
        if len(case["data"]) < len(best["data"]):
            best.update(case, artifact=artifact)
    found = []
    for (target, signature), case in groups.items():
        patches = fuzz_recipes.diff(case["seed"], case["data"])
        if case["found"] is not None:
            patches = fuzz_recipes.minimise(case["seed"], patches, lambda m, c=case, s=signature: _same(m, c, s))
        shown = case["found"] or fh.Finding(signature, "did not reproduce outside libFuzzer")
        recipe = fuzz_recipes.make(target, case["name"], case["seed"], patches, shown, *case["where"])
        recipe.update(signature=signature, artifacts=case["count"], artifact=str(case["artifact"]))
        found.append(recipe)
    return found


def _same(mutant: bytes, case: dict[str, Any], signature: str) -> bool:
    found = _finding(mutant, case["seed"], case["host"], case["root"], case["target"])
    return getattr(found, "signature", None) == signature


def _finding(mutant: bytes, seed: bytes, host: Path | None, root: Path | None, target: str = "elf") -> Any:
    """The Finding ``mutant`` gives here: read_elf_facts (or the kernel or text reader of
    ``target``), or the scan of ``root`` with its file ``host`` replaced (then given its ``seed``
    bytes back); None if it gives none."""
    import fuzz_harness as fh
    import fuzz_kernel
    import fuzz_text
    import fuzz_unpack

    try:
        with fh.address_space_limit():
            if target in TEXT_TARGETS:
                fuzz_text.check_text(target, mutant, fh.Stats())
            elif target in fuzz_kernel.CHECKS:
                fuzz_kernel.CHECKS[target](mutant, fh.Stats(), fh.ALARM_SECONDS)
            elif target in fuzz_unpack.CHECKS:
                fuzz_unpack.CHECKS[target](mutant, fh.Stats(), fh.ALARM_SECONDS)
            elif host is None:
                fh.check_elf(mutant, fh.Stats())
            else:
                host.write_bytes(mutant)
                fh.check_scan(root, fh.Stats())
    except fh.Finding as exc:
        return exc
    finally:
        if host is not None:
            host.write_bytes(seed)
    return None


def _closeness(seed: bytes, data: bytes) -> tuple[int, int]:
    head = next((i for i, (a, b) in enumerate(zip(seed, data, strict=False)) if a != b), min(len(seed), len(data)))
    tail = next(
        (i for i, (a, b) in enumerate(zip(reversed(seed), reversed(data), strict=False)) if a != b),
        min(len(seed), len(data)),
    )
    return head + tail, -abs(len(seed) - len(data))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to fuzz (default 5)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="workers at once (default 1; with 'all', 2 or more "
        "fuzz the targets side by side, else one after the other)",
    )
    parser.add_argument(
        "--target",
        choices=(*TARGETS, *TEXT_TARGETS, *UNPACK_TARGETS, *GROUPS),
        default="all",
        help="default: all (elf, scan, kmod, kimage); text: the three text targets; kernel: kmod and kimage; "
        "unpacking: squashfs and unpack",
    )
    parser.add_argument("--out", help="folder for corpora, logs, crashes (default: a new one in the cache)")
    for hidden in ("--job", "--run", "--max-len"):
        parser.add_argument(hidden, type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    out = Path(args.out) if args.out else default_out()
    out.mkdir(parents=True, exist_ok=True)
    ctx = prepare(out)
    seconds = args.minutes * 60
    targets = GROUPS.get(args.target, [args.target])
    if args.target == "all" and args.jobs < 2:
        plan = [[(target, seconds * SHARES[target]) for target in targets]]
    elif args.jobs < len(targets):  # each worker takes its share of the targets, one after the other
        shares = [targets[j :: max(1, args.jobs)] for j in range(max(1, args.jobs))]
        plan = [[(t, seconds / len(share)) for t in share] for share in shares]
    else:
        plan = [[(targets[j % len(targets)], seconds)] for j in range(max(1, args.jobs))]
    totals: dict[str, Any] = {"lock": threading.Lock()}
    seeds = sum(len(s) for s in ctx["seeds"].values())
    print(f"fuzz: {args.minutes:g} min, {seeds} seeds, {len(ctx['pairs'])} root files; {out}", flush=True)

    def jobs(job: int, steps: list[tuple[str, float]]) -> None:
        for target, span in steps:
            run_job(out, target, job, span, totals)

    threads = [threading.Thread(target=jobs, args=(j, steps)) for j, steps in enumerate(plan)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = recipes(out, ctx)
    summary = _summary(out, totals, found)
    (out / "recipes.json").write_text(json.dumps(found, indent=1))
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    for recipe in found:
        print(
            "recipe to add to tests/fuzz/crashes.json (with the commit that fixes it):\n" + json.dumps(recipe, indent=1)
        )
    return 1 if found else 0


def _summary(out: Path, totals: dict[str, Any], found: list[dict[str, Any]]) -> dict[str, Any]:
    summary = {}
    for target in (*TARGETS, *TEXT_TARGETS, *UNPACK_TARGETS):
        if target not in totals:
            continue
        t = totals[target]
        stats = [json.loads(p.read_text()) for p in out.glob(f"stats-{target}-*.json")]
        t["rss_per_input_mib"] = round(max((s["rss_growth"] for s in stats), default=0) / 2**20, 1)
        t["slowest_ms"] = round(max((s["slowest"] for s in stats), default=0) * 1000)
        t["exec_per_s"] = round(t["inputs"] / max(t["seconds"], 1))
        t["crashes"] = sum(r["artifacts"] for r in found if r["target"] == target)
        t["kinds"] = sum(r["target"] == target for r in found)
        print(
            f"  {target:4}: {t['inputs']} inputs in {t['seconds'] / 60:.1f} min ({t['exec_per_s']}/s, {t['runs']} "
            f"worker runs), coverage cov {t['cov']} ft {t['ft']}, corpus {t['corpus']}, "
            f"crashes {t['crashes']} ({t['kinds']} kinds), max RSS per input {t['rss_per_input_mib']} MiB, "
            f"slowest {t['slowest_ms']} ms"
        )
        summary[target] = t
    return summary


if __name__ == "__main__":
    sys.exit(main())
