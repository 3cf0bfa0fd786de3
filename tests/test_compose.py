"""docker-compose.yml: it parses, and the settings it gives linkgraph work against a real server.

No Docker engine runs here, so the Neo4j of the file is stood in for by the test server, reached
through exactly the environment variables the file sets for the linkgraph service.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO, linkgraph
from support.host_programs import HOST_PROGRAM, copy_with_libraries

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


def _config() -> dict[str, Any]:
    proc = subprocess.run(
        ["docker-compose", "-f", str(REPO / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "NEO4J_PASSWORD": "pw"},
    )
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)


def test_compose_file_parses_and_wires_the_cli_to_neo4j() -> None:
    config = _config()
    neo4j, cli = config["services"]["neo4j"], config["services"]["linkgraph"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert "healthcheck" in neo4j and neo4j["environment"]["NEO4J_AUTH"] == "neo4j/pw"
    assert cli["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert cli["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"
    assert cli["environment"]["NEO4J_PASSWORD"] == "pw"
    assert "7687" in json.dumps(neo4j["ports"]) and "127.0.0.1" in json.dumps(neo4j["ports"])


def test_the_compose_settings_work_against_a_real_server(neo4j_server: Any, tmp_path: Path) -> None:
    env = dict(_config()["services"]["linkgraph"]["environment"])
    env.update(NEO4J_URI=neo4j_server.uri, NEO4J_PASSWORD=neo4j_server.password)  # the server's real address
    root = tmp_path / "root"
    copy_with_libraries(HOST_PROGRAM, root)
    proc = linkgraph("scan", str(root), "--name", "compose", "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(linkgraph("query", "firmware", "--json", env=env).stdout)
    assert "compose" in {r["name"] for r in rows}
