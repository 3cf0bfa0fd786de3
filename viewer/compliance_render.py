"""The compliance report as HTML (Jinja2, autoescape on, ``templates/compliance.html``) and as PDF
(the same HTML laid out by WeasyPrint, A4).

The HTML is one self-contained file: inline CSS, the diagrams as ``data:`` images, no script, and a
Content-Security-Policy that allows nothing else. WeasyPrint may only read ``data:`` URLs, so a
report never reaches out to the network or the file system. In the PDF the diagrams are Graphviz
``PDF_IMAGE`` images (WeasyPrint draws Graphviz's SVG with its own SVG renderer).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..loader.errors import LinkgraphError
from ..loader.model import Status
from ..loader.report.analysis import Queryable
from .compliance import compliance_data
from .drawing_style import LICENCE_STYLES
from .finding_drawings import Progress
from .print_sheets import named_pages_css
from .vocabulary import status_css

PDF_IMAGE = "svg"


class ReportError(LinkgraphError):
    """The compliance report cannot be made (WeasyPrint missing or failing)."""


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined
    from markupsafe import Markup

    env = Environment(
        loader=PackageLoader("linkgraph.viewer", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["base"] = lambda path: posixpath.basename(str(path or "")) or str(path or "")
    env.filters["klass"] = lambda value: value if value in LICENCE_STYLES else "unknown"
    env.globals["statuses"] = [status.value for status in Status]
    env.globals["status_css"] = Markup(status_css())  # from drawing_style's colours, no firmware text
    env.globals["sheet_css"] = Markup(named_pages_css())  # the pages of a split finding diagram: no firmware text
    # for the page footer inside <style>, where escaping does not apply: hex digits only
    env.filters["hex16"] = lambda value: re.sub(r"[^0-9a-f]", "", str(value).lower())[:16]
    return env


def render_html(data: dict[str, Any]) -> str:
    """The report page for ``compliance_data``'s answer."""
    return _environment().get_template("compliance.html").render(**data)


def html_report(store: Queryable, firmware_id: str, today: str | None = None, progress: Progress | None = None) -> str:
    """The compliance report of one firmware as one self-contained HTML page (``progress``: compliance_data's)."""
    return render_html(compliance_data(store, firmware_id, "svg", today, progress))


def pdf_from_html(html: str) -> bytes:
    """A PDF of ``html`` laid out by WeasyPrint, which may read nothing but ``data:`` URLs."""
    try:
        import weasyprint
    except ImportError as exc:  # a dependency of linkgraph; absent only in a broken install
        raise ReportError(
            "the PDF report needs WeasyPrint (pip install weasyprint; Debian's Pango: bash scripts/setup.sh)"
        ) from exc
    except OSError as exc:  # WeasyPrint is there, Pango is not
        raise ReportError(
            f"WeasyPrint cannot load Pango ({exc}): apt-get install libpango-1.0-0 "
            "libpangoft2-1.0-0 (bash scripts/setup.sh installs them)"
        ) from exc
    fetcher = weasyprint.URLFetcher(allowed_protocols={"data"})
    try:
        pdf = weasyprint.HTML(string=html, url_fetcher=fetcher).write_pdf()
    except Exception as exc:  # WeasyPrint's own errors have no common base class
        raise ReportError(f"WeasyPrint could not lay out the report: {exc}") from exc
    assert pdf is not None  # write_pdf returns the document when it is given no target
    return bytes(pdf)


def print_html(store: Queryable, firmware_id: str, today: str | None = None, progress: Progress | None = None) -> str:
    """The HTML ``pdf_report`` lays out (diagrams as ``PDF_IMAGE``): what it needs of the store, so that the
    store can be closed before WeasyPrint runs."""
    return render_html(compliance_data(store, firmware_id, PDF_IMAGE, today, progress))


def pdf_report(store: Queryable, firmware_id: str, today: str | None = None, progress: Progress | None = None) -> bytes:
    """The compliance report of one firmware as a PDF (A4), laid out by WeasyPrint (``progress``:
    compliance_data's; WeasyPrint tells its pages on its own logger)."""
    return pdf_from_html(print_html(store, firmware_id, today, progress))
