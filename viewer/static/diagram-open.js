// How the Graph tab's drawing opens (docs/viewer.md "The Graph tab"): its pane ends inside the window;
// the server lays the drawing out for the pane (diagram_fit: it gets the pane's size, and says in
// X-Diagram-Layout which layout it chose); the tab opens it whole when then every text of it is at
// least READABLE px on screen, else at the zoom where the smallest text is READABLE px, at the file's
// node, and says so.

export const READABLE = 10;  // px: the smallest text on screen when the drawing opens
const PT = 96 / 72;  // px per pt at the natural size
const MIN_PANE = 320;  // px: the drawing's box is never made lower than this to end inside the window
const BELOW = 8;  // px left below the box

/** The drawing's box made to end inside the window (at least MIN_PANE px high), and its size in CSS px. */
export function fitPane(box) {
  const visible = Math.floor(innerHeight - box.getBoundingClientRect().top - BELOW);
  if (visible >= MIN_PANE && visible < box.clientHeight) box.style.height = `${visible}px`;
  return box.clientWidth > 0 && box.clientHeight > 0 ? {width: box.clientWidth, height: box.clientHeight} : null;
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

/** What the page says of the layout and the opening zoom. */
export function layoutNote(layout, opening, fileName) {
  const pct = (z) => `${Math.round(z * 100)}%`;
  const how = layout ? `Layout: ${layout}. ` : "";
  if (opening.mode === "whole") {
    return `${how}The whole graph at ${pct(opening.zoom)}, the smallest text ${opening.smallest.toFixed(1)} px.`;
  }
  const small = (opening.fit / opening.zoom) * READABLE;
  return `${how}The whole graph fits only at ${pct(opening.fit)}, where the smallest text would be ` +
    `${small.toFixed(1)} px: it opens readable instead, at ${pct(opening.zoom)} (text ${READABLE} px and ` +
    `larger) at ${fileName}; drag to move, Fit shows it whole.`;
}
