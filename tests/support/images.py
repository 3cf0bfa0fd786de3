"""The two real TP-Link TL-WR841N v11 router images of the shared firmware folder."""

from __future__ import annotations

from conftest import REPO

FIRMWARE = REPO.parent / "shared" / "firmware"
LEDE = FIRMWARE / "lede-17.01.4-ar71xx-tiny-tl-wr841-v11-squashfs-sysupgrade.bin"
FFULM = FIRMWARE / "ffulm-0.6.5-ar71xx-tiny-tl-wr841-v11-squashfs-factory-eu.bin"
