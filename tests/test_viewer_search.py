"""The search box's and the "why is it loaded" panel's JSON calls (docs/viewer.md "Search") on the
article root (tests/support/article.py): the answers the article describes, paging, bad requests.

test_viewer_search_stores.py checks the same calls on both stores against the real loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from support.article import APCFG, APLOG, BUSYBOX, LIB_DUPA, LIB_DUPB, NVRAM, TRAP_DUP, UTIL


def _get(client: Any, fw: str, what: str, **params: Any) -> Any:
    response = client.get(f"/api/firmware/{fw}/{what}", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_why_is_libnvram_loaded_in_busybox(client: Any, fw: str) -> None:
    """The article: busybox declares libnvram and uses nothing of it; libapcfg declares it and binds nvram_get."""
    why = _get(client, fw, "why", program=BUSYBOX, library=NVRAM)
    assert (why["program"], why["library"], why["loaded"], why["load_index"]) == (BUSYBOX, NVRAM, True, 2)
    assert [(e["from"], e["to"], e["soname"], e["status"]) for e in why["chain"]] == [
        (BUSYBOX, NVRAM, "libnvram.so", "declared-unused")
    ]
    assert [(e["from"], e["status"], e["symbols"]) for e in why["declared_by"]] == [
        (BUSYBOX, "declared-unused", []),
        (APCFG, "used", ["nvram_get"]),
    ]
    assert why["bindings"] == [
        {"module": APCFG, "status": "used", "symbols": [{"name": "nvram_get", "version": None, "copy": False}]}
    ]


def test_why_for_a_hidden_dependency(client: Any, fw: str) -> None:
    """libaplog: busybox's own DT_NEEDED loads it (position 3); libapcfg binds aplog_write without declaring it."""
    why = _get(client, fw, "why", program="/bin/sh", library="libaplog.so")  # a symlink and a soname work too
    assert (why["program"], why["library"]) == (BUSYBOX, APLOG)
    assert [(e["from"], e["to"], e["position"]) for e in why["chain"]] == [(BUSYBOX, APLOG, 3)]
    assert [(b["module"], b["status"], [s["name"] for s in b["symbols"]]) for b in why["bindings"]] == [
        (APCFG, "hidden", ["aplog_write"])
    ]


def test_why_a_library_of_another_link_map(client: Any, fw: str) -> None:
    why = _get(client, fw, "why", program=BUSYBOX, library=LIB_DUPA)
    assert (why["loaded"], why["load_index"], why["chain"], why["declared_by"], why["bindings"]) == (
        False,
        None,
        [],
        [],
        [],
    )


def test_symbol_providers_binders_and_duplicates(client: Any, fw: str) -> None:
    found = _get(client, fw, "symbol", name="dup_fn")
    assert [(p["provider"], p["references"]) for p in found["providers"]] == [(LIB_DUPA, 2)]
    assert [(d["providers"], d["chosen"], d["executables"]) for d in found["duplicates"]] == [
        ([LIB_DUPA, LIB_DUPB], LIB_DUPA, [TRAP_DUP])
    ]
    rows = [(b["module"], b["provider"], b["status"], b["programs"]) for b in found["bindings"]["items"]]
    # libdupb's own call binds to libdupa, which it does not declare, while it defines dup_fn itself:
    # interposition, no dependency
    assert rows == [(LIB_DUPB, LIB_DUPA, "interposed", [TRAP_DUP]), (TRAP_DUP, LIB_DUPA, "used", [TRAP_DUP])]
    assert found["bindings"]["more"] is False


def test_symbol_bindings_come_a_page_at_a_time(client: Any, fw: str) -> None:
    whole = _get(client, fw, "symbol", name="__cxa_finalize", limit=500)["bindings"]
    assert not whole["more"] and len(whole["items"]) >= 10
    pages, offset = [], 0
    while True:
        page = _get(client, fw, "symbol", name="__cxa_finalize", limit=2, offset=offset)["bindings"]
        pages += page["items"]
        offset += 2
        if not page["more"]:
            break
    assert pages == whole["items"]


def test_module_search_by_path_soname_and_symlink(client: Any, fw: str) -> None:
    def paths(text: str, **page: Any) -> list[str]:
        return [m["path"] for m in _get(client, fw, "search", q=text, **page)["modules"]["items"]]

    assert paths("LIBUTIL") == [UTIL]  # any case
    assert paths("/sbin/init") == [BUSYBOX]  # a symlink's path
    assert paths("libap", limit=1) == [APCFG]
    assert paths("libap", limit=1, offset=1) == [APLOG]
    assert _get(client, fw, "search", q="libap", limit=1)["modules"]["more"] is True
    assert paths("no-such-thing") == []
    assert _get(client, fw, "symbol", name="no_such_symbol")["providers"] == []


def test_symbol_names_starting_with_the_text(client: Any, fw: str) -> None:
    found = _get(client, fw, "symbol", name="util_")
    assert found["names"] == {"items": ["util_bar", "util_foo"], "more": False}
    assert found["providers"] == [] and found["bindings"]["items"] == []
    assert _get(client, fw, "symbol", name="UTIL_")["names"]["items"] == []  # symbol names keep their case
    assert found["suggestions"] == []  # a beginning that finds names needs none


def test_a_name_nothing_matches_suggests_names(article_db: Path, client: Any, fw: str) -> None:
    """Nothing binds NVRAM_GET and no name starts with it: the names containing it in any case are
    offered (every name of the firmware, as the exact-case query ``symbol-names`` lists them, filtered
    here); a typo offers the close name; a name far from all offers nothing."""
    page = ["--param", "text=", "--param", "offset=0", "--param", "limit=500"]
    proc = linkgraph("query", "symbol-names", "--db", str(article_db), "--json", *page)
    assert proc.returncode == 0, proc.stderr
    every = {"items": [r["name"] for r in json.loads(proc.stdout)]}
    assert 20 < len(every["items"]) < 500
    found = _get(client, fw, "symbol", name="NVRAM_GET")
    assert found["providers"] == [] and found["names"]["items"] == []
    assert found["suggestions"] == [n for n in every["items"] if "nvram_get" in n.lower()] == ["nvram_get"]
    assert _get(client, fw, "symbol", name="UTIL_")["suggestions"] == ["util_bar", "util_foo"]
    assert _get(client, fw, "symbol", name="nvram_gte")["suggestions"] == ["nvram_get"]
    # the close names are among those of the same first two characters: "vr" begins none
    assert _get(client, fw, "symbol", name="vram_gte")["suggestions"] == []
    assert _get(client, fw, "symbol", name="qqzz_nothing_like_it")["suggestions"] == []
    assert _get(client, fw, "symbol", name="nvram_get")["suggestions"] == []  # found: none offered


@pytest.mark.parametrize(
    ("what", "params", "code"),
    [
        ("search", {}, 400),
        ("search", {"q": "lib", "limit": "0"}, 400),
        ("search", {"q": "lib", "limit": "501"}, 400),
        ("symbol", {"name": "x", "offset": "-1"}, 400),
        ("symbol", {"name": "x", "limit": "many"}, 400),
        ("why", {"program": BUSYBOX}, 400),
        ("why", {"program": "/no/such", "library": NVRAM}, 404),
        ("why", {"program": NVRAM, "library": UTIL}, 404),  # a library some program loads has no link map
    ],
)
def test_bad_search_requests(client: Any, fw: str, what: str, params: dict, code: int) -> None:
    response = client.get(f"/api/firmware/{fw}/{what}", query_string=params)
    assert response.status_code == code
    assert response.get_json()["error"]
