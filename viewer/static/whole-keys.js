// The whole-firmware drawing by keyboard. The canvas is one tab stop with a visible focus ring; inside
// it a cursor (a blue halo, its name said in #whole-cursor) moves over what is drawn:
//   Left / Right   the previous / next module or closed group, in reading order (rows from the top,
//                  each from the left); Home and End the first and the last;
//   Down / Up      the next / previous edge of the module (or group) under the cursor, its outgoing
//                  edges first, each ordered by where its other end is drawn;
//   Enter          what a click does: a module or an edge is selected, a group opens, a module
//                  already selected opens its page;
//   Escape         the cursor and the selection are cleared.
// Shift with an arrow pans, + and - zoom around the centre, 0 fits the drawing.
import {state} from "./whole-state.js";

const ROW_PX = 20;  // modules whose centres are this close in height are one row
const STEP = 60;    // pixels panned by Shift and an arrow
const CURSOR_STYLE = {"underlay-color": "#1a5fb4", "underlay-opacity": 0.55, "underlay-padding": 7};

let cy = null;
let on = {};
let fit = () => {};
let cursor = null;  // the element under the cursor (a Cytoscape node or edge), or null
let from = null;    // the module or group whose edges Down / Up walk

/** Drive graph `graph` (drawn in `container`) by keyboard: `handlers` as createGraph's, `fitView` the
 * "0" key. */
export function keyboard(graph, container, handlers, fitView) {
  cy = graph;
  on = handlers;
  fit = fitView;
  cy.style().selector("node.cursor").style(CURSOR_STYLE).selector("edge.cursor").style({...CURSOR_STYLE, "underlay-padding": 5})
    .update();
  container.addEventListener("keydown", keys);
  container.addEventListener("blur", () => place(null));
  cy.on("remove", () => { if (cursor && cursor.removed()) place(null); });
}

/** The modules and closed groups drawn, in reading order. */
function units() {
  const drawn = cy.nodes().filter((n) => !n.hasClass("group") && !n.hasClass("off") && n.visible()).toArray();
  return drawn.sort((a, b) => {
    const [p, q] = [a.position(), b.position()];
    return Math.abs(p.y - q.y) > ROW_PX ? p.y - q.y : p.x - q.x;
  });
}

/** The edges drawn at `node`: outgoing then incoming, each by where its other end is. */
function edgesOf(node) {
  const order = (end) => (a, b) => {
    const [p, q] = [a[end]().position(), b[end]().position()];
    return Math.abs(p.y - q.y) > ROW_PX ? p.y - q.y : p.x - q.x;
  };
  const drawn = (e) => !e.hasClass("off") && e.visible();
  return [...node.outgoers("edge").toArray().filter(drawn).sort(order("target")),
    ...node.incomers("edge").toArray().filter(drawn).sort(order("source"))];
}

function name(node) {
  if (node.hasClass("agg")) return `group ${node.data("name")}`;
  const n = state.nodes[node.scratch("i")];
  return `${n.kind || "module"} ${n.key}`;
}

function describe(el, at, count) {
  if (el.isNode()) return `${name(el)}, ${at} of ${count}: Enter selects${el.hasClass("agg") ? " (opens the group)" : ""}`;
  const status = el.hasClass("joined") ? `${el.data("members").length} edges` : state.edges[el.scratch("k")].status;
  return `edge from ${name(el.source())} to ${name(el.target())} (${status}), ${at} of ${count} edges of ${name(from)}`;
}

/** Put the cursor on `el` (null: nowhere), bring it into view and say what it is. */
function place(el, at = 0, count = 0) {
  if (cursor && !cursor.removed()) cursor.removeClass("cursor");
  cursor = el;
  const said = document.getElementById("whole-cursor");
  if (!el) {
    if (said) said.textContent = "";
    return;
  }
  el.addClass("cursor");
  const box = el.renderedBoundingBox();
  if (box.x1 < 0 || box.y1 < 0 || box.x2 > cy.width() || box.y2 > cy.height()) cy.center(el);
  if (said) said.textContent = describe(el, at, count);
}

function moveUnit(step, end = null) {
  const list = units();
  if (!list.length) return;
  const here = list.findIndex((n) => n.same(cursor?.isNode() ? cursor : from));
  const next = end === "first" ? 0 : end === "last" ? list.length - 1
    : here < 0 ? (step > 0 ? 0 : list.length - 1) : (here + step + list.length) % list.length;
  from = list[next];
  place(from, next + 1, list.length);
}

function moveEdge(step) {
  if (!from || from.removed()) return moveUnit(1);
  const list = edgesOf(from);
  if (!list.length) return;
  const here = cursor?.isEdge() ? list.findIndex((e) => e.same(cursor)) : -1;
  const next = here < 0 ? (step > 0 ? 0 : list.length - 1) : (here + step + list.length) % list.length;
  place(list[next], next + 1, list.length);
}

/** Enter: what a click on the element under the cursor does. */
function choose() {
  if (!cursor || cursor.removed()) return;
  if (cursor.isEdge()) {
    if (cursor.hasClass("joined")) {
      const end = (n) => (n.hasClass("agg") ? n.data("name") : state.nodes[n.scratch("i")].key);
      on.joined(end(cursor.source()), end(cursor.target()), cursor.data("members"));
    } else on.edge(cursor.scratch("k"));
    return;
  }
  if (cursor.hasClass("agg")) {
    const group = cursor.data("name");
    place(null);
    on.group(group);
    return;
  }
  const i = cursor.scratch("i");
  if (i === state.selectedNode) on.open(i);
  else on.node(i);
}

function keys(ev) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const centre = {x: cy.width() / 2, y: cy.height() / 2};
  const pan = {ArrowLeft: {x: STEP, y: 0}, ArrowRight: {x: -STEP, y: 0}, ArrowUp: {x: 0, y: STEP}, ArrowDown: {x: 0, y: -STEP}};
  const act = ev.shiftKey && pan[ev.key] ? () => cy.panBy(pan[ev.key]) : {
    ArrowRight: () => moveUnit(1), ArrowLeft: () => moveUnit(-1), Home: () => moveUnit(0, "first"),
    End: () => moveUnit(0, "last"), ArrowDown: () => moveEdge(1), ArrowUp: () => moveEdge(-1), Enter: choose,
    "+": () => cy.zoom({level: cy.zoom() * 1.25, renderedPosition: centre}),
    "=": () => cy.zoom({level: cy.zoom() * 1.25, renderedPosition: centre}),
    "-": () => cy.zoom({level: cy.zoom() * 0.8, renderedPosition: centre}),
    0: () => fit(),
    Escape: () => { place(null); from = null; on.none(); },
  }[ev.key];
  if (act) {
    ev.preventDefault();
    act();
  }
}
