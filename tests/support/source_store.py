"""The TL-MR3020 v1 firmware scanned with its GPL release (``scan --source``, docs/sources.md), once a
session, for the tests of the check's surfaces: the viewer (tests/test_viewer_sources.py) and the
compliance report (tests/test_compliance_sources.py). Registered by conftest.py as a plugin.

The image is the shared one (support.images), the release the shared archive (support.source_judge:
one configurable path, never copied into the repository); the release's index is cached by linkgraph
itself ($LINKGRAPH_CACHE/sources), so a second session reads it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph

from .images import MR3020
from .source_judge import MR3020_RELEASE

MSGLOG = "/lib/libmsglog.so"
BUSYBOX = "/bin/busybox"


def query(db: Path, name: str, **params: str) -> list[dict[str, Any]]:
    """A named query's rows through the CLI (the back end's own answer)."""
    args = [a for k, v in params.items() for a in ("--param", f"{k}={v}")]
    return json.loads(linkgraph("query", name, "--db", str(db), *args, "--json", "--quiet").stdout)


@pytest.fixture(scope="session")
def mr3020_checked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LadybugDB store with the MR3020 image scanned and checked against its release."""
    db = tmp_path_factory.mktemp("mr3020-source") / "graph.lbdb"
    linkgraph("scan", str(MR3020), "--db", str(db), "--quiet", "--source", str(MR3020_RELEASE))
    return db
