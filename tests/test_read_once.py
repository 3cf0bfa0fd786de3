"""ReadOnce (loader/report/read_once.py) answers the compliance report's repeated reads from what it read
once: on the article's root and on a real host program's root, every module's dependency graph and
file analysis through it are the store's own, and the named queries it keeps answer as the store does."""

from __future__ import annotations

from pathlib import Path

import pytest
from linkgraph.loader.report.analysis import dependency_graph, file_analysis
from linkgraph.loader.report.read_once import ReadOnce
from linkgraph.loader.store import open_store


@pytest.mark.parametrize("which", ["article_db", "host_db"])
def test_read_once_answers_as_the_store(which: str, request: pytest.FixtureRequest) -> None:
    found = request.getfixturevalue(which)
    db: Path = found[0] if isinstance(found, tuple) else found
    with open_store(db=str(db), read_only=True) as store:
        fw = store.query("firmware")[0]["id"]
        once = ReadOnce(store)
        paths = [r["path"] for r in store.query("module-paths", {"firmware": fw})]
        assert paths
        for path in paths:
            assert dependency_graph(once, fw, path) == dependency_graph(store, fw, path), path
            assert file_analysis(once, fw, path) == file_analysis(store, fw, path), path
            params = {"firmware": fw, "path": path}
            for name in ("link-map", "module"):
                assert once.query(name, params) == store.query(name, params), (name, path)
        wanted = {"firmware": fw, "paths": paths[::2]}
        rows = once.query("edges-from", wanted)
        direct = store.query("edges-from", wanted)
        listed = ("executables", "programs")
        assert [{k: list(v) if k in listed and v else v for k, v in r.items()} for r in rows] == direct
