"""What a printed PDF shows, measured with poppler-utils (installed by scripts/setup.sh): every
word's box (``pdftotext -bbox``), the fonts (``pdffonts``), the inked part of a page (``pdftoppm``).

A word's box is as tall as its font's ascent plus descent times its size, so a size is judged
against a calibration: the same fonts set at exactly ``size`` pt by WeasyPrint (the layout engine
of every PDF linkgraph writes) and measured the same way (:func:`reference_height`). A PDF whose
every word is at least that tall, in no font but the calibrated ones, has no text below ``size``.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

XHTML = "{http://www.w3.org/1999/xhtml}"
# every face the diagrams and the report are set in (Graphviz's Helvetica resolves to DejaVu Sans here)
CALIBRATED_FACES = [
    ("DejaVu Sans", "normal", "normal"),
    ("DejaVu Sans", "bold", "normal"),
    ("DejaVu Sans", "normal", "oblique"),
    ("DejaVu Sans", "bold", "oblique"),
    ("DejaVu Sans Mono", "normal", "normal"),
    ("DejaVu Sans Mono", "bold", "normal"),
]
MM_PT = 72 / 25.4


@dataclass(frozen=True)
class Word:
    page: int  # from 1
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def height(self) -> float:
        return self.y1 - self.y0


def _run(*argv: str) -> str:
    return subprocess.run(list(argv), check=True, capture_output=True, text=True, timeout=600).stdout


def words(pdf: Path) -> list[Word]:
    """Every word of ``pdf`` with its page and box (pt, from the top left), from ``pdftotext -bbox``."""
    root = ET.fromstring(_run("pdftotext", "-bbox", str(pdf), "-"))
    out = []
    for number, page in enumerate(root.iter(f"{XHTML}page"), start=1):
        for word in page.iter(f"{XHTML}word"):
            box = [float(word.get(k) or 0) for k in ("xMin", "yMin", "xMax", "yMax")]
            out.append(Word(number, word.text or "", *box))
    return out


def page_sizes(pdf: Path) -> list[tuple[float, float]]:
    """(width, height) in pt of every page, from ``pdftotext -bbox``."""
    root = ET.fromstring(_run("pdftotext", "-bbox", "-l", "9999", str(pdf), "-"))
    return [(float(p.get("width") or 0), float(p.get("height") or 0)) for p in root.iter(f"{XHTML}page")]


def fonts(pdf: Path) -> set[str]:
    """The fonts ``pdf`` uses, without their subset prefix (``DejaVu-Sans-Bold``), from ``pdffonts``."""
    lines = _run("pdffonts", str(pdf)).splitlines()[2:]
    return {line.split()[0].split("+", 1)[-1] for line in lines if line.strip()}


def reference_height(size: float, folder: Path) -> tuple[float, set[str]]:
    """The smallest word height of the calibrated faces set at ``size`` pt by WeasyPrint, and the fonts
    that calibration holds."""
    from linkgraph.viewer.compliance_render import pdf_from_html

    lines = "".join(
        f"<p style=\"font: {style} {weight} {size}pt '{family}'\">Calibration{i}</p>"
        for i, (family, weight, style) in enumerate(CALIBRATED_FACES)
    )
    pdf = folder / "calibration.pdf"
    pdf.write_bytes(pdf_from_html(f"<!doctype html><html><body>{lines}</body></html>"))
    return min(w.height for w in words(pdf)), fonts(pdf)


def ink_box(pdf: Path, page: int, folder: Path, dpi: int = 72) -> tuple[float, float, float, float] | None:
    """The box (pt, from the top left) of everything drawn on ``page`` that is not white, from a
    ``pdftoppm`` raster; None for a blank page."""
    stem = folder / f"ink-{page}"
    subprocess.run(
        ["pdftoppm", "-gray", "-r", str(dpi), "-f", str(page), "-l", str(page), "-singlefile", str(pdf), str(stem)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    data = Path(f"{stem}.pgm").read_bytes()
    header = data.split(maxsplit=4)  # P5 width height maxval raster
    width, height = int(header[1]), int(header[2])
    raster = np.frombuffer(data[len(data) - width * height :], dtype=np.uint8).reshape(height, width)
    rows, cols = np.nonzero(raster < 250)
    if rows.size == 0:
        return None
    scale = 72 / dpi
    return (cols.min() * scale, rows.min() * scale, (cols.max() + 1) * scale, (rows.max() + 1) * scale)


def fill_ratio(pdf: Path, page: int, margin_mm: float, folder: Path) -> float:
    """The share of ``page``'s printable area (inside ``margin_mm``) that the box of its drawing covers."""
    width, height = page_sizes(pdf)[page - 1]
    box = ink_box(pdf, page, folder)
    if box is None:
        return 0.0
    margin = margin_mm * MM_PT
    printable = (width - 2 * margin) * (height - 2 * margin)
    return (box[2] - box[0]) * (box[3] - box[1]) / printable
