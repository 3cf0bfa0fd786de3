"""The web viewer: a Flask app over one graph store (read only).

``create_app(config)`` builds it; ``linkgraph serve`` runs it. Pages live in ``pages``, the JSON
API in ``api``, the exports (diagrams, CSV) in ``exports``; all of them read the store through
``store_access.current_store()`` and the named queries of ``linkgraph.cypher``. The drawing
conventions are declared once in ``drawing_style`` and handed to scripts and style sheets by
``vocabulary``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import __version__

if TYPE_CHECKING:
    from flask import Flask


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The viewer app. Config: ``LINKGRAPH_STORE`` (an open store) or ``LINKGRAPH_DB`` (LadybugDB file)
    or ``LINKGRAPH_NEO4J`` (URI, with ``LINKGRAPH_NEO4J_DATABASE``; user and password from NEO4J_USER /
    NEO4J_PASSWORD). ``LINKGRAPH_ALLOWED_HOSTS``: the ``Host`` names (``host`` or ``host:port``) answered
    besides the loopback ones (``security``: every other Host gets a 400; every response gets nosniff)."""
    from flask import Flask, jsonify, request
    from flask.json.provider import DefaultJSONProvider
    from werkzeug.exceptions import HTTPException, NotFound

    from ..loader.errors import NotFoundError

    app = Flask(__name__)
    app.config.from_mapping(
        LINKGRAPH_STORE=None, LINKGRAPH_DB=None, LINKGRAPH_NEO4J=None, LINKGRAPH_NEO4J_DATABASE=None
    )
    if test_config:
        app.config.from_mapping(test_config)
    assert isinstance(app.json, DefaultJSONProvider)  # Flask's own provider: nothing here replaces it
    app.json.sort_keys = False

    from . import api, exports, pages, security, store_access
    from . import compare as _compare  # noqa: F401  # its routes join pages.bp and api.bp
    from . import search_api as _search_api  # noqa: F401  # its routes join api.bp
    from .error_page import error_page

    security.init_app(app)
    store_access.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(exports.bp)
    app.register_blueprint(pages.bp)

    @app.context_processor
    def _version() -> dict[str, str]:
        return {"linkgraph_version": __version__}

    @app.errorhandler(NotFoundError)
    def _not_found(exc: NotFoundError) -> Any:
        return _error(NotFound(str(exc)))

    @app.errorhandler(HTTPException)
    def _error(exc: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return jsonify(error=exc.description), exc.code
        return error_page(exc)

    return app
