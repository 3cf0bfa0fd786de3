"""The whole view's path finder (GET /api/firmware/<id>/path) as a person uses it: names typed as
the command line takes them (a soname, a file name, a symlink's name, a path without its slash),
suggestions in the user's words when nothing fits, and a search that answers a link map of any
depth or width with 200 or 4xx (a chain of 1,200 libraries, a lattice 30 wide and 30 deep)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.fixture_root import install_host_loader
from support.host_programs import copy_with_libraries

CHAIN = 1200
WIDTH = DEPTH = 30


def _client(db: Path) -> Any:
    from linkgraph.viewer import create_app

    client = create_app({"LINKGRAPH_DB": str(db), "TESTING": True}).test_client()
    (fw,) = client.get("/api/firmware").get_json()
    return client, fw["id"]


def _path(client: Any, fw: str, **args: str) -> tuple[int, dict, float]:
    start = time.perf_counter()
    answer = client.get(f"/api/firmware/{fw}/path", query_string=args)
    return answer.status_code, answer.get_json(), time.perf_counter() - start


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str]:
    """/usr/bin/ls with its libraries; libpcre2-8 as Debian ships it (a versioned file, its soname a
    symlink), a symlink /bin/list to ls, and a second libc.so.6 outside every link map."""
    base = tmp_path_factory.mktemp("pathfinder-host")
    root = base / "root"
    copy_with_libraries("/usr/bin/ls", root)
    libs = next(p.parent for p in root.rglob("libpcre2-8.so.0"))
    (libs / "libpcre2-8.so.0").rename(libs / "libpcre2-8.so.0.99.0")
    (libs / "libpcre2-8.so.0").symlink_to("libpcre2-8.so.0.99.0")
    (root / "bin").mkdir(exist_ok=True)
    (root / "bin" / "list").symlink_to("/usr/bin/ls")
    (root / "opt" / "old").mkdir(parents=True)
    shutil.copy(libs / "libc.so.6", root / "opt" / "old" / "libc.so.6")
    db = base / "graph.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet", check=False)
    return _client(db)


def test_a_soname_a_file_name_and_a_symlink_name(host: tuple[Any, str]) -> None:
    client, fw = host
    code, answer, _ = _path(client, fw, **{"from": "ls", "to": "libpcre2-8.so.0"})
    assert code == 200, answer
    assert answer["from"] == "/usr/bin/ls" and answer["to"].endswith("/libpcre2-8.so.0.99.0")
    (path,) = answer["paths"]
    assert [s["to"].rsplit("/", 1)[1] for s in path] == ["libselinux.so.1", "libpcre2-8.so.0.99.0"]
    code, by_link, _ = _path(client, fw, **{"from": "bin/list", "to": "libpcre2-8.so.0.99.0"})
    assert code == 200 and by_link["paths"] == answer["paths"], by_link
    code, by_name, _ = _path(client, fw, **{"from": "list", "to": "libselinux.so.1"})
    assert code == 200 and len(by_name["paths"]) == 1, by_name


def test_a_name_of_two_files(host: tuple[Any, str]) -> None:
    """libc.so.6 as a goal is the one in ls's process; as a start it names several files (the copy in
    /opt/old, and the host's own under /lib and /usr/lib): a 400 that lists them."""
    client, fw = host
    code, answer, _ = _path(client, fw, **{"from": "/usr/bin/ls", "to": "libc.so.6"})
    assert code == 200 and answer["paths"] and not answer["to"].startswith("/opt/"), answer
    code, answer, _ = _path(client, fw, **{"from": "libc.so.6", "to": "ls"})
    assert code == 400 and "/opt/old/libc.so.6" in answer["error"], answer
    assert answer["error"].startswith("'libc.so.6' names ") and answer["error"].endswith("; give the whole path")


def test_a_mistyped_name(host: tuple[Any, str]) -> None:
    client, fw = host
    code, answer, _ = _path(client, fw, **{"from": "lss", "to": "libc.so.6"})
    assert code == 404, answer
    assert answer["error"] == "no ELF file named 'lss' in this firmware; did you mean '/usr/bin/ls'?"
    code, answer, _ = _path(client, fw, **{"from": "/usr/bin/ls", "to": "/usr/bin/lss"})
    assert code == 404 and "/api/" not in answer["error"] and "did you mean '/usr/bin/ls'" in answer["error"]


def _lib(name: str, build: Path, *needed: str) -> bytes:
    """A library of no code named ``name`` that needs ``needed`` (each of those names once in it)."""
    source = build / "lib.c"
    if not source.exists():
        source.write_text("int q(void) { return 0; }\n")
    for other in needed:
        if not (build / other).exists():
            subprocess.run(
                ["gcc", "-shared", "-nostdlib", source, "-o", build / other, f"-Wl,-soname,{other}"], check=True
            )
    out = build / name
    cmd = ["gcc", "-shared", "-nostdlib", source, "-Wl,--no-as-needed", "-o", out, f"-Wl,-soname,{name}"]
    subprocess.run([*cmd, *(build / n for n in needed)], check=True)
    data = out.read_bytes()
    for n in (name, *needed):
        assert data.count(b"\0" + n.encode() + b"\0") == 1, n
    return data


def _patched(template: bytes, names: dict[str, str]) -> bytes:
    for old, new in names.items():
        assert len(old) == len(new)
        template = template.replace(b"\0" + old.encode() + b"\0", b"\0" + new.encode() + b"\0")
    return template


def chain_name(i: int) -> str:
    return f"libc{i:04d}.so"


def lattice_name(layer: int, w: int) -> str:
    return f"libl{layer:02d}{w:02d}.so"


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str]:
    """/bin/prog needs the first library of a chain of 1,200 (each needs the next) and the 30 of a
    lattice's first layer (each of a layer needs the 30 of the next, 30 layers)."""
    base = tmp_path_factory.mktemp("pathfinder-deep")
    build, root = base / "build", base / "root"
    build.mkdir()
    lib = root / "lib"
    lib.mkdir(parents=True)
    one = _lib("libt0000.so", build, "libu0000.so")
    for i in range(CHAIN):
        below = {"libu0000.so": chain_name(i + 1)} if i + 1 < CHAIN else {}
        data = _patched(one, {"libt0000.so": chain_name(i), **below})
        (lib / chain_name(i)).write_bytes(data if below else _lib(chain_name(i), build))
    row = [f"libv00{w:02d}.so" for w in range(WIDTH)]
    wide = _lib("libt0001.so", build, *row)
    for layer in range(DEPTH):
        for w in range(WIDTH):
            name = lattice_name(layer, w)
            if layer + 1 < DEPTH:
                below = {row[x]: lattice_name(layer + 1, x) for x in range(WIDTH)}
                (lib / name).write_bytes(_patched(wide, {"libt0001.so": name, **below}))
            else:
                (lib / name).write_bytes(_lib(name, build))
    (build / "main.c").write_text("int main(void) { return 0; }\n")
    (root / "bin").mkdir()
    first = [str(lib / chain_name(0)), *(str(lib / lattice_name(0, w)) for w in range(WIDTH))]
    link = ["gcc", "-o", root / "bin" / "prog", build / "main.c", "-Wl,--no-as-needed", *first]
    subprocess.run([*link, f"-Wl,-rpath-link,{lib}"], check=True, capture_output=True)
    install_host_loader(root, root / "bin" / "prog")
    db = base / "graph.lbdb"
    linkgraph("scan", str(root), "--db", str(db), "--quiet", check=False)
    return _client(db)


def test_a_chain_of_1200_libraries(deep: tuple[Any, str]) -> None:
    client, fw = deep
    times = []
    for i in [*range(0, CHAIN, 97), CHAIN - 1]:
        code, answer, seconds = _path(client, fw, **{"from": "/bin/prog", "to": chain_name(i)})
        times.append(seconds)
        assert code == 200, answer
        (path,) = answer["paths"]
        assert len(path) == i + 1 and path[-1]["to"] == f"/lib/{chain_name(i)}"
    code, answer, seconds = _path(client, fw, **{"from": chain_name(CHAIN - 1), "to": chain_name(0), "program": "prog"})
    times.append(seconds)
    assert code == 200 and answer["paths"] == [], answer
    print(f"chain of {CHAIN}: {len(times)} requests, slowest {max(times):.2f} s")


def test_a_lattice_30_wide_and_30_deep(deep: tuple[Any, str]) -> None:
    """About 30^29 shortest paths from the program to a library of the last layer: 20 listed."""
    client, fw = deep
    times = []
    pairs = [("/bin/prog", lattice_name(DEPTH - 1, w)) for w in range(0, WIDTH, 7)]
    pairs += [(lattice_name(0, w), lattice_name(layer, (w * 7) % WIDTH)) for w in (0, 29) for layer in (1, 15, 29)]
    pairs += [(lattice_name(29, 0), lattice_name(0, 0))]
    for start, goal in pairs:
        code, answer, seconds = _path(client, fw, **{"from": start, "to": goal, "program": "/bin/prog"})
        times.append(seconds)
        assert code == 200, answer
        for path in answer["paths"]:
            assert path[0]["from"] == answer["from"] and path[-1]["to"] == answer["to"]
            assert all(a["to"] == b["from"] for a, b in itertools.pairwise(path))
        hops = int(goal[4:6]) - (int(start[4:6]) if start.startswith("libl") else -1)
        if hops > 0:
            assert all(len(p) == hops for p in answer["paths"]) and answer["paths"]
            assert answer["more"] == (len(answer["paths"]) == 20) and (hops < 2 or answer["more"])
        else:
            assert answer["paths"] == []
    print(f"lattice {WIDTH}x{DEPTH}: {len(times)} requests, slowest {max(times):.2f} s")


def test_the_link_map_holds_both(deep: tuple[Any, str]) -> None:
    """The program's link map (the search's input, the scan's own answer) reaches the last
    library of the chain and of the lattice."""
    client, fw = deep
    answer = client.get(f"/api/firmware/{fw}/process", query_string={"program": "/bin/prog"}).get_json()
    targets = {e["to"] for e in answer["edges"]}
    assert f"/lib/{chain_name(CHAIN - 1)}" in targets and f"/lib/{lattice_name(DEPTH - 1, 0)}" in targets
