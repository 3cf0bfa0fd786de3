"""Synthetic firmware roots of any size for bench/scale.py, made of real ELF files built by gcc.

A root of N ELF files holds the host's glibc (libc.so.6 and its ld.so, copied), a seeded random DAG
of shared libraries (each linked by gcc with its own ``-Wl,-soname``, its DT_NEEDED entries and a
soname symlink) and PIE programs on top, ``/etc/ld.so.conf`` and an ``ld.so.cache`` (``ldconfig
-r``). Its shape is that of real firmware (SHAPE, measured below), with a few declared-unused,
hidden (a library only a dependency declares) and missing dependencies, interposed symbols and
libraries found through DT_RUNPATH only. Cached in ~/.cache/linkgraph/bench/scale-HASH/root (or
$LINKGRAPH_BENCH_CACHE), HASH covering size, seed, SHAPE, this file, gcc's version and the libc.

    python bench/scale.py --sizes 1000 --build-only   # build (or find) the 1000-ELF root
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# The shape, measured once (pyelftools over the dynamic section and .dynsym of every ELF file, then
# `linkgraph scan` and `linkgraph query dependency-edges --json`) on two roots: the LEDE 17.01.4
# TL-WR841N image of ../shared/firmware (musl, 39 programs, 30 libraries) and the whole-/usr/bin
# root of `python bench/host_root.py` (Debian 12 glibc, 792 programs, 303 libraries).
#                                              LEDE                   host
#   DT_NEEDED per program, median/p90/max      4 / 7 / 11             3 / 6 / 21
#   DT_NEEDED per library                      3 / 5 / 6              2 / 7 / 26
#   depth (longest DT_NEEDED chain), program   4 / 4 / 5              4 / 7 / 12
#   depth, library                             3 / 4 / 5              4 / 7 / 11
#   exported symbols per library               35 / 148 / 1902        99 / 867 / 44459
#   undefined symbols per program              57 / 172 / 315         68 / 274 / 1593
#   undefined symbols per library              50 / 90 / 199          63 / 270 / 2341
#   objects declaring a library (in-degree)    2 / 36 / 68            3 / 17 / 1088
#   programs per library                       1.3                    2.6
#   bound references that go to libc           68 %                   52 %
#   symbols per used edge, libc aside          5 / 23 (median/p90)    8 / 64
#   symbols per hidden edge                    3 / 4                  2 / 12
#   edges declared-unused / hidden / missing   6.6 / 1.9 / 0 %        5.7 / 8.2 / 0 %
GLIBC_DIR = "/lib/x86_64-linux-gnu"
LD_SO = "ld-linux-x86-64.so.2"
RUNPATH_DIR = "/usr/lib/sg"
PROGRAM_DIRS = (("/bin", 0.2), ("/sbin", 0.1), ("/usr/bin", 0.5), ("/usr/sbin", 0.2))
WORDS = ("init", "parse", "config", "read", "write", "buf", "list", "get", "set", "open", "close", "event")
CFLAGS = ("-O0", "-g0", "-w", "-fno-builtin", "-fno-asynchronous-unwind-tables", "-pipe", "-fno-use-linker-plugin")


@dataclasses.dataclass(frozen=True)
class Shape:
    """Distribution parameters of a synthetic root (see the measurements above)."""

    programs_per_library: float = 2.0
    layer_weights: tuple[float, ...] = (0.25, 0.25, 0.18, 0.12, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01)
    library_extra_needed: float = 0.9  # mean DT_NEEDED beyond libc and one library of the layer below
    program_needed: float = 2.5  # mean DT_NEEDED of a program, libc aside (at least one)
    max_needed: int = 24
    popularity_alpha: float = 1.1  # Pareto exponent: how unevenly libraries are chosen as dependencies
    popularity_decay: float = 0.7  # and a library one layer up is chosen this much less often
    exports: tuple[float, float, int] = (60.0, 1.3, 3000)  # log-normal median, sigma, cap
    libc_refs: tuple[float, float, int] = (35.0, 0.9, 600)
    edge_symbols: tuple[float, float, int] = (6.0, 1.1, 300)
    hidden_symbols: tuple[float, float, int] = (3.0, 0.8, 30)
    data_fraction: float = 0.05  # exported variables among a library's symbols
    unused: float = 0.06  # chance a declared dependency gets no reference
    hidden: float = 0.2  # chance an object references a library only its dependencies declare
    missing: float = 0.005  # chance an object declares a library absent from the root
    interpose: float = 0.01  # chance a library defines again a few symbols of a dependency
    runpath: float = 0.03  # chance a library lives in RUNPATH_DIR, found through DT_RUNPATH only
    in_slash_lib: float = 0.25  # libraries in /lib, the others in /usr/lib


SHAPE = Shape()


@dataclasses.dataclass
class Obj:
    """One ELF file to build: where it goes, what it declares, defines and references."""

    name: str  # soname of a library, file name of a program
    path: str  # inside the root (absent libraries: inside the build folder)
    kind: str  # "library", "program" or "absent"
    needed: list[int] = dataclasses.field(default_factory=list)
    functions: list[str] = dataclasses.field(default_factory=list)
    variables: list[str] = dataclasses.field(default_factory=list)
    calls: list[str] = dataclasses.field(default_factory=list)
    data_refs: list[str] = dataclasses.field(default_factory=list)
    hidden: bool = False


def _lognormal(rng: random.Random, spec: tuple[float, float, int], low: int = 1) -> int:
    median, sigma, cap = spec
    return max(low, min(cap, round(rng.lognormvariate(math.log(median), sigma))))


def _geometric(rng: random.Random, mean: float) -> int:  # failures before a success, on average *mean*
    return int(math.log(1.0 - rng.random()) / math.log(mean / (1 + mean))) if mean > 0 else 0


def _skewed(rng: random.Random, names: list[str], count: int) -> list[str]:
    """*count* draws (the first names more often, as for malloc or strlen), duplicates dropped."""
    return sorted({names[int(len(names) * rng.random() ** 2)] for _ in range(count)})


def libc_functions() -> list[str]:
    """The plain-named functions the host's libc exports at their default version."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", f"{GLIBC_DIR}/libc.so.6"], capture_output=True, text=True)
    rows = [line.split() for line in out.stdout.splitlines()]
    found = {c[7].split("@")[0] for c in rows if c[3:6] == ["FUNC", "GLOBAL", "DEFAULT"] and "@@GLIBC_" in c[7]}
    return sorted(n for n in found if n[:1].isalpha() and n.islower() and n.replace("_", "").isalnum())


def plan(size: int, seed: int, libc: list[str], shape: Shape = SHAPE) -> list[Obj]:
    """The objects of a *size*-ELF root (libc and ld.so count too): absent libraries first, then the
    libraries layer by layer (each depends on lower layers only), then the programs."""
    rng = random.Random(seed)
    libc = rng.sample(libc, len(libc))  # which libc functions are the popular ones
    n_libs = max(2, round((size - 2) / (1 + shape.programs_per_library)))
    n_absent = 1 + n_libs // 1000
    layers = sorted(rng.choices(range(1, len(shape.layer_weights) + 1), shape.layer_weights, k=n_libs))
    popularity = (rng.paretovariate(shape.popularity_alpha) * shape.popularity_decay ** (layer - 1) for layer in layers)
    cum = list(itertools.accumulate(popularity))
    objs = [Obj(f"libsgabsent{k}.so.1", f"absent/libsgabsent{k}.so.1", "absent") for k in range(n_absent)]
    for i in range(n_libs):
        folder = RUNPATH_DIR if rng.random() < shape.runpath else "/usr/lib"
        folder = "/lib" if folder == "/usr/lib" and rng.random() < shape.in_slash_lib else folder
        objs.append(Obj(f"libsg{i:05d}.so.1", f"{folder}/libsg{i:05d}.so.1.0.0", "library"))
    dirs, weights = [d for d, _w in PROGRAM_DIRS], [w for _d, w in PROGRAM_DIRS]
    for i, folder in enumerate(rng.choices(dirs, weights, k=size - 2 - n_libs)):
        objs.append(Obj(f"sgp{i:05d}", f"{folder}/sgp{i:05d}", "program"))

    def pick(lo: int, hi: int) -> int:  # a library index in [lo, hi), by popularity
        base = cum[lo - 1] if lo else 0.0
        return n_absent + min(hi - 1, bisect.bisect(cum, base + rng.random() * (cum[hi - 1] - base), lo, hi))

    def picks(lo: int, hi: int, count: int) -> list[int]:
        return list(dict.fromkeys(pick(lo, hi) for _ in range(min(count, hi - lo) * 2)))[:count] if hi > lo else []

    closure: dict[int, frozenset[int]] = {}
    for k, obj in enumerate(objs):
        rank = k - n_absent
        if obj.kind == "absent":
            obj.functions = [f"sgabsent{k}_{WORDS[j % len(WORDS)]}_{j}" for j in range(20)]
            continue
        if obj.kind == "library":
            top = bisect.bisect_left(layers, layers[rank])  # first library of this layer
            below = bisect.bisect_left(layers, layers[top - 1]) if top else 0  # of the layer below
            obj.needed = picks(below, top, 1) + picks(0, top, _geometric(rng, shape.library_extra_needed))
            count = _lognormal(rng, shape.exports, 4)
            n_vars = int(count * shape.data_fraction)
            obj.functions = [f"sg{rank}_{WORDS[j % len(WORDS)]}_{j}" for j in range(count - n_vars)]
            obj.variables = [f"sg{rank}_data_{j}" for j in range(n_vars)]
        else:
            obj.needed = picks(0, n_libs, 1 + _geometric(rng, shape.program_needed - 1))
        obj.needed = sorted(set(obj.needed))[: shape.max_needed]
        if rng.random() < shape.missing:
            obj.needed.append(rng.randrange(n_absent))
        for dep in obj.needed:
            if rng.random() < shape.unused and objs[dep].kind != "absent":
                continue  # declared, never used
            names = objs[dep].functions + objs[dep].variables
            for name in _skewed(rng, names, _lognormal(rng, shape.edge_symbols)):
                (obj.data_refs if name.startswith(f"sg{dep - n_absent}_data_") else obj.calls).append(name)
        reach = frozenset().union(*(closure.get(d, frozenset()) | {d} for d in obj.needed))
        transitive = sorted(t for t in reach - set(obj.needed) if objs[t].kind == "library")
        if transitive and rng.random() < shape.hidden:
            obj.hidden = True
            target = objs[rng.choice(transitive)]
            obj.calls += _skewed(rng, target.functions, _lognormal(rng, shape.hidden_symbols))
        if obj.kind == "library":
            closure[k] = reach
            if obj.needed and rng.random() < shape.interpose:
                obj.functions += objs[rng.choice(obj.needed)].functions[: rng.randint(1, 3)]
        obj.calls = sorted(set(obj.calls)) + _skewed(rng, libc, _lognormal(rng, shape.libc_refs))
    return objs


def c_source(obj: Obj) -> str:
    """The C text of one object: definitions, and calls or addresses of what it references."""
    own = set(obj.functions)
    lines = [f"/* {obj.name}: generated by linkgraph's bench/synthetic_root.py */"]
    lines += [f"extern void {name}(void);" for name in obj.calls if name not in own]
    lines += [f"extern int {name};" for name in obj.data_refs]
    reads = " + ".join([*obj.data_refs, "0"])  # read in code: copy relocations in programs, GOT entries in libraries
    lines.append(f'__attribute__((visibility("hidden"))) int sg_data(void) {{ return {reads}; }}')
    lines += [f"int {name} = {k};" for k, name in enumerate(obj.variables)]
    program = obj.kind == "program"
    bodies = [f"sg_part{k}" for k in range(1 + len(obj.calls) // 16)] if program else obj.functions
    for k, name in enumerate(bodies):
        calls = " ".join(f"{call}();" for call in obj.calls[k :: len(bodies)])
        lines.append(f"{'static ' if program else ''}void {name}(void) {{ {calls} }}")
    if program:
        lines.append("int main(void) { " + " ".join(f"{name}();" for name in bodies) + " return sg_data(); }")
    return "\n".join(lines) + "\n"


class Builder:
    """Compiles and links the objects of a plan into *work*/root, in parallel, layer after layer."""

    def __init__(self, objs: list[Obj], work: Path, jobs: int, log: Callable[[str], None]) -> None:
        self.objs, self.work, self.root, self.jobs, self.log = objs, work, work / "root", jobs, log
        self.done, self.lock, self.start = 0, threading.Lock(), time.monotonic()

    def host_path(self, obj: Obj) -> Path:
        return self.work / obj.path if obj.kind == "absent" else self.root / obj.path.lstrip("/")

    def command(self, obj: Obj, source: Path) -> list[str]:
        deps = [self.objs[d] for d in obj.needed]
        cmd = ["gcc", *CFLAGS, "-o", str(self.host_path(obj)), str(source)]
        if obj.kind == "program":
            cmd += ["-Wl,--allow-shlib-undefined", *(["-Wl,--unresolved-symbols=ignore-all"] if obj.hidden else [])]
        else:
            cmd += ["-shared", "-fPIC", f"-Wl,-soname,{obj.name}"]
        links = [f"{self.root}{d}" for d in ("/usr/lib", "/lib", RUNPATH_DIR)] + [str(self.work / "absent")]
        cmd += ["-Wl,-rpath-link," + ":".join(links), "-Wl,--no-as-needed", *(str(self.host_path(d)) for d in deps)]
        if any(d.path.startswith(RUNPATH_DIR + "/") for d in deps):
            cmd.append(f"-Wl,-rpath,{RUNPATH_DIR}")
        return cmd

    def build_one(self, obj: Obj) -> None:
        source = self.work / "src" / (obj.path.strip("/").replace("/", "_") + ".c")
        source.write_text(c_source(obj))
        result = subprocess.run(self.command(obj, source), capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"gcc failed on {obj.path}:\n{result.stderr[-2000:]}")
        if obj.kind == "library":
            os.symlink(Path(obj.path).name, self.host_path(obj).with_name(obj.name))
        with self.lock:
            self.done += 1
            if self.done % max(1, len(self.objs) // 20) == 0 or self.done == len(self.objs):
                rate = self.done / max(1e-9, time.monotonic() - self.start)
                self.log(f"  built {self.done}/{len(self.objs)} ELF files ({rate:.0f}/s)")

    def groups(self) -> list[list[Obj]]:
        """The objects by height in the DAG: each group needs only the groups before it."""
        height: list[int] = []
        for obj in self.objs:  # dependencies come first in a plan
            height.append(1 + max((height[d] for d in obj.needed), default=-1))
        return [[o for o, h in zip(self.objs, height, strict=True) if h == level] for level in range(max(height) + 1)]

    def build(self) -> None:
        folders = {os.path.dirname(o.path) for o in self.objs if o.kind != "absent"} | {"/etc", "/lib64", GLIBC_DIR}
        for folder in ["src", "absent", *(f"root{f}" for f in folders)]:
            (self.work / folder).mkdir(parents=True, exist_ok=True)
        for name in ("libc.so.6", LD_SO):
            shutil.copy2(os.path.realpath(f"{GLIBC_DIR}/{name}"), self.root / GLIBC_DIR.lstrip("/") / name)
        (self.root / "lib64" / LD_SO).symlink_to(f"../{GLIBC_DIR.lstrip('/')}/{LD_SO}")
        (self.root / "etc/ld.so.conf").write_text(f"{GLIBC_DIR}\n/lib\n/usr/lib\n")
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for group in self.groups():
                list(pool.map(self.build_one, group))
        if shutil.which("ldconfig"):  # the cache a device ships (-X: the soname links are made above)
            subprocess.run(["ldconfig", "-X", "-r", str(self.root)], check=True)
        shutil.rmtree(self.work / "src")
        shutil.rmtree(self.work / "absent")


def cache_base() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(os.environ.get("LINKGRAPH_BENCH_CACHE") or os.path.join(xdg, "linkgraph", "bench"))


def fingerprint(size: int, seed: int, shape: Shape = SHAPE) -> str:
    digest = hashlib.sha256(json.dumps([size, seed, dataclasses.asdict(shape)]).encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(subprocess.run(["gcc", "--version"], capture_output=True, check=True).stdout)
    for name in ("libc.so.6", LD_SO):
        digest.update(Path(os.path.realpath(f"{GLIBC_DIR}/{name}")).read_bytes())
    return digest.hexdigest()[:16]


def cached_root(size: int, seed: int = 1, jobs: int = 0, log: Callable[[str], None] = print) -> Path:
    """The root of *size* ELF files for *seed*: built once, then taken from the cache."""
    final = cache_base() / f"scale-{fingerprint(size, seed)}"
    if (final / "manifest.json").is_file():
        return final / "root"
    for stale in final.parent.glob(f"{final.name}.partial-*"):  # left by an interrupted build
        shutil.rmtree(stale, ignore_errors=True)
    work = final.with_name(f"{final.name}.partial-{os.getpid()}")
    objs = plan(size, seed, libc_functions())
    log(f"building a synthetic root of {size} ELF files (seed {seed}) in {work}")
    start = time.monotonic()
    Builder(objs, work, jobs or os.cpu_count() or 2, log).build()
    manifest = {"size": size, "seed": seed, "build_seconds": round(time.monotonic() - start, 1)}
    manifest |= {kind: sum(o.kind == kind for o in objs) for kind in ("library", "program", "absent")}
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(final, ignore_errors=True)
    work.rename(final)
    log(f"built in {manifest['build_seconds']}s: {final / 'root'}")
    return final / "root"
