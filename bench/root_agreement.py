"""One unpacked root judged by its own loader under qemu-user, and its scan's cost (issue 38).

    python bench/root_agreement.py ROOT [--memory BYTES] [--examples K] [--no-cache]

ROOT is a root filesystem already unpacked (the device's ``/``; any architecture qemu-user runs,
glibc, musl or uClibc). The root stays where it is: nothing of it goes into the repository. Printed:

* the scan: ``linkgraph scan ROOT`` and ``linkgraph scan ROOT --no-identify``, each under an address
  space cap (``prlimit --as``, 8 GB by default), their exit status, wall and CPU time and peak resident
  memory (os.wait4's rusage), and the ratio of the two times;
* link maps: every dynamic program (and, for glibc and musl, every other link-map root of the report)
  traced by the root's own loader in a chroot of a hard-linked copy (tests/support/vendor_roots.py's
  ``check_root``, the check of the stock vendor roots), equal / total;
* for glibc: cross-object bindings (``LD_DEBUG=bindings``) recall and precision, and ``ldd -u``
  (``LD_DEBUG=unused``) per program, through ``glibc_bindings`` and oracle.py's ``compare_report``;
* licence finding (a): the rows of ``linkgraph query licence-gpl-used-by`` against the independent
  judge's (tests/support/findings_judge.py).

The loader's output is cached outside the repository (``~/.cache/linkgraph-tests/root-agreement/``),
keyed by the root's path, its files' sizes and times, and the qemu binary. Exit status 0 when every
criterion agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from findings_scale import GIB, run
from support import qemu_oracle as qo
from support import vendor_roots as tvr
from support.findings_judge import Judge, differences, query_rows
from support.hostroot import cache_dir


def root_key(root: Path) -> str:
    """A digest of the root's path and of every file's path, size and modification time."""
    digest = hashlib.sha256(str(root.resolve()).encode())
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            st = os.lstat(os.path.join(dirpath, name))
            digest.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def timed_scan(command: str, root: Path, db: Path, memory: int, *extra: str) -> dict:
    cmd = ["prlimit", f"--as={memory}", "--", command, "scan", str(root), "--db", str(db), "--quiet", *extra]
    wall, cpu, peak, code = run(cmd)
    return {"exit": code, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_gib": round(peak / GIB, 2)}


def linkgraph_json(command: str, *args: str) -> object:
    out = subprocess.run([command, *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def spec_of(root: Path, name: str) -> tvr.VendorRoot:
    """The root's loader kind and qemu target, from its dynamic programs (the most common ones)."""
    elves = qo.walk_elf(root)
    programs = qo.dynamic_executables(elves, sonameless_pie=True)
    if not programs:
        raise qo.OracleError(f"{root}: no dynamic program")
    kind = Counter(qo.loader_kind(elves[p].interpreter) for p in programs).most_common(1)[0][0]
    first = elves[programs[0]]
    qemu = qo.QEMU_ARCH.get((first.machine, first.elf_class, first.endian))
    if qemu is None:
        raise qo.OracleError(f"no qemu-user target for {first.machine}/{first.elf_class}/{first.endian}")
    return tvr.VendorRoot(name, kind, qemu, len(programs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--memory", type=int, default=8_000_000_000, help="address space cap of each scan")
    parser.add_argument("--examples", type=int, default=5, help="differences listed per criterion")
    parser.add_argument("--no-cache", action="store_true", help="run the loader again")
    parser.add_argument("--scanned", type=Path, help="a database of the root already scanned: no scan is timed")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    command = shutil.which("linkgraph", path=str(Path(sys.executable).parent)) or "linkgraph"
    print(f"{root}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    ok = True
    with tempfile.TemporaryDirectory(prefix="root-agreement-") as tmp:
        work = Path(tmp)
        db = args.scanned or work / "graph.lbdb"
        if args.scanned is None:
            full = timed_scan(command, root, db, args.memory)
            bare = timed_scan(command, root, work / "bare.lbdb", args.memory, "--no-identify")
            ratio = full["wall_s"] / bare["wall_s"] if bare["wall_s"] else float("nan")
            cpu_ratio = full["cpu_s"] / bare["cpu_s"] if bare["cpu_s"] else float("nan")
            print(f"scan: {full}\nscan --no-identify: {bare}", flush=True)
            print(f"  time ratio {ratio:.2f} (CPU time {cpu_ratio:.2f})", flush=True)
            if full["exit"] not in (0, 1):
                print("verdict: FAIL (the scan did not finish)")
                return 1
            ok = ok and full["peak_gib"] <= 1.5 and ratio <= 2.0
        report = linkgraph_json(command, "report", "--db", str(db), "--format", "json")
        assert isinstance(report, dict)

        spec = spec_of(root, root.name)
        qemu = tvr.qemu_host_binary(spec.qemu)
        key = f"{root_key(root)[:20]}-{tvr.sha256_of(qemu)[:20]}-v{tvr.TRACE_CACHE_VERSION}"
        cache_file = work / "traces.json" if args.no_cache else cache_dir() / "root-agreement" / f"{key}.json"
        check = tvr.check_root(spec, root, report, work / "oracle", cache_file)
        print(check.figures(), flush=True)
        for label, agreement in (("programs", check.agreement), ("other roots", check.others_agreement)):
            print(f"  link maps ({label}): {agreement.summary()}")
            for text in list(agreement.differences.values())[: args.examples]:
                print(f"  [{label}] " + text.replace("\n", "\n    "))
            ok = ok and not agreement.differences
        if check.errors:
            print(f"  error problems the device's loader does not share: {check.errors[: args.examples]}")
        if spec.kind == "glibc":
            t0 = time.monotonic()
            agreement = tvr.glibc_bindings(check)
            print(agreement.summary(args.examples))
            print(
                f"  bindings recall {agreement.recall:.4%} precision {agreement.precision:.4%}"
                f" ({agreement.oracle_bindings} ld.so, {agreement.our_bindings} linkgraph,"
                f" {agreement.common_bindings} common); ldd -u equal"
                f" {agreement.executables - len(agreement.unused_diffs)}/{agreement.executables};"
                f" {time.monotonic() - t0:.1f}s",
                flush=True,
            )
            ok = ok and not agreement.binding_diffs and not agreement.unused_diffs

        t0 = time.monotonic()
        found = linkgraph_json(command, "query", "licence-gpl-used-by", "--db", str(db), "--json")
        assert isinstance(found, list)
        rows = query_rows(found)
        want = Judge(report, root).rows()
        diff = differences(str(root), want, rows, "linkgraph")
        print(f"finding (a): linkgraph {len(rows)} rows, judge {len(want)}: {diff or 'equal'};"
              f" {time.monotonic() - t0:.1f}s")  # fmt: skip
        ok = ok and not diff
    print(f"verdict: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
