"""The two real router images scan end to end from the .bin file alone (shared/firmware)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import linkgraph, linkgraph_cmd
from support.images import FFULM, LEDE

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


def _scan(image: Path, tmp_path: Path) -> tuple[int, dict]:
    assert image.is_file(), f"{image} is missing: the shared firmware folder is part of the workplace"
    db = tmp_path / "fw.lbdb"
    proc = linkgraph("scan", str(image), "--db", str(db), "--quiet")
    report = json.loads(linkgraph("report", "--db", str(db)).stdout)
    return proc.returncode, report


@pytest.mark.parametrize(
    ("image", "elf_files", "with_interp", "executables", "interpreters"),
    [
        (LEDE, 123, 39, 39, {"/lib/ld-musl-mips-sf.so.1"}),
        # uClibc's own libraries carry PT_INTERP "ld-uClibc.so.0" (relative) too: 48 programs + 7 libraries
        (FFULM, 219, 55, 48, {"/lib/ld-uClibc.so.0", "ld-uClibc.so.0"}),
    ],
)
def test_image_scans_from_the_bin_alone(
    image: Path, elf_files: int, with_interp: int, executables: int, interpreters: set[str], tmp_path: Path
) -> None:
    code, report = _scan(image, tmp_path)
    assert code == 0, report["problems"]
    source = report["firmware"]["source"]
    assert source["kind"] == "image" and source["root"].startswith("squashfs@")
    formats = [c["format"] for c in source["carved"]]
    assert "squashfs" in formats and formats[0].startswith("tplink")
    assert len(report["modules"]) == elf_files
    dynamic = [m for m in report["modules"] if m["interpreter"]]
    assert len(dynamic) == with_interp
    assert len([m for m in dynamic if m["kind"] == "executable"]) == executables
    assert {m["interpreter"] for m in dynamic} == interpreters
    assert all(m["machine"] == "EM_MIPS" and m["endian"] == "big" and m["class"] == 32 for m in report["modules"])
    assert len(report["link_maps"]) >= executables


def test_ebtables_finds_its_extensions_through_rpath(tmp_path: Path) -> None:
    _, report = _scan(FFULM, tmp_path)
    ebtables = next(m for m in report["modules"] if m["path"].endswith("/ebtables"))
    link_map = next(lm for lm in report["link_maps"] if lm["executable"] == ebtables["path"])
    extensions = [o for o in link_map["objects"] if o.startswith("/usr/lib/ebtables/")]
    assert len(extensions) == 21 and not link_map["missing"]
    needed = {d["soname"]: d for d in report["dependencies"] if d["from"] == ebtables["path"]}
    assert all(needed[Path(o).name]["to"] == o for o in extensions)


def test_an_image_scan_prints_nothing_of_its_dependencies(tmp_path: Path) -> None:
    """The installed command, run as a user runs it: unblob imports LIEF, whose bindings
    (nanobind) would list their "leaked" objects on stderr at interpreter exit."""
    proc = subprocess.run(
        [*linkgraph_cmd(), "scan", str(LEDE), "--db", str(tmp_path / "fw.lbdb")],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")},
    )
    assert proc.returncode == 0, proc.stderr
    assert "graph stored in" in proc.stderr  # linkgraph's own summary is there
    assert "nanobind" not in proc.stderr
    assert not [line for line in proc.stderr.splitlines() if line.startswith(" - leaked")]
