"""The command line as a user meets it: help texts, named queries, the report contract, re-scans."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, linkgraph, scan_and_report
from support.host_programs import HOST_PROGRAM, copy_with_libraries


def test_report_matches_the_schema(host_db: tuple[Path, dict]) -> None:
    _, report = host_db
    schema = json.loads((REPO / "docs" / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    assert report["schema"] == "linkgraph-report/1"
    statuses = {d["status"] for d in report["dependencies"] if d["from"] == HOST_PROGRAM}
    assert "used" in statuses
    assert any(b["module"] == HOST_PROGRAM and b["symbol"] == "malloc" for b in report["bindings"])


def test_every_named_query_is_documented_and_runs(host_db: tuple[Path, dict]) -> None:
    db, report = host_db
    listing = linkgraph("query", "--list").stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert {"dependencies", "unresolved", "duplicates", "hidden", "declared-unused"} <= set(names)
    for line in listing.splitlines():
        assert len(line.split(maxsplit=1)) == 2, f"query without description: {line}"
    params = {
        "used-by": ["--param", f"path={report['link_maps'][0]['objects'][-1]}"],
        "providers": ["--param", "symbol=malloc"],
        "images-shipping": ["--param", "library=libc.so.6"],
        "images-using": ["--param", "library=libc.so.6"],
        "symbol-users": ["--param", "symbol=malloc", "--param", "library=libc.so.6"],
    }
    program = report["link_maps"][0]["executable"]
    for name in (
        "module",
        "link-map",
        "module-unresolved",
        "module-duplicates",
        "module-kernel-links",
        "module-hardening",
        "module-source",
    ):
        params[name] = ["--param", f"path={program}"]
    params["edges-from"] = ["--param", f"paths={json.dumps([program])}"]
    params["edge"] = ["--param", f"from={program}", "--param", f"to={report['link_maps'][0]['objects'][-1]}"]
    pair = {"from": program, "to": report["link_maps"][0]["objects"][-1]}
    params["pair-bindings"] = ["--param", f"pairs={json.dumps([pair])}"]
    page = ["--param", "offset=0", "--param", "limit=5"]
    params["search-modules"] = ["--param", "text=lib", *page]
    params["symbol-names"] = ["--param", "text=mal", *page]
    params["symbol-names-any-case"] = ["--param", "start=M", "--param", "text=AL", *page]
    params["symbol-bindings"] = ["--param", "symbol=malloc", *page]
    for name in ("symbol-providers", "symbol-duplicates"):
        params[name] = ["--param", "symbol=malloc"]
    params["link-map-edges"] = ["--param", f"program={program}"]
    params["link-map-steps"] = ["--param", f"program={program}"]
    params["vulnerable-use"] = ["--param", "component=glibc", "--param", "version-below=99", "--param", "symbol=malloc"]
    params["link-map-bindings"] = [
        "--param",
        f"program={program}",
        "--param",
        f"library={report['link_maps'][0]['objects'][-1]}",
    ]
    for name in names:
        proc = linkgraph("query", name, "--db", str(db), "--json", *params.get(name, []))
        assert proc.returncode == 0, proc.stderr
        assert isinstance(json.loads(proc.stdout), list)
    rows = json.loads(linkgraph("query", "providers", "--db", str(db), "--json", "--param", "symbol=malloc").stdout)
    assert any(r["module"] == HOST_PROGRAM for r in rows)
    # the paged bindings of the search box are the same, a page at a time; a page is a whole number
    bindings = [
        row
        for offset in range(0, len(rows) + 2, 2)
        for row in json.loads(
            linkgraph(
                "query",
                "symbol-bindings",
                "--db",
                str(db),
                "--json",
                "--param",
                "symbol=malloc",
                "--param",
                f"offset={offset}",
                "--param",
                "limit=2",
            ).stdout
        )
    ]
    assert sorted((b["module"], b["version"], b["provider"]) for b in bindings) == sorted(
        (r["module"], r["version"], r["provider"]) for r in rows
    )
    bad = linkgraph(
        "query",
        "symbol-bindings",
        "--db",
        str(db),
        "-p",
        "symbol=malloc",
        "-p",
        "offset=0",
        "-p",
        "limit=x",
        check=False,
    )
    assert bad.returncode == 2 and "whole number" in bad.stderr


def test_commands_are_documented() -> None:
    top = linkgraph("--help").stdout
    readme = (REPO / "README.md").read_text()
    for command in ("scan", "report", "query", "push", "serve", "diagram"):
        assert command in top
        assert f"linkgraph {command}" in readme
        text = linkgraph(command, "--help").stdout
        assert len(text.splitlines()) > 5


def test_query_errors_say_what_to_do(host_db: tuple[Path, dict]) -> None:
    db, _ = host_db
    proc = linkgraph("query", "no-such-query", "--db", str(db), check=False)
    assert proc.returncode == 2 and "--list" in proc.stderr
    proc = linkgraph("query", "used-by", "--db", str(db), check=False)
    assert proc.returncode == 2 and "--param path=" in proc.stderr
    proc = linkgraph("report", "--db", str(db.parent / "absent.lbdb"), check=False)
    assert proc.returncode == 2 and "linkgraph scan" in proc.stderr


def test_scanning_again_replaces_the_firmware(tmp_path: Path) -> None:
    root = tmp_path / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    db = tmp_path / "graph.lbdb"
    first = scan_and_report(root, db)
    second = scan_and_report(root, db)
    assert first["firmware"] == second["firmware"]
    assert first["modules"] == second["modules"] and first["bindings"] == second["bindings"]
    assert len(json.loads(linkgraph("query", "firmware", "--db", str(db), "--json").stdout)) == 1


@pytest.mark.slow
def test_wheel_installs_into_a_clean_environment(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
        check=True,
        capture_output=True,
    )
    wheel = next(wheels.glob("linkgraph-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "linkgraph/cypher/classify.cypher" in names
    assert not any(n.startswith(("loader/", "viewer/", "cypher/", "tests/")) for n in names)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True)
    out = subprocess.run(
        [str(venv / "bin" / "linkgraph"), "query", "--list"], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout
    assert "unresolved" in out


def test_internal_error_is_one_line_and_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug (here: the scan stage raising MemoryError) never shows a traceback: one line naming
    the file that holds it, and exit 3, which exit 1 ("done, with problems") cannot be mistaken for."""
    from linkgraph.loader.scan import root as scan

    from linkgraph.cli import main as cli

    def explode(*_args: object, **_kwargs: object) -> None:
        raise MemoryError("simulated")

    monkeypatch.setattr(scan, "scan_root", explode)
    monkeypatch.setattr("linkgraph.loader.scan.firmware.scan_root", explode)
    monkeypatch.setattr(sys, "argv", ["linkgraph", "scan", str(REPO / "tests"), "--db", str(tmp_path / "x.lbdb"), "-q"])
    with pytest.raises(SystemExit) as exited:
        cli.run()
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    trace = Path(err.split("the full trace is in ", 1)[1].split(":", 1)[0])
    assert "MemoryError: simulated" in trace.read_text()
    trace.unlink()
