"""The kernel fuzz targets: one kernel module's bytes read as the module stage reads them
(``kmod``: ``parse_module``), and one kernel file's bytes read for the kernel's exports
(``kimage``: a ``vmlinux`` ELF through its sections, anything else as a raw image through
vmlinux-to-elf's kallsyms and the search by shape).

The seeds are built from scratch (tests/support/ko_builder.py): modules with each export table
layout, a ``vmlinux`` and a raw image whose table is found by shape. A module must end as a
module or a ModuleReadError, an image as a KernelExports (found or not); within the harness's
time and memory per input (tests/fuzz/fuzz_harness.py)."""

from __future__ import annotations

from collections.abc import Callable

from fuzz_harness import ALARM_SECONDS, Stats, measured
from linkgraph.loader.elf.facts import is_elf
from linkgraph.loader.kmod.decompress import ModuleReadError
from linkgraph.loader.kmod.kernel_exports import from_image, from_vmlinux_bytes
from linkgraph.loader.kmod.ko import parse_module
from support.ko_builder import exporting_module, raw_image, vmlinux

TARGETS = ("kmod", "kimage")
_TABLES = {"alpha": "__ksymtab", "beta": "__ksymtab_gpl", "gamma": "__ksymtab"}
SYNTHETIC: dict[str, Callable[[], bytes]] = {
    "kmod-relative-namespace": lambda: exporting_module(_TABLES, relative=True, namespace=True),
    "kmod-relative": lambda: exporting_module(_TABLES, relative=True, namespace=False),
    "kmod-absolute": lambda: exporting_module(_TABLES, relative=False, namespace=False),
    "kmod-flags": lambda: exporting_module(
        dict.fromkeys(_TABLES, "__ksymtab"), relative=True, namespace=True, flags={"alpha": 0, "beta": 1, "gamma": 0}
    ),
    "kimage-vmlinux": lambda: vmlinux(["alpha", "beta", "gamma", "delta_gpl"]),
    "kimage-raw-shape": raw_image,
}


def kernel_seeds(target: str) -> dict[str, bytes]:
    """The seeds of ``target`` (``kmod`` or ``kimage``) by name."""
    return {f"synthetic:{name}": build() for name, build in SYNTHETIC.items() if name.startswith(target + "-")}


def check_kmod(data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> str | None:
    """parse_module on one input: the module's export layout, or None for a ModuleReadError."""
    found = measured(
        lambda: parse_module(data, "/lib/modules/fuzz/input.ko"), stats, "parse_module", alarm, (ModuleReadError,)
    )
    return None if found is None else found.layout.value


def check_kimage(data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> str:
    """The kernel's exports read from one input: where they came from ("none" when not found)."""

    def run() -> str:
        found = from_vmlinux_bytes(data, "/boot/vmlinux") if is_elf(data) else from_image(data, "Image")
        return found.source.value

    return measured(run, stats, "kernel exports", alarm, expected=()) or ""


CHECKS: dict[str, Callable[[bytes, Stats, float | None], object]] = {"kmod": check_kmod, "kimage": check_kimage}
