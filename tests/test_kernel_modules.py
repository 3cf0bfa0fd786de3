"""Kernel modules as a linked graph, judged by Debian's real kernel packages (tests/support/kernel_debs.py):

* every module -> module dependency, closed transitively, equals what ``depmod -n`` (kmod)
  writes into ``modules.dep`` for the same tree: all 4022 modules of linux-image 6.1.0-50-amd64;
* every export's kind (GPL-only or not) read from the modules equals ``Module.symvers`` of the
  same build, and so do the kernel's own exports read from its ``vmlinuz``;
* a proprietary module compiled by Debian's kbuild against those headers, using one GPL-only and
  plain exports (modpost refuses to finish it: that refusal is checked too), is reported as using
  exactly that GPL-only symbol;
* modules compressed with xz, gzip and zstd read as the plain ones, and depmod agrees on the
  dependencies of the xz and zstd ones (Debian's kmod is built without zlib);
* on the LEDE image (MIPS, LZMA kernel in the image, no kallsyms) the kernel's exports found by
  shape, and the module edges, judged by depmod as well.

Hostile input (truncated modules, decompression bombs) is checked on small gcc-built objects.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import lzma
import random
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
import pyzstd
from conftest import linkgraph
from linkgraph.loader.kmod.decompress import ModuleReadError, read_module_bytes
from linkgraph.loader.kmod.kernel_exports import from_image
from linkgraph.loader.kmod.ko import read_module
from linkgraph.loader.kmod.ksymtab_scan import recover
from linkgraph.loader.kmod.model import KERNEL, ExportKind, KernelGraph, KernelSource
from linkgraph.loader.kmod.resolve import gpl_only_used, module_dependencies
from linkgraph.loader.kmod.stage import kernel_images, scan_kernel_modules
from linkgraph.loader.kmod.symvers import kernel_exports, read_symvers
from linkgraph.loader.model import Status
from linkgraph.loader.problems import ProblemCode
from linkgraph.loader.unpack import unpack
from support.images import LEDE
from support.kernel_debs import (
    GPL_ONLY_USED,
    MODPOST_REFUSAL,
    KernelDebs,
    build_proprietary_module,
    kernel_root,
    run,
)
from vmlinux_to_elf.core.auto_unpack import VmlinuzDecompressor


def depmod_deps(root: Path, release: str) -> dict[str, set[str]]:
    """modules.dep as ``depmod -n -b ROOT RELEASE`` writes it: device path -> every dependency."""
    out = run(["depmod", "-n", "-b", str(root), release]).stdout
    prefix = f"/lib/modules/{release}/"

    def device(name: str) -> str:
        return name if name.startswith("/") else prefix + name

    deps: dict[str, set[str]] = {}
    for line in out.splitlines():
        if line.startswith("#"):  # the next file (modules.alias ...) begins
            break
        module, _, rest = line.partition(":")
        deps[device(module)] = {device(d) for d in rest.split()}
    return deps


def closure(direct: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for start in direct:
        seen: set[str] = set()
        stack = list(direct[start])
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(direct.get(name, ()))
        out[start] = seen
    return out


def only_graph(root: Path, images: list[Path] | None = None) -> KernelGraph:
    result = scan_kernel_modules(root, images or [])
    assert len(result.graphs) == 1
    return result.graphs[0]


@pytest.fixture(scope="module")
def debs() -> KernelDebs:
    return kernel_root()


@pytest.fixture(scope="module")
def debian_graph(debs: KernelDebs) -> KernelGraph:
    return only_graph(debs.root)


@pytest.mark.slow
def test_module_edges_equal_depmod(debs: KernelDebs, debian_graph: KernelGraph) -> None:
    ours = closure(module_dependencies(debian_graph))
    theirs = depmod_deps(debs.root, debs.release)
    assert len(ours) >= 500
    assert set(ours) == set(theirs)
    differ = {m: (ours[m], theirs[m]) for m in ours if ours[m] != theirs[m]}
    assert not differ, f"{len(differ)} of {len(ours)} modules differ from depmod, e.g. {next(iter(differ.items()))}"
    with_deps = sum(1 for deps in theirs.values() if deps)
    assert with_deps > 1000  # the comparison is not between empty lists
    # a real kernel's depends= names exactly the modules its symbols bind to
    statuses = {e.status for e in debian_graph.edges}
    assert statuses == {Status.USED}
    assert debian_graph.kernel.source is KernelSource.SYMVERS
    assert not debian_graph.unresolved


@pytest.mark.slow
def test_gpl_marks_equal_module_symvers(debs: KernelDebs, debian_graph: KernelGraph) -> None:
    entries, bad = read_symvers(debs.symvers)
    assert not bad
    prefix = f"/lib/modules/{debs.release}/kernel/"
    symvers = {(e.module, e.symbol): e.kind for e in entries if e.module != KERNEL}
    ours = {
        (m.path.removeprefix(prefix).removesuffix(".ko"), x.name): x.kind
        for m in debian_graph.modules
        for x in m.exports
    }
    assert len(ours) > 10000
    assert ours == {k: v for k, v in symvers.items() if k in ours}
    shipped = {m.path.removeprefix(prefix).removesuffix(".ko") for m in debian_graph.modules}
    assert {k for k in symvers if k[0] in shipped} == set(ours)
    assert {k.gpl_only for k in ours.values()} == {True, False}
    # every bound symbol carries the mark of the export it binds to
    kernel = kernel_exports(entries)
    by_symbol = {k[1]: v for k, v in symvers.items()} | kernel
    marks = [(s.name, s.kind) for e in debian_graph.edges for s in e.symbols]
    assert len(marks) > 100000
    assert all(by_symbol[name] is kind for name, kind in marks)


@pytest.mark.slow
def test_kernel_image_exports_equal_module_symvers(debs: KernelDebs) -> None:
    """The kernel's own export tables read from the shipped vmlinuz (decompressed by
    vmlinux-to-elf, tables read from the ELF inside) are Module.symvers' vmlinux lines."""
    entries, _ = read_symvers(debs.symvers)
    image = debs.root / "boot" / f"vmlinuz-{debs.release}"
    found = from_image(image.read_bytes(), image.name)
    assert found.source is KernelSource.IMAGE, found.detail
    assert found.exports == kernel_exports(entries)
    assert len(found.exports) > 10000


@pytest.mark.slow
def test_raw_kernel_exports_through_kallsyms(debs: KernelDebs, tmp_path: Path) -> None:
    """The same kernel as a raw image without ELF headers (``objcopy -O binary`` of the ELF inside
    vmlinuz): vmlinux-to-elf recovers kallsyms, whose table bounds locate the export tables;
    they equal Module.symvers' vmlinux lines."""
    entries, _ = read_symvers(debs.symvers)
    image = debs.root / "boot" / f"vmlinuz-{debs.release}"
    elf = tmp_path / "vmlinux"
    elf.write_bytes(VmlinuzDecompressor(image.read_bytes()).decompressed)
    raw = tmp_path / "Image"
    run(["objcopy", "-O", "binary", str(elf), str(raw)])
    found = from_image(raw.read_bytes(), raw.name)
    assert found.source is KernelSource.IMAGE and "via kallsyms" in found.detail, found.detail
    assert found.exports == kernel_exports(entries)


def _root_with(debs: KernelDebs, root: Path, modules: dict[str, Path]) -> Path:
    """A root holding ``modules`` (relative path -> file) and the build's Module.symvers."""
    for rel, file in modules.items():
        dest = root / "lib" / "modules" / debs.release / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, dest)
    symvers = root / debs.symvers.relative_to(debs.root)
    symvers.parent.mkdir(parents=True)
    shutil.copyfile(debs.symvers, symvers)
    return root


@pytest.mark.slow
def test_proprietary_module_uses_gpl_only(debs: KernelDebs, tmp_path: Path) -> None:
    ko, modpost = build_proprietary_module(debs, tmp_path / "build")
    assert MODPOST_REFUSAL in modpost  # the build's own judge refuses it for the same symbol
    root = _root_with(debs, tmp_path / "root", {"extra/prop.ko": ko})
    graph = only_graph(root)
    path = f"/lib/modules/{debs.release}/extra/prop.ko"
    assert gpl_only_used(graph) == {path: [GPL_ONLY_USED]}
    (edge,) = [e for e in graph.edges if e.source == path]
    assert edge.target == KERNEL and edge.status is Status.USED
    plain = [s.name for s in edge.symbols if not s.gpl_only]
    assert "kmalloc_trace" in plain and edge.gpl_only == [GPL_ONLY_USED]
    assert graph.modules[0].licence == "Proprietary"


PROBE_SOURCE = """\
extern void *cryptd_alloc_aead(const char *, unsigned int, unsigned int);
void *probe(void) { return cryptd_alloc_aead("x", 0, 0); }
static const char l[] __attribute__((section(".modinfo"), used)) = "license=GPL";
static const char d[] __attribute__((section(".modinfo"), used)) = "depends=twofish_common,no-such-module";
"""


@pytest.mark.slow
def test_hidden_declared_unused_and_missing(debs: KernelDebs, tmp_path: Path) -> None:
    """A module (gcc-built) binding to cryptd without naming it, and naming twofish_common (which
    it does not use) and a module that does not exist, among Debian's crypto modules: depmod
    lists cryptd (and what cryptd needs) as its dependencies, modinfo reads its depends=; the
    edges are hidden, declared-unused and missing."""
    (tmp_path / "probe.c").write_text(PROBE_SOURCE)
    obj = tmp_path / "probe.ko"
    subprocess.run(["gcc", "-c", "-O1", "-fno-pic", "-o", str(obj), str(tmp_path / "probe.c")], check=True)
    crypto = debs.modules / "kernel" / "crypto"
    modules = {f"kernel/crypto/{f.name}": f for f in crypto.glob("*.ko")} | {"extra/probe.ko": obj}
    root = _root_with(debs, tmp_path / "root", modules)
    graph = only_graph(root)
    base = f"/lib/modules/{debs.release}/"
    probe = base + "extra/probe.ko"
    assert (
        run(["modinfo", "-F", "depends", str(root / probe.lstrip("/"))]).stdout.strip()
        == "twofish_common,no-such-module"
    )
    theirs = depmod_deps(root, debs.release)
    assert base + "kernel/crypto/cryptd.ko" in theirs[probe]
    assert closure(module_dependencies(graph)) == theirs
    edges = {(e.target, e.status) for e in graph.edges if e.source == probe}
    assert edges == {
        (base + "kernel/crypto/cryptd.ko", Status.HIDDEN),
        (base + "kernel/crypto/twofish_common.ko", Status.DECLARED_UNUSED),
        ("no_such_module", Status.MISSING),
    }


def _json(proc: subprocess.CompletedProcess) -> list[dict]:
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_both_stores_give_the_same_kernel_answers(
    debs: KernelDebs, tmp_path: Path, neo4j_server: Any, neo4j_env: dict[str, str]
) -> None:
    """The crypto modules (one stored as .ko.xz) and the proprietary module, with Module.symvers,
    scanned into LadybugDB and into Neo4j: kernel-links, kernel-gpl-only-used and the report's
    kernel_links are the same in both, and what loader.kmod resolved without a store."""
    ko, _ = build_proprietary_module(debs, tmp_path / "build")
    crypto = sorted((debs.modules / "kernel" / "crypto").glob("*.ko"))
    modules = {f"kernel/crypto/{f.name}": f for f in crypto} | {"extra/prop.ko": ko}
    root = _root_with(debs, tmp_path / "root", modules)
    cryptd = root / "lib" / "modules" / debs.release / "kernel" / "crypto" / "cryptd.ko"
    (cryptd.parent / "cryptd.ko.xz").write_bytes(lzma.compress(cryptd.read_bytes()))
    cryptd.unlink()
    graph = only_graph(root)
    vmlinux = kernel_exports(read_symvers(debs.symvers)[0])
    embedded = ["--db", str(tmp_path / "graph.lbdb")]
    server = ["--neo4j", neo4j_server.uri]
    answers = []
    name = f"kernel-crypto-{tmp_path.name}"  # the session's Neo4j server holds other tests' firmware too
    for store in (embedded, server):
        scan = linkgraph("scan", str(root), *store, "--name", name, "--quiet", env=neo4j_env)
        assert scan.returncode == 0
        which = [*store, "--firmware", name]
        links = _json(linkgraph("query", "kernel-links", *which, "--json", env=neo4j_env))
        gpl = _json(linkgraph("query", "kernel-gpl-only-used", *which, "--json", env=neo4j_env))
        report = json.loads(linkgraph("report", *which, env=neo4j_env).stdout)
        kernels = _json(linkgraph("query", "kernel-exports", *which, "--json", env=neo4j_env))
        assert [(k["source"], k["exports"]) for k in kernels] == [("Module.symvers", len(vmlinux))]
        answers.append((sorted(links, key=json.dumps), gpl, report["kernel_links"], kernels))
    assert answers[0] == answers[1]
    links, gpl, report_links, _kernels = answers[0]
    path = f"/lib/modules/{debs.release}/extra/prop.ko"
    assert gpl == [{"module": path, "licence": "Proprietary", "provider": KERNEL, "symbols": [GPL_ONLY_USED]}]
    assert {r["module"]: r["symbols"] for r in gpl} == gpl_only_used(graph)
    ours = sorted((e.source, e.target, e.status.value, [s.name for s in e.symbols], e.gpl_only) for e in graph.edges)
    stored = sorted((r["module"], r["target"], r["state"], r["symbols"], r["gpl_only"]) for r in links)
    assert stored == ours
    assert len(report_links) == len(graph.edges) > 100
    assert any(r["target"].endswith("cryptd.ko.xz") for r in links)
    html = linkgraph("report", *embedded, "--format", "html").stdout
    section = html.split('<section id="kernel-gpl-only"', 1)[1].split("<section", 1)[0]
    assert path in section and f'<span class="symbols">{GPL_ONLY_USED}</span>' in section
    assert section.count("<tr>") == 2  # the header and the one module


COMPRESSORS = {".xz": lzma.compress, ".zst": pyzstd.compress, ".gz": gzip.compress}


@pytest.mark.slow
def test_compressed_modules(debs: KernelDebs, debian_graph: KernelGraph, tmp_path: Path) -> None:
    """The crypto and net/netfilter modules stored as .ko.xz and .ko.zst in turn: the same modules,
    exports and edges, and depmod (which reads both) agrees on the dependencies. Debian's kmod is
    built without zlib, so .ko.gz is checked against the plain modules only."""
    base = f"/lib/modules/{debs.release}/"
    chosen = [
        m for m in debian_graph.modules if m.path.startswith((base + "kernel/crypto/", base + "kernel/net/netfilter/"))
    ]
    assert len(chosen) > 100
    plain = {m.path: m for m in chosen}
    for suffixes, root in (([".xz", ".zst"], tmp_path / "xz-zst"), ([".gz"], tmp_path / "gz")):
        for i, module in enumerate(chosen):
            suffix = suffixes[i % len(suffixes)]
            dest = root / (module.path.lstrip("/") + suffix)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(COMPRESSORS[suffix]((debs.root / module.path.lstrip("/")).read_bytes()))
        graph = only_graph(root)
        assert len(graph.modules) == len(chosen)
        for module in graph.modules:
            original = plain[module.path.rsplit(".", 1)[0]]
            assert (module.name, module.exports, module.undefined) == (
                original.name,
                original.exports,
                original.undefined,
            )
        if ".gz" not in suffixes:
            assert {m.compression for m in graph.modules} == {"xz", "zstd"}
            assert closure(module_dependencies(graph)) == depmod_deps(root, debs.release)


def _depmod_unknown(root: Path, release: str, exports: dict[str, ExportKind], tmp: Path) -> str:
    """depmod's -e report of symbols neither the kernel (``exports``, as a Module.symvers) nor a
    module supplies."""
    symvers = tmp / "kernel.symvers"
    symvers.write_text("".join(f"0x00000000\t{n}\tvmlinux\t{k.value}\t\n" for n, k in sorted(exports.items())))
    proc = run(["depmod", "-n", "-e", "-E", str(symvers), "-b", str(root), release])
    return "\n".join(line for line in proc.stderr.splitlines() if "modules.order" not in line)


@pytest.mark.slow
def test_lede_image(tmp_path: Path) -> None:
    """LEDE 17.01.4 (Linux 4.4.92, MIPS big-endian, 54 modules in /lib/modules/4.4.92): no
    Module.symvers, no vmlinux; the kernel is LZMA in the image, and its decompressed image has
    no kallsyms (CONFIG_KALLSYMS is off in the "tiny" target: vmlinux-to-elf finds none, and that
    is recorded), so the export tables are found by their shape. Judged by depmod: the module ->
    module edges equal modules.dep, and with the recovered exports as the kernel's
    (``depmod -e -E``) no module needs a symbol nothing supplies; one export taken out, depmod
    names it."""
    unpacked = unpack(LEDE, tmp_path / "work")
    (root,) = unpacked.roots
    images = kernel_images(tmp_path / "work", [root.path])
    assert images, "the decompressed kernel is not among the unpacked files"
    result = scan_kernel_modules(root.path, images)
    (graph,) = result.graphs
    assert len(graph.modules) == 54
    assert graph.kernel.source is KernelSource.IMAGE
    assert "no kallsyms" in graph.kernel.detail and "by shape" in graph.kernel.detail
    print(graph.kernel.detail)
    assert result.problems == []
    assert not graph.unresolved
    ours = closure(module_dependencies(graph))
    assert ours == depmod_deps(root.path, "4.4.92")
    assert sum(len(d) for d in ours.values()) > 20
    assert {e.status for e in graph.edges} == {Status.USED}
    kernel_edges = [e for e in graph.edges if e.target == KERNEL]
    assert len(kernel_edges) > 40
    assert _depmod_unknown(root.path, "4.4.92", graph.kernel.exports, tmp_path) == ""
    used = kernel_edges[0].symbols[0].name
    fewer = {n: k for n, k in graph.kernel.exports.items() if n != used}
    assert used in _depmod_unknown(root.path, "4.4.92", fewer, tmp_path)


# --------------------------------------------------------------------------- hostile input

MODULE_SOURCE = """\
extern int printk(const char *, ...);
extern void __attribute__((weak)) maybe(void);
int answer(void) { printk("x"); if (maybe) maybe(); return 42; }
static const char licence[] __attribute__((section(".modinfo"), used)) = "license=GPL";
static const char deps[] __attribute__((section(".modinfo"), used)) = "depends=a-b,c";
"""


def _small_module(tmp: Path) -> Path:
    (tmp / "m.c").write_text(MODULE_SOURCE)
    subprocess.run(["gcc", "-c", "-O1", "-fno-pic", "-o", str(tmp / "m.ko"), str(tmp / "m.c")], check=True)
    return tmp / "m.ko"


def test_small_module_read(tmp_path: Path) -> None:
    module = read_module(_small_module(tmp_path), "/m.ko")
    assert (module.name, module.licence, module.depends) == ("m", "GPL", ["a_b", "c"])
    assert {(u.name, u.weak) for u in module.undefined} == {("printk", False), ("maybe", True)}
    assert module.exports == []


def test_truncated_module_is_a_record(tmp_path: Path) -> None:
    data = _small_module(tmp_path).read_bytes()
    cut = tmp_path / "cut.ko"
    for size in range(0, len(data), max(1, len(data) // 97)):
        cut.write_bytes(data[:size])
        with contextlib.suppress(ModuleReadError):
            read_module(cut, "/cut.ko")


def test_search_by_shape_on_noise() -> None:
    """Random bytes, a run of names nothing points at, and nothing: no table, no exception."""
    rng = random.Random(14)
    noise = bytes(rng.getrandbits(8) for _ in range(1 << 16))
    names = b"".join(b"sym_%d\0" % i for i in range(500))
    for data in (b"", noise, noise + names + noise):
        assert recover(data) is None


def test_decompression_bomb_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.ko.xz"
    bomb.write_bytes(lzma.compress(b"\0" * (8 << 20)))
    with pytest.raises(ModuleReadError, match="more than"):
        read_module_bytes(bomb, limit=1 << 20)
    result = scan_kernel_modules(tmp_path)
    assert [p.code for p in result.problems] == [ProblemCode.KMOD_UNREADABLE]


# --------------------------------------------------------------------------- export table layouts
# Modules built with gcc whose export entries are written the way each kernel generation writes
# them (include/linux/export.h, export-internal.h; the __kflagstab series), then linked with
# ``ld -r`` and the module linker script's rules for these sections (scripts/module.lds.S). No
# packaged kernel has the flags table, so these check the reader against the declared kinds.


def _entry(name: str, table: str, relative: bool, namespace: bool) -> str:
    word = ".long" if relative else ".quad"
    minus = " - ." if relative else ""
    fields = [f"{word} {name}{minus}", f"{word} __kstrtab_{name}{minus}"]
    if namespace:
        fields.append(f"{word} __kstrtabns_{name}{minus}")
    body = "\\n".join(fields)
    strings = f'__kstrtab_{name}: .asciz \\"{name}\\"\\n__kstrtabns_{name}: .asciz \\"\\"'
    return (
        f'asm(".section \\"{table}+{name}\\",\\"a\\"\\n.balign 4\\n{body}\\n.previous\\n");\n'
        f'asm(".section \\"__ksymtab_strings\\",\\"aMS\\",@progbits,1\\n{strings}\\n.previous\\n");\n'
    )


LAYOUT_SCRIPT = """\
SECTIONS {
  __ksymtab 0 : ALIGN(8) { *(SORT(___ksymtab+*)) }
  __ksymtab_gpl 0 : ALIGN(8) { *(SORT(___ksymtab_gpl+*)) }
  __kflagstab 0 : ALIGN(1) { *(SORT(___kflagstab+*)) }
}
"""
EXPORTS = {"zeta_plain": False, "alpha_gpl": True, "mid_gpl": True, "beta_plain": False}


@pytest.mark.parametrize(
    ("layout", "relative", "namespace"),
    [("flags", True, True), ("sections", True, True), ("sections", True, False), ("sections", False, False)],
)
def test_export_table_layouts(tmp_path: Path, layout: str, relative: bool, namespace: bool) -> None:
    source = "".join(f"int {name}(void) {{ return {i}; }}\n" for i, name in enumerate(EXPORTS))
    for name, gpl in EXPORTS.items():
        if layout == "flags":
            source += _entry(name, "___ksymtab", relative, namespace)
            flag = "0x01" if gpl else "0x00"
            source += f'asm(".section \\"___kflagstab+{name}\\",\\"a\\"\\n.byte {flag}\\n.previous\\n");\n'
        else:
            source += _entry(name, "___ksymtab_gpl" if gpl else "___ksymtab", relative, namespace)
    source += 'static const char l[] __attribute__((section(".modinfo"), used)) = "license=GPL";\n'
    (tmp_path / "e.c").write_text(source)
    (tmp_path / "module.lds").write_text(LAYOUT_SCRIPT)
    obj, ko = tmp_path / "e.o", tmp_path / "e.ko"
    subprocess.run(["gcc", "-c", "-O1", "-fno-pic", "-o", str(obj), str(tmp_path / "e.c")], check=True)
    subprocess.run(["ld", "-r", "-T", str(tmp_path / "module.lds"), "-o", str(ko), str(obj)], check=True)
    module = read_module(ko, "/e.ko")
    assert module.layout.value == layout
    kinds = {e.name: e.kind.gpl_only for e in module.exports}
    assert kinds == EXPORTS
    if layout == "flags":  # one table sorted by name, the flags in the same order
        assert [e.name for e in module.exports] == sorted(EXPORTS)


def test_corrupt_section_headers_are_a_record(tmp_path: Path) -> None:
    """Every field of every section header of a module with exports and relocations set to 0, to
    a value past the file, and to the largest value: each read gives a module or a
    ModuleReadError, nothing else."""
    test_export_table_layouts(tmp_path, "sections", True, True)
    data = bytearray((tmp_path / "e.ko").read_bytes())
    shoff, shentsize, shnum = struct.unpack_from("<Q", data, 0x28)[0], *struct.unpack_from("<HH", data, 0x3A)
    fields = [
        (4, "I"),
        (0x18, "Q"),
        (0x20, "Q"),
        (0x28, "I"),
        (0x2C, "I"),
        (0x38, "Q"),
    ]  # type offset size link info entsize
    cut = tmp_path / "cut.ko"
    outcomes = set()
    for index in range(shnum):
        for at, fmt in fields:
            for value in (0, len(data) + 1, (1 << (8 * struct.calcsize(fmt))) - 1):
                bad = bytearray(data)
                struct.pack_into("<" + fmt, bad, shoff + index * shentsize + at, value)
                cut.write_bytes(bad)
                try:
                    read_module(cut, "/cut.ko")
                    outcomes.add("read")
                except ModuleReadError:
                    outcomes.add("refused")
    assert outcomes == {"read", "refused"}
