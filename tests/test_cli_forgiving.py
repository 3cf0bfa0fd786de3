"""The command line forgives typing: a misspelt query name, format or path is answered with the
closest ones, a path that names nothing stops with a message (never "(no rows)" and exit 0),
every command that reads a store finds linkgraph.lbdb by itself, and at 80 columns a table
folds long paths onto the next line instead of cutting them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import linkgraph
from support.host_programs import HOST_PROGRAM, copy_with_libraries

STORE_COMMANDS = ("report", "query", "diagram", "serve", "diff", "push")


def _typo(path: str) -> str:
    """*path* with the last letter of its file name left out (/usr/bin/ls -> /usr/bin/l)."""
    return path[:-1]


def test_a_misspelt_query_name_is_answered_with_the_closest(host_db: tuple[Path, dict]) -> None:
    db, _ = host_db
    proc = linkgraph("query", "licenses", "--db", str(db), check=False)
    assert proc.returncode == 2
    assert "did you mean 'licences'" in proc.stderr and "--list" in proc.stderr, proc.stderr
    proc = linkgraph("query", "hiden", "--db", str(db), check=False)
    assert proc.returncode == 2 and "did you mean 'hidden'" in proc.stderr, proc.stderr


def test_a_misspelt_format_or_section_is_answered_with_the_closest(host_db: tuple[Path, dict], tmp_path: Path) -> None:
    db, _ = host_db
    proc = linkgraph("report", "--db", str(db), "--format", "pdff", "-o", str(tmp_path / "r.pdf"), check=False)
    assert proc.returncode == 2 and "did you mean 'pdf'" in proc.stderr, proc.stderr
    proc = linkgraph("report", "--db", str(db), "--format", "spdx-jsn", check=False)
    assert proc.returncode == 2 and "did you mean 'spdx-json'" in proc.stderr, proc.stderr
    proc = linkgraph("report", "--db", str(db), "--sections", "modules,dependencys", check=False)
    assert proc.returncode == 2 and "did you mean 'dependencies'" in proc.stderr, proc.stderr
    out = str(tmp_path / "d.svg")
    proc = linkgraph("diagram", HOST_PROGRAM, "--db", str(db), "-o", out, "--format", "sgv", check=False)
    assert proc.returncode == 2 and "did you mean 'svg'" in proc.stderr, proc.stderr
    proc = linkgraph("diff", "a", "b", "--db", str(db), "--format", "htm", check=False)
    assert proc.returncode == 2 and "did you mean 'html'" in proc.stderr, proc.stderr


def _listed_paths(stderr: str) -> set[str]:
    """Run the command the message names (between backquotes after "lists them") and return the
    paths it prints."""
    command = stderr.split("(`", 1)[1].split("` lists them", 1)[0]
    args = shlex.split(command)
    assert args[:3] == ["linkgraph", "query", "module-paths"], command
    rows = json.loads(linkgraph(*args[1:], "--json").stdout)
    return {r["path"] for r in rows} | {a for r in rows for a in r["aliases"] or []}


@pytest.mark.parametrize("mistake", ["typo", "relative"])
def test_diagram_of_a_path_that_names_nothing_suggests_and_names_the_command(
    host_db: tuple[Path, dict], tmp_path: Path, mistake: str
) -> None:
    db, _ = host_db
    asked = _typo(HOST_PROGRAM) if mistake == "typo" else HOST_PROGRAM.lstrip("/")
    out = tmp_path / "d.svg"
    proc = linkgraph("diagram", asked, "--db", str(db), "-o", str(out), check=False)
    assert proc.returncode == 2 and not out.exists()
    assert f"no ELF file {asked!r}" in proc.stderr and f"did you mean '{HOST_PROGRAM}'" in proc.stderr, proc.stderr
    assert "/api/" not in proc.stderr and "…" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert HOST_PROGRAM in _listed_paths(proc.stderr)
    # the suggestion, taken, draws the diagram
    suggested = proc.stderr.split("did you mean '", 1)[1].split("'", 1)[0]
    assert linkgraph("diagram", suggested, "--db", str(db), "-o", str(out)).returncode == 0
    assert out.read_bytes().startswith(b"<?xml")


def test_a_param_path_that_names_nothing_is_an_error_not_no_rows(host_db: tuple[Path, dict]) -> None:
    db, report = host_db
    library = report["link_maps"][0]["objects"][-1]
    good = linkgraph("query", "used-by", "--db", str(db), "--param", f"path={library}")
    assert good.returncode == 0 and "(no rows)" not in good.stdout
    for name in ("used-by", "module", "link-map"):
        proc = linkgraph("query", name, "--db", str(db), "--param", f"path={_typo(library)}", check=False)
        assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
        assert "(no rows)" not in proc.stdout
        assert f"--param path={_typo(library)}: no ELF file" in proc.stderr
        assert f"did you mean '{library}'" in proc.stderr, proc.stderr
        assert library in _listed_paths(proc.stderr)
    proc = linkgraph(
        "query", "edge", "--db", str(db), "-p", f"from={HOST_PROGRAM.lstrip('/')}", "-p", f"to={library}", check=False
    )
    assert proc.returncode == 2 and f"did you mean '{HOST_PROGRAM}'" in proc.stderr, proc.stderr
    # a path that is a module, with nothing to answer, is still "(no rows)" and exit 0
    quiet = linkgraph("query", "module-unresolved", "--db", str(db), "--json", "-p", f"path={library}")
    assert quiet.returncode == 0


def test_every_command_that_reads_a_store_defaults_to_linkgraph_lbdb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for command in STORE_COMMANDS:
        text = linkgraph(command, "--help").stdout
        assert "linkgraph.lbdb" in text, f"{command} --help names no default store"
    root = tmp_path / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    linkgraph("scan", str(root), "--quiet")
    assert (work / "linkgraph.lbdb").exists()
    firmware = json.loads(linkgraph("query", "firmware", "--json").stdout)
    assert len(firmware) == 1
    report = json.loads(linkgraph("report").stdout)
    assert any(m["path"] == HOST_PROGRAM for m in report["modules"])
    assert linkgraph("diagram", HOST_PROGRAM, "-o", str(tmp_path / "d.dot")).returncode == 0
    assert (tmp_path / "d.dot").read_text().startswith("digraph")
    name = firmware[0]["name"]
    assert json.loads(linkgraph("diff", name, name, "--format", "json", "-q").stdout)
    # elsewhere, the default store is not there: the message says how to make one
    monkeypatch.chdir(tmp_path)
    proc = linkgraph("query", "firmware", check=False)
    assert proc.returncode == 2 and "linkgraph scan" in proc.stderr, proc.stderr


def _column(lines: list[str], index: int) -> str:
    """The text of column *index* of a rich table's body, its folded pieces joined in order."""
    body = [line for line in lines if line.startswith("│")]
    return "".join(line.split("│")[1 + index].strip() for line in body)


def _records(lines: list[str]) -> list[dict[str, str]]:
    """The records of the expanded display ("-[ row N ]---" then "key  value" lines, a folded
    value going on under it), each value's pieces joined."""
    records: list[dict[str, str]] = []
    key = ""
    for line in lines:
        if line.startswith("-[ row "):
            records.append({})
        elif line[:1] != " ":
            key, _, value = line.partition(" ")
            records[-1][key] = value.strip()
        else:
            records[-1][key] += line.strip()
    return records


def test_tables_fold_long_paths_instead_of_cutting_them(host_db: tuple[Path, dict]) -> None:
    """A narrow table folds a path onto the next line; a table too wide for the terminal (the 16
    columns of query modules, the 10 of query licences, at 80) shows the columns that fit and names
    the others on stderr; nothing is cut, no line is wider; only a terminal too narrow for two columns
    gets one record per row."""
    db, _ = host_db
    rows = json.loads(linkgraph("query", "module-paths", "--db", str(db), "--json").stdout)
    width = max(len(r["path"]) for r in rows) - 5  # the longest path cannot fit in its column
    proc = linkgraph("query", "module-paths", "--db", str(db), env={"COLUMNS": str(width)})
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("┏") and max(len(line) for line in lines) <= width
    assert "…" not in proc.stdout
    assert _column(lines, 0) == "".join(r["path"] for r in rows)
    for name in ("modules", "licences"):
        rows = json.loads(linkgraph("query", name, "--db", str(db), "--json").stdout)
        proc = linkgraph("query", name, "--db", str(db), env={"COLUMNS": "80"})
        lines = [line for line in proc.stdout.splitlines() if line[:1] in "┏┃┡│└"]  # the table, not the notes
        assert lines and max(len(line) for line in lines) <= 80 and "…" not in proc.stdout, name
        heads = [h.strip() for h in lines[1].strip("┃").split("┃")]
        assert heads[0] == "path" and 2 <= len(heads) < len(rows[0]), heads
        assert _column(lines, 0) == "".join(r["path"] for r in rows)  # every module, its path whole
        left_out = [k for k in rows[0] if k not in heads and any(r[k] not in (None, "", []) for r in rows)]
        assert f"more column(s) at a wider terminal or with --json: {', '.join(left_out)}" in proc.stderr, name
    rows = json.loads(linkgraph("query", "modules", "--db", str(db), "--json").stdout)
    proc = linkgraph("query", "modules", "--db", str(db), env={"COLUMNS": "40"})  # not two columns: records
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 40 and "…" not in proc.stdout
    records = _records(lines)
    assert [r["path"] for r in records] == [r["path"] for r in rows]
    assert [r["soname"] for r in records] == [r["soname"] or "" for r in rows]
    assert [r["interpreter"] for r in records] == [r["interpreter"] or "" for r in rows]
