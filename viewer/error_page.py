"""A page's error in the viewer's own page (not the server's bare one): what went wrong in the
user's words, the firmware the store holds when a firmware was not found, and a way home."""

from __future__ import annotations

from typing import Any

from flask import render_template
from werkzeug.exceptions import HTTPException

from ..loader.errors import StoreError
from .store_access import current_store

TITLES = {404: "Not found", 400: "Cannot show this", 405: "Not allowed here", 503: "The store is not available"}
# the server's own words for a URL no page answers, replaced by the viewer's
UNKNOWN_URL = "No page of the viewer has this address."


def error_page(exc: HTTPException) -> Any:
    code = exc.code or 500
    message = exc.description or ""
    if message.startswith("The requested URL was not found"):
        message = UNKNOWN_URL
    choices: list[dict[str, Any]] = []
    if code == 404 and message.startswith("no firmware "):
        try:
            choices = current_store().query("firmware")[:20]
        except StoreError:
            choices = []
    title = TITLES.get(code, "Something went wrong")
    return render_template("error.html", title=title, message=message, choices=choices, fw=None), code
