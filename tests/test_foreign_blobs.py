"""Foreign blobs are not errors: an ELF file that cannot be parsed, is not for the root's CPU and
that no loader of the root opens is inventoried as other ELF with an ``elf-foreign`` warning, and a
scan whose only trouble is such files exits 0 (README: exit codes).

The blobs are laid out as Qualcomm's DSP images are: ``/lib/firmware/IPQ8074/q6_fw.mdt`` holds the
ELF header and program headers of a Hexagon (``EM_QDSP6``) image, its segments' bytes are in
``q6_fw.b00`` beside it; ``m3_fw.mdt`` is an i386 one. A second root adds the cases that stay
``elf-unusable`` errors: the same split for the root's own CPU, a foreign blob a program's
DT_NEEDED names, and one named as a kernel module. GNU readelf says which machine each file is for;
the programs' link maps are compared with the root's own ld.so.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from support.elf_builder import build_elf
from support.fixture_root import Root, Scan, assert_matches_real_loader, real_loader, scan, two_library_root

EM_386, EM_X86_64, EM_QDSP6 = 3, 62, 164
FIRMWARE = "/lib/firmware/IPQ8074"
FOREIGN = {f"{FIRMWARE}/q6_fw.mdt": EM_QDSP6, f"{FIRMWARE}/m3_fw.mdt": EM_386}
OWN_CPU_BLOB = "/lib/firmware/own_fw.mdt"
NEEDED_BLOB = "/usr/lib/libq6.so"
MODULE_BLOB = "/lib/modules/4.4.60/q6_dsp.ko"
DSP_PROGRAM = "/usr/bin/dspctl"


def split_image(root: Root, device: str, machine: int) -> None:
    """A 32-bit ELF image cut after its program headers (the ``.mdt``), the rest of its bytes in
    the ``.b00`` file beside it."""
    whole = build_elf(is64=False, machine=machine, e_type=2)
    headers = 52 + 2 * 32  # the ELF header and its two program headers
    root.host(device).parent.mkdir(parents=True, exist_ok=True)
    root.host(device).write_bytes(whole[:headers])
    root.host(device).with_suffix(".b00").write_bytes(whole[headers:])


def readelf_machine(path: Path) -> str:
    out = subprocess.run(["readelf", "-h", str(path)], capture_output=True, text=True).stdout
    found = re.search(r"^\s*Machine:\s*(.+)$", out, re.M)
    assert found, out
    return found.group(1).strip()


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Root, Scan, Root, Scan]:
    base = tmp_path_factory.mktemp("blobs")
    root = two_library_root(base / "root")
    for device, machine in FOREIGN.items():
        split_image(root, device, machine)
    other = root.clone(base / "other")
    split_image(other, OWN_CPU_BLOB, EM_X86_64)
    split_image(other, MODULE_BLOB, EM_QDSP6)
    stub = other.stub("libq6.so", ["loader_rules/onefn.c"], cflags=["-DFN=q6_fn"])
    other.exe(DSP_PROGRAM, ["loader_rules/onefn.c"], cflags=["-DFN=main"], needs=[stub])
    split_image(other, NEEDED_BLOB, EM_QDSP6)
    return root, scan(root, base / "db"), other, scan(other, base / "db-other")


def test_readelf_says_the_blobs_are_for_another_cpu(roots: tuple[Root, Scan, Root, Scan]) -> None:
    root, result, _, _ = roots
    own = readelf_machine(root.host("/usr/bin/prog"))
    for device in FOREIGN:
        assert readelf_machine(root.host(device)) != own
        module = result.module(device)
        assert module["kind"] == "other-elf" and module["machine"] != result.module("/usr/bin/prog")["machine"]
        assert module["class"] == 32


def test_a_root_whose_only_trouble_is_foreign_blobs_exits_0(roots: tuple[Root, Scan, Root, Scan]) -> None:
    _, result, _, _ = roots
    assert result.rc == 0
    assert not result.problems("error"), result.problems("error")
    notes = {(p["path"], p["code"], p["severity"]) for p in result.problems()}
    assert notes == {(device, "elf-foreign", "warning") for device in FOREIGN}
    paths = {m["path"] for m in result.report["modules"]}
    assert not {d.replace(".mdt", ".b00") for d in FOREIGN} & paths  # the data files are no ELF files
    assert all(d not in m["objects"] for m in result.report["link_maps"] for d in FOREIGN)


def test_blobs_a_loader_may_open_or_for_the_roots_cpu_stay_errors(roots: tuple[Root, Scan, Root, Scan]) -> None:
    _, _, other, result = roots
    assert readelf_machine(other.host(OWN_CPU_BLOB)) == readelf_machine(other.host("/usr/bin/prog"))
    assert result.module(DSP_PROGRAM)["needed"][0] == "libq6.so"
    errors = {(p["path"], p["code"]) for p in result.problems("error")}
    assert errors == {(p, "elf-unusable") for p in (OWN_CPU_BLOB, NEEDED_BLOB, MODULE_BLOB)}
    foreign = {p["path"] for p in result.problems() if p["code"] == "elf-foreign"}
    assert foreign == set(FOREIGN)
    assert result.rc == 1
    paths = {m["path"] for m in result.report["modules"]}
    assert not {OWN_CPU_BLOB, NEEDED_BLOB, MODULE_BLOB} & paths


def test_the_programs_link_maps_are_the_real_loaders(roots: tuple[Root, Scan, Root, Scan]) -> None:
    root, result, other, other_result = roots
    assert_matches_real_loader(result, real_loader(root, "/usr/bin/prog"))
    assert_matches_real_loader(other_result, real_loader(other, "/usr/bin/prog"))


def test_worker_processes_give_the_same_answer(roots: tuple[Root, Scan, Root, Scan], tmp_path: Path) -> None:
    root, result, _, _ = roots
    parallel = scan(root, tmp_path / "db", extra=["--jobs", "2"])
    assert parallel.rc == result.rc == 0
    assert parallel.report["modules"] == result.report["modules"]
    assert parallel.report["problems"] == result.report["problems"]
