// The note over the whole-firmware view's drawing (#whole-off-view): it says what is true of the
// drawing on screen, and nothing else. Two things are worth a note:
//   * the view was placed with part of what is shown out of view (a focus too large for legible
//     labels in the window, or open groups): said as long as it is so, gone once all is in view;
//   * every module is shown and their labels would be too small to draw: said with the size they
//     would have, and a button back to the grouped view; gone once zoomed in far enough.
// The conditions are read from the drawing (each module's box against the view, the zoom), again
// after every move of the view.
import {el} from "./common.js";
import {MIN_LABEL_PX, graph} from "./whole-graph.js";
import {LABEL_FONT_PX} from "./whole-layout.js";
import {state} from "./whole-state.js";

const note = document.getElementById("whole-off-view");
let placedOut = false;  // the view was placed with part of the drawing out of view
let pending = false;
let showGroups = () => {};

/** The modules and groups drawn with a label of their own (not the boxes around modules). */
function shown() {
  return graph().nodes().filter((n) => !n.hasClass("group") && !n.hasClass("off"));
}

/** Whether part of what is drawn is out of view. */
export function partOutOfView() {
  const cy = graph();
  const nodes = shown();
  if (nodes.empty()) return false;
  const b = nodes.renderedBoundingBox({includeLabels: true, includeOverlays: false, includeUnderlays: false});
  return b.x1 < -0.5 || b.y1 < -0.5 || b.x2 > cy.width() + 0.5 || b.y2 > cy.height() + 0.5;
}

/** The size (px) module labels would have when they are too small to be drawn, else 0. */
function labelsTooSmall() {
  const cy = graph();
  const px = LABEL_FONT_PX * cy.zoom();
  const hidden = shown().filter((n) => !n.hasClass("agg") && !n.hasClass("all-labels"));
  return hidden.nonempty() && px < MIN_LABEL_PX ? px : 0;
}

function say() {
  pending = false;
  const small = labelsTooSmall();
  const out = placedOut && partOutOfView();
  placedOut = out;
  if (small) {
    note.replaceChildren(`The ${shown().length.toLocaleString("en")} module labels would be ${small.toFixed(1)} px ` +
      `at this zoom, too small to draw: zoom in to read them, or `,
    el("button", {type: "button", className: "link-button show-groups", on: {click: () => showGroups()}}, "show the groups"), ".");
  } else if (out) {
    note.textContent = state.focus >= 0
      ? "Part of the focused module's neighbourhood is out of view, so that labels stay legible: zoom out, pan or Fit to see the rest."
      : "Part of the drawing is out of view, so that labels stay legible: zoom out, pan or Fit to see the rest.";
  }
  note.hidden = !small && !out;
  note.dataset.says = small ? "labels-too-small" : out ? (state.focus >= 0 ? "focus-out-of-view" : "out-of-view") : "";
}

/** After the view was placed (fitted, perhaps no smaller than a floor): say what is true of it now. */
export function placed() {
  placedOut = true;  // said if part is out of view
  say();
}

/** After a change that moved nothing (a filter): say what is true now. */
export function recheck() {
  say();
}

/** Keep the note true while the view moves; ``groups()`` goes back to the grouped view. */
export function watchNote(groups) {
  showGroups = groups;
  graph().on("viewport", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(say);
  });
}
