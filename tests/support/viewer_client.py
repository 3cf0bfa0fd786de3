"""The viewer's API through Flask's test client on the article root (support/article.py) scanned into a
real LadybugDB: the fixtures :func:`article_db`, :func:`client` and :func:`fw` (its firmware id),
module-scoped, for the modules that import them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.viewer import create_app

from .article import build_article_root


@pytest.fixture(scope="module")
def article_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("viewer-api")
    root = build_article_root(base / "root")
    db = base / "graph.lbdb"
    linkgraph("scan", str(root.path), "--db", str(db), "--quiet")
    return db


@pytest.fixture(scope="module")
def client(article_db: Path) -> Any:
    app = create_app({"LINKGRAPH_DB": str(article_db), "TESTING": True})
    return app.test_client()


@pytest.fixture(scope="module")
def fw(client: Any) -> str:
    listing = client.get("/api/firmware").get_json()
    assert [f["name"] for f in listing] == ["root"]
    assert listing[0]["modules"] == 18
    return listing[0]["id"]
