"""Headers and checks every response of the viewer gets, whatever the page, API call, export or error.

* ``X-Content-Type-Options: nosniff`` on every response (an ``after_request`` hook of the app, which
  Flask also runs on the responses of error handlers, redirects and static files).
* A ``Host`` allow-list against DNS rebinding: a page on ``evil.example`` whose name the attacker
  re-points at 127.0.0.1 reaches the viewer with ``Host: evil.example``; only the loopback names
  (``localhost``, any 127.x.y.z, ``::1``, with or without a port) and the hosts in the config key
  ``LINKGRAPH_ALLOWED_HOSTS`` (``linkgraph serve`` puts its ``--host`` and ``--port`` there) are
  answered, anything else gets a 400 with a one-line plain-text reason.

Why not Flask's ``TRUSTED_HOSTS`` (``werkzeug.wsgi.host_is_trusted``): as of Flask 3.1 / Werkzeug 3.1 it
matches names exactly or by suffix only, so it cannot say "any 127.x.y.z", and it cuts every trusted
entry at its first ``:`` to drop the port, so an IPv6 literal (``[::1]``) can never match.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re

from flask import Flask, Response, current_app, request

CONFIG_KEY = "LINKGRAPH_ALLOWED_HOSTS"

# a DNS name or IPv4 address, or a bracketed IPv6 literal, then an optional port
_HOST = re.compile(r"(?P<name>[a-z0-9.-]+|\[(?P<v6>[0-9a-f:.]+)\])(?::(?P<port>[0-9]{1,5}))?", re.ASCII)


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a Host header value or an allow-list entry (lower-case, IP addresses in their
    canonical form, IPv6 without brackets); ``None`` when it is not a well-formed host."""
    value = value.strip().lower()
    try:  # a bare IPv6 address (an allow-list entry like ``::1``; no port then)
        return ipaddress.IPv6Address(value).compressed, None
    except ValueError:
        pass
    match = _HOST.fullmatch(value)
    if match is None:
        return None
    port = int(match["port"]) if match["port"] else None
    if port is not None and not 1 <= port <= 65535:
        return None
    if match["v6"] is not None:
        try:
            return ipaddress.IPv6Address(match["v6"]).compressed, port
        except ValueError:
            return None
    name = match["name"]
    with contextlib.suppress(ValueError):
        name = ipaddress.IPv4Address(name).compressed
    return name, port


def is_loopback(name: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_allowed(value: str | None, allowed: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a ``Host`` header value may be answered: a loopback name (any port), or an ``allowed``
    entry (``host`` or ``host:port``; with a port, a Host that carries a port must carry that one)."""
    found = split_host(value or "")
    if found is None:
        return False
    name, port = found
    if is_loopback(name):
        return True
    for entry in allowed:
        want = split_host(entry)
        if want is not None and want[0] == name and (want[1] is None or port is None or want[1] == port):
            return True
    return False


def init_app(app: Flask) -> None:
    app.config.setdefault(CONFIG_KEY, [])

    @app.before_request
    def _check_host() -> Response | None:
        host = request.headers.get("Host")
        if host_allowed(host, current_app.config.get(CONFIG_KEY) or ()):
            return None
        shown = (host or "")[:100].encode("ascii", "backslashreplace").decode("ascii")
        reason = (
            f"400 Bad Request: Host {shown!r} is not served here (only the loopback names and the address "
            "linkgraph serve --host listens on; see docs/viewer.md)\n"
        )
        return Response(reason, status=400, mimetype="text/plain")

    @app.after_request
    def _nosniff(response: Response) -> Response:
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
