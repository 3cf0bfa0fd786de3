"""The real router images of the shared firmware folder: two TL-WR841N v11, one stock TL-MR3020 v1."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import REPO

# the shared firmware folder beside the checkout (LINKGRAPH_FIRMWARE_DIR for a checkout elsewhere)
FIRMWARE = Path(os.environ.get("LINKGRAPH_FIRMWARE_DIR", REPO.parent / "shared" / "firmware"))
LEDE = FIRMWARE / "lede-17.01.4-ar71xx-tiny-tl-wr841-v11-squashfs-sysupgrade.bin"
FFULM = FIRMWARE / "ffulm-0.6.5-ar71xx-tiny-tl-wr841-v11-squashfs-factory-eu.bin"
MR3020 = FIRMWARE / "tplink-mr3020v1-3.17.2-150921.bin"  # TP-Link's LZMA squashfs


def unpacked_root(workdir: Path) -> Path:
    """The unpacked root filesystem a scan with ``--workdir`` kept in ``workdir`` (the one folder
    holding bin/, etc/ and lib/)."""
    roots = [d for d in workdir.rglob("*") if d.is_dir() and all((d / sub).is_dir() for sub in ("bin", "etc", "lib"))]
    assert len(roots) == 1, roots
    return roots[0]
