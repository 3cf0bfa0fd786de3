"""The viewer's HTML pages: the firmware list, the tree + file panel, the whole-firmware view, the licences.

The pages are shells: the data comes from the JSON API (``api``) and is put into the page by the
scripts in ``static/`` as text (never as markup). Jinja escapes everything the templates print.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, url_for

from ..loader.errors import StoreError
from . import store_access, vocabulary

bp = Blueprint("pages", __name__)
GENERATED_MAX_AGE = 300  # seconds a browser may keep vocabulary.js and vocabulary.css

# Only our own scripts and styles; nothing inline, nothing from elsewhere (scripts may still set
# element.style); images only from here (the PNG export) or data/blob URLs.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


@bp.after_request
def _headers(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


@bp.route("/")
def index() -> Any:
    """The firmware in the store; with exactly one, straight to it."""
    try:
        rows = store_access.current_store().query("firmware")
    except StoreError as exc:
        abort(503, str(exc))
    if len(rows) == 1:
        return redirect(url_for("pages.firmware", firmware_id=rows[0]["id"]))
    return render_template("index.html", firmware=rows)


@bp.route("/fw/<firmware_id>/")
def firmware(firmware_id: str) -> Any:
    """The file tree and the per-file panel (``?path=P`` opens a file; the script reads it)."""
    fw = store_access.firmware_or_404(firmware_id)
    return render_template("firmware.html", fw=fw, view="files")


@bp.route("/fw/<firmware_id>/whole")
def whole(firmware_id: str) -> Any:
    """Every module and every dependency edge at once, on a canvas."""
    fw = store_access.firmware_or_404(firmware_id)
    return render_template("whole.html", fw=fw, view="whole")


@bp.route("/fw/<firmware_id>/licences")
def licences(firmware_id: str) -> Any:
    """The licence findings (a)-(e) of docs/licences.md, with every module linked to its file page."""
    fw = store_access.firmware_or_404(firmware_id)
    return render_template("licences.html", fw=fw, view="licences")


@bp.route("/static/vocabulary.js")
def vocabulary_script() -> Response:
    """The statuses, kinds and licence classes with their colours, for the scripts (``vocabulary``)."""
    return _generated(vocabulary.script(), "text/javascript")


@bp.route("/static/vocabulary.css")
def vocabulary_style() -> Response:
    """The same colours as style sheet classes and variables."""
    return _generated(vocabulary.stylesheet(), "text/css")


def _generated(body: str, mimetype: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.cache_control.max_age = GENERATED_MAX_AGE
    return response
