// The shared state of the whole-firmware view: the canvas, what is shown (pan, zoom, filters,
// selection), how modules are coloured, and the geometry between layout and screen coordinates.
// whole-canvas.js draws, whole-hit.js finds what is under the pointer.
import {LATER_EDGES, STATUSES} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE} from "./licence.js";
import {VOCABULARY} from "./vocabulary.js";

const MODULE_KINDS = VOCABULARY.kinds.filter((k) => k.module);
export const KIND_ORDER = MODULE_KINDS.map((k) => k.name);
export const KIND_COLOR = Object.fromEntries(MODULE_KINDS.map((k) => [k.name, k.color]));
export const NODE_RADIUS = 4;       // screen pixels
export const LABEL_FONT = "11px system-ui, sans-serif";
export const LABEL_MIN_ROW = 12;    // labels for everyone once rows are this many pixels apart

export const canvas = document.getElementById("whole-canvas");
export const ctx = canvas.getContext("2d");

export const state = {
  nodes: [], edges: [], out: [], in: [], rowGap: 26,
  scale: 1, tx: 0, ty: 0, width: 0, height: 0, dpr: 1,
  statusOn: new Set([...STATUSES, ...LATER_EDGES]), kindOn: new Set(KIND_ORDER), licenceOn: new Set(LICENCE_CLASSES), dir: "",
  onlyConnected: false, colourBy: "kind",
  nodeVisible: null, edgeVisible: null, visibleEdgeCount: 0, visibleNodeCount: 0,
  hover: -1, selectedNode: -1, selectedEdge: -1, matches: [], matchSet: new Set(), matchCursor: -1,
  pending: false, frames: 0, lastFrameMs: 0, lastDrawMs: 0, drawnEdges: 0, highlight: null,
};

/** The fill of a module's dot: by kind, or by licence class (colourBy). */
export function nodeColour(n) {
  if (state.colourBy === "licence" && n.licence) return (LICENCE_STYLE[n.licence] || LICENCE_STYLE.unknown).color;
  return KIND_COLOR[n.kind] || KIND_COLOR["other-elf"];
}

export function toScreen(x, y) {
  return [x * state.scale + state.tx, y * state.scale + state.ty];
}

export function toWorld(sx, sy) {
  return [(sx - state.tx) / state.scale, (sy - state.ty) / state.scale];
}

/** Control points of an edge's curve in screen pixels: horizontal tangents, left to right. */
export function curve(e) {
  const a = state.nodes[e.from];
  const b = state.nodes[e.to];
  const [x1, y1] = toScreen(a.x, a.y);
  const [x2, y2] = toScreen(b.x, b.y);
  const bend = Math.max(Math.abs(x2 - x1) / 2, 30 * Math.min(1, state.scale));
  const dir = x2 >= x1 ? 1 : -1;
  return [x1, y1, x1 + dir * bend, y1, x2 - dir * bend, y2, x2, y2];
}

export function curvePoint(e, t) {
  const [x1, y1, c1x, c1y, c2x, c2y, x2, y2] = curve(e);
  const u = 1 - t;
  return [u * u * u * x1 + 3 * u * u * t * c1x + 3 * u * t * t * c2x + t * t * t * x2,
    u * u * u * y1 + 3 * u * u * t * c1y + 3 * u * t * t * c2y + t * t * t * y2];
}
