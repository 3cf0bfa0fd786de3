"""The viewer's commands, registered on ``linkgraph`` by ``main``: ``diagram`` (a file's
dependency diagram drawn by Graphviz) and ``serve`` (the web viewer). Flask is imported only when
``serve`` runs."""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..loader.errors import LinkgraphError
from .near_choices import NearChoice, list_paths_command, require_module
from .options import DEFAULT_DB, FIRMWARE_HELP, fail, pick_firmware, quiet_asked, quiet_option, store_options
from .progress_lines import ProgressLines, weasyprint_pages

SUFFIX_FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png", ".dot": "dot", ".gv": "dot"}


def _format_for(output: str, fmt: str | None) -> str:
    if fmt:
        return fmt
    if output == "-":
        return "svg"
    found = SUFFIX_FORMATS.get(Path(output).suffix.lower())
    if found is None:
        fail(f"-o {output}: say the format with --format svg|pdf|png|dot (or end the name in one of them)")
    return found


@click.command()
@click.argument("file")
@store_options(DEFAULT_DB)
@click.option("--firmware", help=FIRMWARE_HELP)
@quiet_option
@click.option(
    "--output",
    "-o",
    required=True,
    metavar="OUT",
    help="Write the diagram here; `-` writes it to stdout (SVG or DOT only, or into a pipe).",
)
@click.option(
    "--format",
    "fmt",
    type=NearChoice(["svg", "pdf", "png", "dot"]),
    help="svg, pdf, png, or dot (the Graphviz source) [default: from OUT's suffix; svg for -].",
)
@click.option(
    "--page",
    type=NearChoice(["a4", "letter"]),
    default="a4",
    show_default=True,
    help="PDF page size (one page, landscape when the drawing is wide).",
)
@click.option("--dpi", type=click.IntRange(36, 600), default=192, show_default=True, help="PNG resolution.")
@click.option("--direct", is_flag=True, help="Only FILE's own edges (what it declares, and its hidden edges).")
@click.option(
    "--expand",
    multiple=True,
    metavar="PREFIX",
    help="Draw this plugin family (e.g. libebt_) as its libraries, not as one node; repeatable.",
)
def diagram(
    file: str,
    open_: Callable,
    where: str,
    firmware: str | None,
    output: str,
    fmt: str | None,
    page: str,
    dpi: int,
    direct: bool,
    expand: tuple[str, ...],
) -> None:
    """Draw the dependency diagram of FILE (a path in the firmware, e.g. /bin/busybox) with Graphviz.

    \b
    The diagram is the viewer's per-file graph: FILE (bold) and every module it loads, with
    every dependency edge between them, drawn as
      used             solid black, labelled with the number of symbols that bind across it
      declared-unused  dashed blue: in DT_NEEDED, but nothing of the declaring object binds to it
      hidden           solid red, labelled with the symbol count: not declared, yet used
      interposed       dotted orange, with the symbol count: bound there only because that module
                       comes first in the lookup; the object's own dependencies define them too
      upcall           dotted magenta, with the symbol count: no dependency, that module loads the
                       object, which calls back into it (libc calling the program's main)
      missing          dotted grey, to a grey dashed node: declared, but no file satisfies it
      dlopen           dashed teal, open arrowhead: FILE may load it later with dlopen (docs/dlopen.md)
    Executables are boxes, libraries ellipses, kernel modules hexagons; a plugin family (four or
    more libraries of one folder named PREFIX_*, e.g. ebtables' libebt_*) is one folder-shaped node
    with its count unless --expand names it. A legend and a title block (firmware name and sha256,
    FILE's path, today's date, linkgraph version) sit in a compact block below the drawing; in SVG,
    hovering a module shows its full path and an edge its symbols. A PDF is one A4 (or --page
    letter) page, landscape when the drawing is wide; a PNG is drawn at 192 dpi (2x) or --dpi.

    \b
    Examples:
      linkgraph diagram /bin/busybox --db fw.lbdb -o busybox.pdf
      linkgraph diagram /usr/sbin/httpd --neo4j bolt://127.0.0.1:7687 --firmware router-a -o httpd.svg
      linkgraph diagram /bin/busybox --db fw.lbdb -o - --format dot | less
      linkgraph diagram /usr/sbin/ebtables --db fw.lbdb -o ebtables.png --dpi 300 --expand libebt_

    Needs Graphviz's `dot` (bash scripts/setup.sh installs it), except for --format dot.
    """
    from ..loader.report.analysis import dependency_graph
    from ..loader.report.source_view import mark_graph, source_statuses
    from ..viewer.diagram import to_dot
    from ..viewer.diagram_export import PageSize, export
    from ..viewer.drawing_style import TitleBlock
    from ..viewer.graph_view import diagram_graph

    fmt = _format_for(output, fmt)
    if output == "-" and fmt in ("pdf", "png") and sys.stdout.isatty():
        fail(f"will not write {fmt.upper()} to a terminal: give -o FILE")
    try:
        with open_(True) as store:
            firmware_id = pick_firmware(store, firmware)
            row = next(f for f in store.firmware_ids() if f["id"] == firmware_id)
            require_module(store, firmware_id, file, list_paths_command(where, firmware))
            graph = mark_graph(dependency_graph(store, firmware_id, file), source_statuses(store, firmware_id))
            graph = diagram_graph(graph, direct, expand)  # modules without source marked (docs/sources.md)
        title = TitleBlock.today(row, graph, file)
        if fmt == "dot":
            data = to_dot(graph, title).encode("utf-8", "backslashreplace")
        else:
            with ProgressLines("diagram", fmt == "pdf" and not quiet_asked()) as progress, weasyprint_pages(progress):
                data = export(graph, title, fmt, PageSize(page), dpi)
    except LinkgraphError as exc:
        fail(str(exc))
    try:
        if output == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            Path(output).write_bytes(data)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    click.echo(
        f"{graph['root']}: {len(graph['nodes'])} nodes, {len(graph['edges'])} edges -> "
        f"{'stdout' if output == '-' else output} ({fmt})",
        err=True,
    )


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, bound before anything is printed (a busy port is then
    exit 2 with no URL said)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug's server does
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@click.command()
@store_options(DEFAULT_DB)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (the viewer has no login: keep it on the loopback unless the network "
    "is yours). Requests must name it or a loopback name in their Host header.",
)
@click.option(
    "--port", default=8750, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on (0: a free one)."
)
@click.option("--debug", is_flag=True, help="Flask debug mode (tracebacks in the browser); never on a shared network.")
def serve(open_: Callable, where: str, host: str, port: int, debug: bool) -> None:
    """Start the web viewer on the graph (read only): http://127.0.0.1:8750/ by default.

    \b
    Pages:
      /                the firmware images in the store
      /fw/ID/          the file tree and, per file, Overview, ELF analysis and Graph tabs
      /fw/ID/whole     every module and dependency edge at once, with filters
      /compare         two firmware compared: linkgraph diff's tables, the changed programs' graphs
    JSON API under /api/firmware (list, tree, file, graph, whole, edge), and exports: the
    per-file diagram as SVG, PDF or PNG (/api/firmware/ID/diagram.pdf?path=P) and the ELF
    analysis as CSV (/api/firmware/ID/analysis.csv?path=P). docs/viewer.md describes them all.
    Every script and style sheet is served locally (no CDN). Ctrl-C stops it.
    """
    from werkzeug.serving import make_server

    from ..viewer import create_app

    try:
        store = open_(True)
        known = store.firmware_ids()
    except LinkgraphError as exc:
        fail(str(exc))
    try:
        try:
            listening = _listen(host, port)
        except OSError as exc:
            busy = " (another program is using it: stop it, or choose another with --port)"
            fail(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}{busy if exc.errno == errno.EADDRINUSE else ''}"
            )
        port = listening.getsockname()[1]
        url_host = f"[{host}]" if ":" in host else host
        # the Host allow-list (viewer/security.py): the loopback names, and the address asked for
        # the database file too: a scan that replaces it is picked up (viewer/store_access.py)
        config = {"LINKGRAPH_STORE": store, "LINKGRAPH_DB": store.path if store.engine == "ladybug" else None}
        app = create_app({**config, "DEBUG": debug, "LINKGRAPH_ALLOWED_HOSTS": [f"{url_host}:{port}"]})
        if debug:
            from werkzeug.debug import DebuggedApplication

            app = DebuggedApplication(app, evalex=True)
        server = make_server(host, port, app, threaded=True, fd=listening.fileno())
        listening.close()  # the server holds its own copy of the socket
        click.echo(
            f"linkgraph viewer on http://{url_host}:{port}/ ({where}, {len(known)} firmware; Ctrl-C stops it)", err=True
        )
        if not _is_loopback(host):
            click.echo(
                "linkgraph: warning: the viewer has no login; anyone who reaches this address can read the graph",
                err=True,
            )
        server.serve_forever()
    finally:
        store.close()
