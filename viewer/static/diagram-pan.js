// Pan and zoom of the Graph tab's drawing, by svg-pan-zoom (vendored): drag pans, the wheel zooms
// about the pointer, +/- zoom about the centre of the view. Zoom is said in percent of Graphviz's
// own size (1 pt of the drawing = 1/72 inch, as printed): 100% is that size on screen.
import "./vendor/svg-pan-zoom-3.6.2.min.js";

const PT = 96 / 72;  // CSS pixels per pt at 100%
const MIN = 0.05;    // of the natural size
const MAX = 4;
const STEP = 1.25;
const MARGIN = 0;  // px of room above the drawing when it opens (Graphviz leaves 8 pt around it already)

export class PanZoom {
  /** svg: a Graphviz <svg> already in the page, inside a box of fixed size; onChange(): after every move.
   * A box of no size (its tab hidden, a pane squeezed to nothing) has no zoom to work out: svg-pan-zoom
   * starts once the box has a size, and the placement asked for before (show, fit) is done then. */
  constructor(svg, onChange) {
    this.svg = svg;
    this.onChange = onChange;
    // svg-pan-zoom would add overflow to the style attribute, which the page's policy forbids: say it first
    svg.style.overflow = "hidden";
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    this.pz = null;
    this.pending = null;  // the placement to do once started
    this.watch = new ResizeObserver(() => this.start());
    this.watch.observe(svg);
    this.start();
  }

  start() {
    const box = this.svg.getBoundingClientRect();
    if (this.pz || !box.width || !box.height) return;
    this.watch.disconnect();
    this.pz = window.svgPanZoom(this.svg, {
      panEnabled: true, zoomEnabled: true, controlIconsEnabled: false, dblClickZoomEnabled: false,
      mouseWheelZoomEnabled: true, preventMouseEventsDefault: true, zoomScaleSensitivity: 0.2,
      fit: false, center: false, minZoom: 1e-3, maxZoom: 1e3,
      onZoom: () => this.pz && this.onChange(), onPan: () => this.pz && this.onChange(),
    });
    const pending = this.pending;
    this.pending = null;
    this.onChange();
    if (pending) pending();
  }

  /** px per pt at svg-pan-zoom's zoom 1: asked each time, as svg-pan-zoom takes the zoom of the moment
   * as its zoom 1 whenever the box is resized. */
  base() {
    return this.pz.getSizes().realZoom / this.pz.getZoom();
  }

  /** True when started; else ``placement`` is kept to be done once started (the last one asked wins). */
  later(placement) {
    if (!this.pz) this.pending = placement;
    return !!this.pz;
  }

  /** The zoom as a fraction of the natural size (1 until started). */
  zoom() {
    return this.pz ? this.pz.getSizes().realZoom / PT : 1;
  }

  /** Zoom to ``z`` of the natural size about the point (x, y) of the box (its centre by default). */
  zoomTo(z, at = null) {
    if (!this.pz) return;
    const zoom = Math.min(MAX, Math.max(MIN, z));
    const sizes = this.pz.getSizes();
    const point = at || {x: sizes.width / 2, y: sizes.height / 2};
    this.pz.zoomAtPoint((zoom * PT) / this.base(), point, true);
  }

  zoomBy(factor) {
    this.zoomTo(this.zoom() * factor);
  }

  zoomIn() { this.zoomBy(STEP); }

  zoomOut() { this.zoomBy(1 / STEP); }

  /** The zoom (fraction of the natural size, at most 1) at which the whole drawing fits the box. */
  fitZoom() {
    const {width, height, viewBox} = this.pz.getSizes();
    return Math.min(1, width / viewBox.width / PT, height / viewBox.height / PT);
  }

  /** The whole drawing in the box, as large as fits (at most the natural size), centred. */
  fit() {
    if (!this.pz) {
      this.pending = () => this.fit();
      return;
    }
    this.pz.fit();
    this.pz.center();
    if (this.zoom() > 1) this.zoomTo(1);
  }

  /** Zoom ``z`` of the natural size with ``element`` (of the drawing) in the middle of the box across;
   * down, in the middle too unless that leaves more than a margin of empty room above the drawing. */
  show(z, element) {
    if (!this.pz) {
      this.pending = () => this.show(z, element);
      return;
    }
    const scale = Math.min(MAX, Math.max(MIN, z)) * PT;
    this.pz.zoom(scale / this.base());
    // in the drawing's own coordinates (svg-pan-zoom moves it on the next frame: no screen rectangles)
    const viewport = this.svg.querySelector(".svg-pan-zoom_viewport");
    const b = element.getBBox();
    const m = viewport.getCTM().inverse().multiply(element.getCTM());
    const c = new DOMPoint(b.x + b.width / 2, b.y + b.height / 2).matrixTransform(m);
    const {width, height} = this.pz.getSizes();
    const top = viewport.getBBox().y;
    this.pz.pan({x: width / 2 - c.x * scale, y: Math.min(height / 2 - c.y * scale, MARGIN - top * scale)});
  }

  /** Where ``element`` (of the drawing) is in the box, in px from its top left corner, worked out from
   * the zoom and pan of the moment (svg-pan-zoom moves the drawing on the next frame). */
  placeOf(element) {
    const viewport = this.svg.querySelector(".svg-pan-zoom_viewport");
    const b = element.getBBox();
    const m = viewport.getCTM().inverse().multiply(element.getCTM());
    const [p, q] = [new DOMPoint(b.x, b.y), new DOMPoint(b.x + b.width, b.y + b.height)].map((d) => d.matrixTransform(m));
    const {realZoom} = this.pz.getSizes();
    const pan = this.pz.getPan();
    return {left: p.x * realZoom + pan.x, top: p.y * realZoom + pan.y, right: q.x * realZoom + pan.x,
      bottom: q.y * realZoom + pan.y};
  }

  /** The box's size in px. */
  size() {
    const {width, height} = this.pz.getSizes();
    return {width, height};
  }

  /** Pan by (dx, dy) screen pixels. */
  panBy(dx, dy) {
    if (this.pz) this.pz.panBy({x: dx, y: dy});
  }

  resize() {
    if (this.pz) this.pz.resize();
  }

  destroy() {
    this.watch.disconnect();
    const pz = this.pz;
    this.pz = null;  // svg-pan-zoom moves the drawing back as it goes: nothing to report
    if (pz) pz.destroy();
  }
}
