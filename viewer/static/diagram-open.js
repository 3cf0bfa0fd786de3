// How the Graph tab's drawing opens (docs/viewer.md "The Graph tab"): its pane ends inside the window;
// the server lays the drawing out for the pane (diagram_fit: it gets the pane's size, and says in
// X-Diagram-Layout which layout it chose); the tab opens it whole when then every text of it is at
// least READABLE px on screen, else at the zoom where the smallest text is READABLE px, at the file's
// node, and says so.

export const READABLE = 10;  // px: the smallest text on screen when the drawing opens
const PT = 96 / 72;  // px per pt at the natural size
const MIN_PANE = 320;  // px: the drawing's box is never made lower than this to end inside the window
const BELOW = 8;  // px left below the box

/** The drawing's box made to end inside the window (at least MIN_PANE px high), and never higher than
 * the pane that scrolls it (narrow windows: the file's panel below the tree), so that scrolled into
 * view it is seen whole; its size in CSS px. */
export function fitPane(box) {
  const visible = Math.floor(innerHeight - box.getBoundingClientRect().top - BELOW);
  const scroller = scrollerOf(box);
  const room = scroller ? Math.floor(scroller.clientHeight - BELOW) : Infinity;
  if (visible >= MIN_PANE && visible < Math.min(box.clientHeight, room)) box.style.height = `${visible}px`;
  else if (room < box.clientHeight) box.style.height = `${room}px`;
  return box.clientWidth > 0 && box.clientHeight > 0 ? {width: box.clientWidth, height: box.clientHeight} : null;
}

/** The nearest box around ``element`` that scrolls it, if any. */
function scrollerOf(element) {
  for (let e = element.parentElement; e && e !== document.body; e = e.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(e).overflowY)) return e;
  }
  return null;
}

/** The smallest text of the drawing, in its own units (pt at the natural size). */
export function smallestText(svg) {
  const sizes = [...svg.querySelectorAll("g.node text, g.edge text")]
    .map((t) => parseFloat(t.getAttribute("font-size"))).filter((s) => s > 0);
  return sizes.length ? Math.min(...sizes) : 14;
}

/** The opening zoom (fraction of the natural size) and why: "whole" or "readable". */
export function openingZoom(pan, svg) {
  const smallest = smallestText(svg);
  const readable = READABLE / (smallest * PT);
  const fit = pan.fitZoom();
  return fit >= readable
    ? {mode: "whole", zoom: fit, fit, smallest: smallest * PT * fit}
    : {mode: "readable", zoom: readable, fit, smallest: READABLE};
}

/** What the opening view shows: the modules wholly inside the box (ids), and of them the file's direct
 * dependencies (the ends of its own edges in ``graph``), worked out from where the view puts them. */
export function shownAtOpening(pan, svg, graph) {
  const {width, height} = pan.size();
  const inside = new Set();
  for (const g of svg.querySelectorAll("g.node")) {
    const r = pan.placeOf(g);
    if (r.left >= -0.5 && r.top >= -0.5 && r.right <= width + 0.5 && r.bottom <= height + 0.5) inside.add(g.id);
  }
  const direct = new Set(graph.edges.filter((e) => e.from === "n0" && e.to !== "n0").map((e) => e.to));
  return {inside, direct, directInside: [...direct].filter((id) => inside.has(id)).length, total: graph.nodes.length};
}

/** What the page says of the layout and the opening zoom, and of what the opening view shows. */
export function layoutNote(layout, opening, fileName, shown) {
  const pct = (z) => `${Math.round(z * 100)}%`;
  const how = layout ? `Layout: ${layout}. ` : "";
  if (opening.mode === "whole") {
    return `${how}The whole graph at ${pct(opening.zoom)}, the smallest text ${opening.smallest.toFixed(1)} px.`;
  }
  const small = (opening.fit / opening.zoom) * READABLE;
  const direct = shown.direct.size;
  const which = !shown.inside.has("n0") ? "" : direct === 0 ? `with ${fileName}`
    : shown.directInside === direct ? `with ${fileName} and its ${direct} direct ${direct === 1 ? "dependency" : "dependencies"}`
    : `with ${fileName} and ${shown.directInside} of its ${direct} direct dependencies`;
  const rest = shown.total - shown.inside.size;
  return `${how}The whole graph fits only at ${pct(opening.fit)}, where the smallest text would be ` +
    `${small.toFixed(1)} px: it opens readable instead, at ${pct(opening.zoom)} (text ${READABLE} px and ` +
    `larger), ${which ? `${which} in view; ` : ""}${shown.inside.size} of ${shown.total} modules in view, ` +
    `${rest} out of view: drag to move, Fit shows it whole.`;
}
