"""A root for licence finding (a) at scale, built from scratch with gcc (issue 38).

``PROGRAMS`` programs and ``LIBRARIES`` libraries with no licence fact (class ``unknown``: every one
starts paths), ``HUBS`` libc-like hub libraries (MIT, by the overrides) that every library and
program declares, and one GPL library that every hub declares and calls: a few hundred programs
hold each edge into a hub, so the paths from every module to the GPL library are many and each
hop's program list is long. The libraries sit in layers, each declaring one or two of the layer
below; a fifth of them call the GPL library's function without declaring it (hidden where a hub
loaded it). Every object also declares the host's ``libc.so.6`` (gcc's default), a hub of its own.

The C sources are ``tests/fixtures/findings_scale/*.c``; each object's function and calls come as
``-D`` macros from the recipe here. The root is cached under the tests' cache
(``findings-scale-HASH``), HASH covering the recipe, the sources, this file, gcc's version and libc.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .fixture_root import FIXTURES, GCC, HOST_LIBC, Root
from .hostroot import cache_dir

PROGRAMS = 300
LIBRARIES = 200
HUBS = 3
LAYERS = 4
SEED = 38
GPL = "/lib/libgpl.so"
HIDDEN_SHARE = 0.2
LOOSE = ("-Wl,--allow-shlib-undefined",)
SOURCES = ("findings_scale/object.c", "findings_scale/program.c")
OVERRIDES = f"""\
{GPL}: GPL-2.0-only
/lib/libhub*.so: MIT
"""


@dataclass(frozen=True)
class Part:
    """One object of the root: its path, function, declared libraries and called functions."""

    device: str
    function: str
    needs: tuple[str, ...]
    calls: tuple[str, ...]


def hub(k: int) -> str:
    return f"/lib/libhub{k}.so"


def recipe(programs: int = PROGRAMS, libraries: int = LIBRARIES, seed: int = SEED) -> list[list[Part]]:
    """The objects in build order, in batches that need only earlier batches."""
    pick = random.Random(seed)
    batches: list[list[Part]] = [[Part(GPL, "gpl_fn", (), ())]]
    batches.append([Part(hub(k), f"hub{k}_fn", (GPL,), ("gpl_fn",)) for k in range(HUBS)])
    function = {GPL: "gpl_fn", **{hub(k): f"hub{k}_fn" for k in range(HUBS)}}
    per_layer = libraries // LAYERS
    below: list[str] = []
    for layer in range(LAYERS):
        parts = []
        for i in range(per_layer if layer < LAYERS - 1 else libraries - per_layer * (LAYERS - 1)):
            device = f"/usr/lib/libu{layer}_{i}.so"
            needs = [hub(pick.randrange(HUBS))]
            if below:
                needs += pick.sample(below, min(len(below), pick.randint(1, 2)))
            calls = [function[n] for n in needs]
            if pick.random() < HIDDEN_SHARE:
                calls.append("gpl_fn")  # not declared: bound where a hub loaded libgpl
            function[device] = f"u{layer}_{i}_fn"
            parts.append(Part(device, function[device], tuple(needs), tuple(calls)))
        batches.append(parts)
        below = [p.device for p in parts]
    libs = [p.device for batch in batches[2:] for p in batch]
    progs = []
    for i in range(programs):
        needs = [hub(pick.randrange(HUBS)), *pick.sample(libs, pick.randint(1, 4))]
        progs.append(Part(f"/usr/bin/p{i:03}", "main", tuple(needs), tuple(function[n] for n in needs)))
    batches.append(progs)
    return batches


def _macros(part: Part) -> list[str]:
    decls = " ".join(f"extern int {f}(int);" for f in part.calls)
    calls = " + ".join(f"{f}(x)" for f in part.calls) or "x + 1"
    return [f"-DNAME={part.function}", f"-DDECLS={decls}", f"-DCALLS={calls}"]


def _build_part(root: Root, part: Part) -> None:
    if part.function == "main":
        root.exe(part.device, [SOURCES[1]], needs=part.needs, cflags=_macros(part), ldflags=LOOSE)
    else:
        root.lib(part.device, [SOURCES[0]], needs=part.needs, cflags=_macros(part))


def build(dest: Path, programs: int = PROGRAMS, libraries: int = LIBRARIES) -> Root:
    """Build the root at ``dest`` (two compilers at a time)."""
    root = Root(dest)
    root.install_glibc()
    root.lib_dirs += ["/lib", "/usr/lib"]
    (dest / "usr/lib").mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for batch in recipe(programs, libraries):
            list(pool.map(lambda part: _build_part(root, part), batch))
    return root


def fingerprint(programs: int, libraries: int) -> str:
    digest = hashlib.sha256(f"{programs}/{libraries}/{SEED}".encode())
    for path in (Path(__file__), *(FIXTURES / s for s in SOURCES)):
        digest.update(path.read_bytes())
    digest.update(subprocess.run([GCC, "--version"], capture_output=True, text=True).stdout.encode())
    stat = HOST_LIBC.stat()
    digest.update(f"{HOST_LIBC}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def cached(programs: int = PROGRAMS, libraries: int = LIBRARIES) -> tuple[Path, Path]:
    """The root (built once, then reused) and its licence overrides file."""
    base = cache_dir() / f"findings-scale-{fingerprint(programs, libraries)}"
    root = base / "root"
    if not root.is_dir():
        partial = base.with_name(base.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        build(partial / "root", programs, libraries)
        (partial / "licences.yaml").write_text(OVERRIDES)
        shutil.rmtree(base, ignore_errors=True)
        os.replace(partial, base)
    return root, base / "licences.yaml"
