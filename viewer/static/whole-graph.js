// The drawing of the whole-firmware view: a Cytoscape.js graph (its renderer, hit testing, pan and
// zoom) in #whole-canvas. Modules are boxes as wide as their labels, grouped in the overview in
// boxes where ELK placed them (plain nodes drawn beneath, not compound parents: Cytoscape's compound
// bounds took as long as drawing everything else); edges in the style of their status (common.js EDGE_STYLE). Labels are text drawn
// on a canvas, never markup. whole.js decides what is shown; this file shows it.
import cytoscape from "./vendor/cytoscape-3.35.0.esm.min.js";
import {EDGE_STYLE} from "./common.js";
import {groupElement, joinedElement} from "./whole-groups.js";
import {keyboard} from "./whole-keys.js";
import {FONT_FAMILY, LABEL_FONT_PX, MAX_FIT_ZOOM, NODE_HEIGHT, TITLE_FONT_PX, nodeWidth} from "./whole-layout.js";
import {KIND_COLOR, nodeColour, state} from "./whole-state.js";

const FEW = 150;           // this many modules shown or fewer: every label drawn, whatever the zoom
const CROWD = 800;         // more edges shown than this: drawn fainter
export const MIN_LABEL_PX = 7;    // otherwise a label is drawn once its font is this many screen pixels
export const READABLE_PX = 10;
const MARGIN = 30;  // px left around the drawing when it is fitted  // a focus and the groups open with labels no smaller than this

function edgeStyles() {
  return Object.entries(EDGE_STYLE).map(([status, s]) => ({
    selector: `edge[status = "${status}"]`,
    style: {"line-color": s.color, "target-arrow-color": s.color, width: s.width,
      "line-style": s.line === "dotted" ? "dotted" : (s.line === "dashed" ? "dashed" : "solid"),
      "line-dash-pattern": s.dash.length ? s.dash : [6, 3],
      "target-arrow-fill": s.arrowhead === "empty" ? "hollow" : "filled"},
  }));
}

const STYLE = [
  {selector: "node[w]", style: {
    shape: "round-rectangle", width: "data(w)", height: NODE_HEIGHT, label: "data(label)",
    "font-size": LABEL_FONT_PX, "font-family": FONT_FAMILY, color: "#1a1a1a", "text-valign": "center",
    "text-halign": "center", "background-color": "data(colour)", "background-opacity": 0.22, "border-width": 1.5,
    "border-color": "data(colour)", "min-zoomed-font-size": MIN_LABEL_PX, "z-index-compare": "manual",
    "z-index": 2}},
  {selector: "node.missing", style: {"background-color": "#ffffff", "background-opacity": 1, "border-style": "dashed",
    color: "#6d6d6d"}},
  {selector: "node.group", style: {shape: "round-rectangle", "background-color": "#f4f6f8", "background-opacity": 1,
    width: "data(gw)", height: "data(gh)", "z-index-compare": "manual", "z-index": 0,
    "border-width": 1, "border-color": "#b0bec5", label: "data(label)", "text-valign": "top", "text-halign": "center",
    "text-margin-y": TITLE_FONT_PX + 8,
    "font-size": TITLE_FONT_PX, "text-max-width": "data(tw)", "text-wrap": "ellipsis", "font-weight": "bold", color: "#263238", "min-zoomed-font-size": 4,
    events: "no"}},
  {selector: "node.all-labels", style: {"min-zoomed-font-size": 0}},
  {selector: "node.agg", style: {shape: "round-rectangle", width: "data(w)", height: "data(h)", label: "data(label)",
    "text-wrap": "wrap", "text-max-width": "data(w)",
    "font-size": TITLE_FONT_PX, "font-weight": "bold", "font-family": FONT_FAMILY, color: "#263238",
    "text-valign": "center", "text-halign": "center", "background-color": "#eceff1", "border-width": 1.5,
    "border-color": "#546e7a", "min-zoomed-font-size": 0, "z-index-compare": "manual", "z-index": 2}},
  {selector: "node.match", style: {"underlay-color": "#ffd54f", "underlay-opacity": 1, "underlay-padding": 4}},
  {selector: "node.selected", style: {"border-width": 3, "border-color": "#000000"}},
  {selector: "node.focus", style: {"border-width": 3, "font-weight": "bold"}},
  {selector: "edge", style: {"curve-style": "straight", "target-arrow-shape": "triangle", "arrow-scale": 0.8,
    opacity: 0.6, "z-index-compare": "manual", "z-index": 1}},
  {selector: "edge.crowd", style: {opacity: 0.25, "curve-style": "haystack", "haystack-radius": 0}},
  ...edgeStyles(),
  {selector: "edge.routed", style: {"curve-style": "segments", "edge-distances": "node-position",
    "segment-weights": "data(sw)", "segment-distances": "data(sd)"}},
  {selector: "edge.joined", style: {width: "data(width)", "curve-style": "bezier", opacity: 0.7}},
  {selector: "edge.selected", style: {width: 4, opacity: 1}},
  {selector: ".faded", style: {opacity: 0.12}},
  {selector: "edge.near", style: {opacity: 1, width: 2}},
  {selector: ".on-path", style: {"underlay-color": "#00897b", "underlay-opacity": 0.45, "underlay-padding": 5}},
  {selector: ".off", style: {display: "none"}},
];

let cy = null;
let handlers = {};
let boxes = new Map();  // a group box's id -> the module nodes ELK placed in it

/** Create the graph in `container`; `on`: {node(i), edge(k), joined(from, to, [k]) (an aggregated edge),
 * none(), open(i), hover(i), group(name)}. */
export function createGraph(container, on) {
  handlers = on;
  cy = cytoscape({container, style: STYLE, autounselectify: true, autoungrabify: true, boxSelectionEnabled: false,
    minZoom: 0.02, maxZoom: 6});
  cy.on("tap", "node", (ev) => {
    if (ev.target.hasClass("agg")) handlers.group(ev.target.data("name"));
    else if (!ev.target.hasClass("group")) handlers.node(ev.target.scratch("i"));
  });
  cy.on("tap", "edge", (ev) => {
    if (!ev.target.hasClass("joined")) handlers.edge(ev.target.scratch("k"));
    else handlers.joined(unitName(ev.target.source()), unitName(ev.target.target()), ev.target.data("members"));
  });
  cy.on("tap", (ev) => { if (ev.target === cy) handlers.none(); });
  cy.on("dbltap", "node", (ev) => { if (ev.target.scratch("i") !== undefined) handlers.open(ev.target.scratch("i")); });
  cy.on("mouseover", "node", (ev) => {
    if (ev.target.scratch("i") === undefined) return;
    container.title = state.nodes[ev.target.scratch("i")].key;  // the whole name, as text
    handlers.hover(ev.target.scratch("i"));
  });
  cy.on("mouseout", "node", () => { container.title = ""; handlers.hover(-1); });
  keyboard(cy, container, on, () => fitView());  // whole-keys.js: a cursor over modules and edges
  return cy;
}

/** What a node drawn stands for: a group's name or a module's key. */
function unitName(node) {
  return node.hasClass("agg") ? node.data("name") : state.nodes[node.scratch("i")].key;
}

function nodeElement(i, few) {
  const n = state.nodes[i];
  const classes = [n.missing ? "missing" : "", few ? "all-labels" : "", state.nodeVisible[i] ? "" : "off"];
  return {group: "nodes", data: {id: n.id, label: n.short, w: nodeWidth(n.short), colour: nodeColour(n)},
    classes: classes.filter((c) => c).join(" ")};
}

/** ELK's bend points as Cytoscape's segments: for each, where along the line from source to target
 * (a weight, 0 to 1) and how far from it (a distance, in the direction Cytoscape measures it). */
function segments(from, to, bends) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length2 = dx * dx + dy * dy;
  if (!length2) return {};
  const length = Math.sqrt(length2);
  return {
    sw: bends.map((b) => ((b.x - from.x) * dx + (b.y - from.y) * dy) / length2),
    sd: bends.map((b) => ((b.y - from.y) * dx - (b.x - from.x) * dy) / length),
  };
}

/**
 * Draw these modules (indices) at `positions` (Map id -> centre), with the edges among them;
 * `groups` (Map group id -> label) adds the group boxes (at their `positions`), `parentOf(i)` says
 * which one holds module i.
 */
export function show(indices, edgeIndices, positions, groups = null, parentOf = null, closed = null) {
  // the classes applyVisibility would give (shown or not, crowded, every label), given at once:
  // restyling thousands of new elements
  // a second time before their first drawing costs about as much as drawing them
  const crowd = state.visibleEdgeCount > CROWD;
  const few = state.visibleNodeCount <= FEW || state.focus >= 0;
  cy.startBatch();
  cy.elements().remove();
  const els = [];
  for (const [id, label] of groups || []) {
    const box = positions.get(id) || {x: 0, y: 0, w: 200, h: 40};
    els.push({group: "nodes", data: {id, label, tw: box.w - 10, gw: box.w, gh: box.h}, position: {x: box.x, y: box.y},
      classes: "group"});
  }
  for (const i of indices) {
    const el = nodeElement(i, few);
    const p = positions.get(state.nodes[i].id);
    el.position = p ? {x: p.x, y: p.y} : {x: 0, y: 0};
    els.push(el);
  }
  for (const unit of closed?.units || []) if (unit.i === undefined) els.push(groupElement(unit, positions.get(unit.id)));
  for (const k of edgeIndices) {
    const e = state.edges[k];
    const data = {id: e.id, source: state.nodes[e.from].id, target: state.nodes[e.to].id,
      status: EDGE_STYLE[e.status] ? e.status : "used"};
    const route = positions.get(e.id)?.bends;
    const ends = [positions.get(data.source), positions.get(data.target)];
    if (route && ends[0] && ends[1] && data.source !== data.target) Object.assign(data, segments(ends[0], ends[1], route));
    const classes = [data.sw ? "routed" : (crowd ? "crowd" : ""), state.edgeVisible[k] ? "" : "off"];
    els.push({group: "edges", data, classes: classes.filter((c) => c).join(" ")});
  }
  for (const j of closed?.joined || []) els.push(joinedElement(j));
  const added = cy.add(els);
  added.nodes().forEach((node) => { if (!node.hasClass("group") && !node.hasClass("agg")) node.scratch("i", state.index.get(node.id())); });
  boxes = new Map([...(groups || []).keys()].map((id) => [id, []]));
  if (parentOf) for (const i of indices) boxes.get(parentOf(i))?.push(cy.getElementById(state.nodes[i].id));
  for (const [id, members] of boxes) if (members.every((n) => n.hasClass("off"))) cy.getElementById(id).addClass("off");
  added.edges().forEach((edge, j) => { edge.scratch("k", edgeIndices[j]); });
  cy.endBatch();
  shownColour = state.colourBy;  // the new elements have the colours of now, no marks, all shown
  marked = {nodes: new Set(), edges: new Set(), faded: false};
  drawn = {nodes: state.nodeVisible, edges: state.edgeVisible, few, crowd};  // applyVisibility has nothing to redo
}

let drawn = {nodes: null, edges: null, few: null, crowd: null};  // what applyVisibility last set

/** Show and hide modules and edges after a filter change, without moving anything; only the
 * elements whose visibility changes are touched. */
export function applyVisibility() {
  const few = state.visibleNodeCount <= FEW || state.focus >= 0;
  const crowd = state.visibleEdgeCount > CROWD;
  cy.batch(() => {
    let changed = false;
    cy.nodes().forEach((node) => {
      const i = node.scratch("i");
      if (i === undefined || drawn.nodes?.[i] === state.nodeVisible[i]) return;
      node.toggleClass("off", !state.nodeVisible[i]);
      changed = true;
    });
    cy.edges().forEach((edge) => {
      const k = edge.scratch("k");
      if (drawn.edges?.[k] !== state.edgeVisible[k]) edge.toggleClass("off", !state.edgeVisible[k]);
    });
    if (changed) cy.nodes(".group").forEach((g) => g.toggleClass("off", (boxes.get(g.id()) || []).every((n) => n.hasClass("off"))));
    if (few !== drawn.few) cy.nodes().not(".group").toggleClass("all-labels", few);
    if (crowd !== drawn.crowd) cy.edges().toggleClass("crowd", crowd);
  });
  drawn = {nodes: state.nodeVisible, edges: state.edgeVisible, few, crowd};
}

let shownColour = null;
let marked = {nodes: new Set(), edges: new Set(), faded: false};

/** Colours, search matches, the selection and the highlighted neighbourhood. Only the elements
 * whose marks change are touched (restyling thousands of elements takes a while); the others are
 * faded only when few edges are shown. */
export function applyMarks() {
  const focus = state.hover >= 0 ? state.hover : state.selectedNode;
  const near = new Set();
  const nearEdges = new Set();
  if (focus >= 0) {
    near.add(focus);
    for (const k of [...state.out[focus], ...state.in[focus]]) {
      if (!state.edgeVisible[k]) continue;
      nearEdges.add(k);
      near.add(state.edges[k].from);
      near.add(state.edges[k].to);
    }
  }
  if (state.selectedEdge >= 0) nearEdges.add(state.selectedEdge);
  // fade the rest, unless too many edges are shown or the module is the focus (its neighbourhood is the view)
  const faded = ((focus >= 0 && focus !== state.focus) || state.selectedEdge >= 0) && state.visibleEdgeCount <= CROWD;
  const special = new Set([...near, ...state.matchSet, state.selectedNode, state.focus].filter((i) => i >= 0));
  const recolour = shownColour !== state.colourBy;
  const all = recolour || faded || marked.faded;
  const byId = (id) => cy.getElementById(id);
  cy.batch(() => {
    const nodes = all ? cy.nodes().not(".group") : cy.collection([...marked.nodes, ...special].map((i) => byId(state.nodes[i].id)));
    nodes.forEach((node) => {
      const i = node.scratch("i");
      if (i === undefined) return;
      const n = state.nodes[i];
      if (recolour) node.data("colour", n.missing ? KIND_COLOR.missing : nodeColour(n));
      node.toggleClass("match", state.matchSet.has(i));
      node.toggleClass("selected", i === state.selectedNode);
      node.toggleClass("focus", i === state.focus);
      node.toggleClass("faded", faded && !near.has(i) && !state.matchSet.has(i));
    });
    const edges = all ? cy.edges() : cy.collection([...marked.edges, ...nearEdges].map((k) => byId(state.edges[k].id)));
    edges.forEach((edge) => {
      const k = edge.scratch("k");
      if (k === undefined) return;
      edge.toggleClass("near", nearEdges.has(k));
      edge.toggleClass("selected", k === state.selectedEdge);
      edge.toggleClass("faded", faded && !nearEdges.has(k));
    });
  });
  shownColour = state.colourBy;
  marked = {nodes: special, edges: nearEdges, faded};
  return {focus, near, nearEdges};
}

/** Fit the shown modules (or those of ids `only`) in the window (from their positions and widths: no
 * label measuring); no smaller than `floor` (a zoom), centred on module `anchor` (an index) then if
 * given, else on their middle. Whether they are all in view. */
export function fitView(floor = 0, only = null, anchor = -1) {
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  cy.nodes().forEach((node) => {
    if (node.hasClass("group") || node.hasClass("off") || (only && !only.has(node.id()))) return;
    const p = node.position();
    const w = node.data("w") / 2;
    x1 = Math.min(x1, p.x - w);
    x2 = Math.max(x2, p.x + w);
    const h = Math.max(NODE_HEIGHT, (node.data("h") || 0) / 2 + 4);  // a group's title may take lines
    y1 = Math.min(y1, p.y - h);
    y2 = Math.max(y2, p.y + h);
  });
  if (x1 === Infinity) return true;
  if (cy.nodes(".group").nonempty()) y1 -= 2 * TITLE_FONT_PX;  // the group titles above the boxes
  const {width, height} = room();
  if (width <= 0 || height <= 0) return true;  // a pane squeezed to nothing
  const fitted = Math.min(width / (x2 - x1), height / (y2 - y1), MAX_FIT_ZOOM);
  const zoom = Math.max(floor, fitted);
  const centre = anchor >= 0 && zoom > fitted ? cy.getElementById(state.nodes[anchor].id).position() : {x: (x1 + x2) / 2, y: (y1 + y2) / 2};
  cy.viewport({zoom, pan: {x: cy.width() / 2 - centre.x * zoom, y: MARGIN + height / 2 - centre.y * zoom}});
  return zoom <= fitted;
}

/** The room the drawing is fitted into: the pane less a margin, and less the legend at its foot. */
export function room() {
  const legend = document.getElementById("whole-legend");
  const below = Math.max(MARGIN, (legend ? legend.offsetHeight : 0) + 8);
  return {width: cy.width() - 2 * MARGIN, height: cy.height() - MARGIN - below};
}

/** Bring a module on screen if it is not. */
export function reveal(i) {
  const node = cy.getElementById(state.nodes[i].id);
  if (node.empty()) return;
  const p = node.renderedPosition();
  if (p.x < 40 || p.y < 40 || p.x > cy.width() - 40 || p.y > cy.height() - 40) cy.center(node);
}

export function graph() {
  return cy;
}
