"""The identification's child process (loader/identify/matching.py) gives the same hits as the
matching done in the scan's own process, whatever folder the scan runs in: a folder there named
like one of linkgraph's packages (the repository's own ``linkgraph/``, or one in a firmware folder
a user scans from) is never imported in its place."""

from __future__ import annotations

from pathlib import Path

import pytest
from linkgraph.loader.identify.matching import Matching, match_paths
from linkgraph.loader.problems import Problem
from linkgraph.loader.rootfs import RootFS
from support.identify_root import DNSMASQ, MEDIATOOL, build_identify_root


class _AlwaysChild(Matching):
    CHILD_BYTES = 1  # any root is matched by the child process


def test_child_hits_equal_in_process_hits_from_a_shadowing_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = RootFS(str(build_identify_root(tmp_path / "root").path))
    paths = [DNSMASQ, MEDIATOOL]
    decoy = tmp_path / "cwd" / "linkgraph"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the folder the scan runs in was imported')\n")
    monkeypatch.chdir(decoy.parent)
    problems: list[Problem] = []
    from_child = _AlwaysChild(root, paths).hits(problems)
    in_process, trouble = match_paths(root, paths)
    assert problems == [] and trouble == []
    assert from_child == in_process
    texts = {h.text for hits in from_child.values() for h in hits}
    assert "dnsmasq-2.80" in texts  # the banner the fixture's dnsmasq carries
