"""Archives built in memory for tests: a tar (any compression tarfile writes) or a zip of the given
members, each a regular file."""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterable


def tar_bytes(members: Iterable[tuple[str, bytes]], mode: str = "w", fmt: int = tarfile.GNU_FORMAT) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode, format=fmt) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def zip_bytes(members: Iterable[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()
