"""linkgraph's own house: its licence, the list of what it depends on and vendors (generated and
kept current), a build without warnings, and no GPL code imported by its own."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "third_party.py"
OWN_CODE = ("linkgraph", "loader", "cypher", "viewer")


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), "--check", "--root", str(root)], capture_output=True, text=True, check=False
    )


def test_licence_file_is_the_declared_one() -> None:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"]
    text = (REPO / "LICENSE").read_text()
    assert declared == "MIT"
    assert text.startswith("MIT License") and "the linkgraph authors" in text


def test_third_party_list_is_current() -> None:
    done = _check(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (REPO / "docs" / "third-party.md").read_text()
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert len(deps) >= 20
    for folder in ("viewer/static/vendor", "tests/vendor"):
        for path in (REPO / folder).iterdir():
            if ".LICENSE" not in path.name:
                assert f"| {path.name} |" in text, path
    assert "| unknown |" not in text and "not stated" not in text


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The files the list is made from, copied."""
    for name in ("pyproject.toml", "docs/third-party.md", "viewer/static/vendor", "tests/vendor"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, target)
        else:
            shutil.copy(REPO / name, target)
    assert _check(tmp_path).returncode == 0
    return tmp_path


def test_list_fails_on_a_new_dependency(copy: Path) -> None:
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("dependencies = [\n", 'dependencies = [\n    "pytest>=8",\n', 1))
    done = _check(copy)
    assert done.returncode == 1 and "+| pytest | >=8 | MIT | linkgraph |" in done.stdout, done.stdout


def test_list_fails_on_a_new_vendored_file(copy: Path) -> None:
    shutil.copy(REPO / "tests" / "vendor" / "axe-core-4.14.1.min.js", copy / "viewer/static/vendor/axe-core-4.14.1.js")
    done = _check(copy)
    assert done.returncode == 1 and "axe-core-4.14.1.js" in done.stdout, done.stdout


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # importlib.import_module("...")
    return names


def test_no_gpl_module_imported() -> None:
    """vmlinux-to-elf (GPL-3.0-or-later) and dissect (AGPL-3.0) are test tools: linkgraph's code
    runs vmlinux-to-elf as a program, never imports it."""
    found = [
        (path.relative_to(REPO), name)
        for folder in OWN_CODE
        for path in (REPO / folder).rglob("*.py")
        for name in _imports(path)
        if name.startswith(("vmlinux_to_elf", "dissect"))
    ]
    assert not found


@pytest.mark.slow
def test_build_prints_no_warning(tmp_path: Path) -> None:
    """The wheel quickstart's `pip install .` builds: no setuptools warning, and the data folders
    (tables, templates, scripts, vendored files) inside it."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    import zipfile

    (wheel,) = tmp_path.glob("linkgraph-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "linkgraph/loader/identify/data/signatures.yaml",
        "linkgraph/loader/licences/data/classes.yaml",
        "linkgraph/viewer/templates/base.html",
        "linkgraph/viewer/static/whole.js",
        "linkgraph/viewer/static/favicon.svg",
        "linkgraph/viewer/static/vendor/cytoscape-3.35.0.LICENSE",
    ):
        assert name in names, name
