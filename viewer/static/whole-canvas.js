// The canvas of the whole-firmware view: the shared view state, geometry (world <-> screen),
// drawing (edges batched by status, nodes, labels with fillText: text, never markup) and
// hit-testing. whole.js owns the data, the controls and the side panel.
import {STATUSES, STATUS_STYLE} from "./common.js";

export const KIND_ORDER = ["executable", "library", "kernel-module", "other-elf", "missing"];
const KIND_COLOR = {
  "executable": "#00695c", "library": "#37474f", "kernel-module": "#8d6e63", "other-elf": "#9e9e9e",
  "missing": "#9e9e9e",
};
const EDGE_ORDER = ["used", "declared-unused", "missing", "hidden"];  // hidden drawn last, on top
const NODE_RADIUS = 4;       // screen pixels
export const LABEL_FONT = "11px system-ui, sans-serif";
const LABEL_MIN_ROW = 12;    // labels for everyone once rows are this many pixels apart

export const canvas = document.getElementById("whole-canvas");
export const ctx = canvas.getContext("2d");

export const state = {
  nodes: [], edges: [], out: [], in: [], rowGap: 26,
  scale: 1, tx: 0, ty: 0, width: 0, height: 0, dpr: 1,
  statusOn: new Set(STATUSES), kindOn: new Set(KIND_ORDER), dir: "", onlyConnected: false,
  nodeVisible: null, edgeVisible: null, visibleEdgeCount: 0, visibleNodeCount: 0,
  hover: -1, selectedNode: -1, selectedEdge: -1, matches: [], matchSet: new Set(), matchCursor: -1,
  pending: false, frames: 0, lastFrameMs: 0, lastDrawMs: 0, drawnEdges: 0, highlight: null,
};

// ------------------------------------------------------------------ geometry

export function toScreen(x, y) {
  return [x * state.scale + state.tx, y * state.scale + state.ty];
}

function toWorld(sx, sy) {
  return [(sx - state.tx) / state.scale, (sy - state.ty) / state.scale];
}

/** Control points of an edge's curve in screen pixels: horizontal tangents, left to right. */
function curve(e) {
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

export function fit() {
  const visible = state.nodes.filter((_, i) => !state.nodeVisible || state.nodeVisible[i]);
  const list = visible.length ? visible : state.nodes;
  if (!list.length) return;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const n of list) {
    minX = Math.min(minX, n.x);
    maxX = Math.max(maxX, n.x);
    minY = Math.min(minY, n.y);
    maxY = Math.max(maxY, n.y);
  }
  const margin = 30;
  const labels = 160;  // pixels right of the last column, for its labels
  const w = Math.max(1, maxX - minX);
  const h = Math.max(1, maxY - minY);
  state.scale = Math.min((state.width - 2 * margin - labels) / w, (state.height - 2 * margin) / h, 2);
  state.tx = margin - minX * state.scale + Math.max(0, (state.width - 2 * margin - labels - w * state.scale) / 2);
  state.ty = margin - minY * state.scale + Math.max(0, (state.height - 2 * margin - h * state.scale) / 2);
  requestDraw();
}

export function resize() {
  const box = canvas.parentElement.getBoundingClientRect();
  state.dpr = window.devicePixelRatio || 1;
  state.width = Math.max(200, Math.floor(box.width));
  state.height = Math.max(200, Math.floor(box.height));
  canvas.width = Math.floor(state.width * state.dpr);
  canvas.height = Math.floor(state.height * state.dpr);
  canvas.style.width = `${state.width}px`;
  canvas.style.height = `${state.height}px`;
  requestDraw();
}

// ------------------------------------------------------------------ drawing

/** The module whose neighbourhood is highlighted: the hovered one, else the selected one. */
function focusNode() {
  return state.hover >= 0 ? state.hover : state.selectedNode;
}

export function requestDraw() {
  if (state.pending) return;
  state.pending = true;
  requestAnimationFrame(() => {
    state.pending = false;
    draw();
  });
}

function edgeOnScreen(c) {
  const minX = Math.min(c[0], c[6]);
  const maxX = Math.max(c[0], c[6]);
  const minY = Math.min(c[1], c[7]);
  const maxY = Math.max(c[1], c[7]);
  return maxX >= -20 && minX <= state.width + 20 && maxY >= -20 && minY <= state.height + 20;
}

function strokeEdges(list, status, alpha, width) {
  const style = STATUS_STYLE[status] || STATUS_STYLE.used;
  ctx.strokeStyle = style.color;
  ctx.setLineDash(style.dash);
  ctx.globalAlpha = alpha;
  ctx.lineWidth = width;
  ctx.beginPath();
  for (const c of list) {
    ctx.moveTo(c[0], c[1]);
    ctx.bezierCurveTo(c[2], c[3], c[4], c[5], c[6], c[7]);
  }
  ctx.stroke();
}

function arrowHeads(list, status, alpha) {
  const style = STATUS_STYLE[status] || STATUS_STYLE.used;
  ctx.fillStyle = style.color;
  ctx.globalAlpha = alpha;
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const c of list) {
    const angle = Math.atan2(c[7] - c[5], c[6] - c[4]);
    const tipX = c[6] - Math.cos(angle) * (NODE_RADIUS + 1);
    const tipY = c[7] - Math.sin(angle) * (NODE_RADIUS + 1);
    ctx.moveTo(tipX, tipY);
    ctx.lineTo(tipX - 7 * Math.cos(angle - 0.4), tipY - 7 * Math.sin(angle - 0.4));
    ctx.lineTo(tipX - 7 * Math.cos(angle + 0.4), tipY - 7 * Math.sin(angle + 0.4));
    ctx.closePath();
  }
  ctx.fill();
}

export function draw() {
  const started = performance.now();
  const {nodes, edges, nodeVisible, edgeVisible} = state;
  ctx.setTransform(state.dpr, 0, 0, state.dpr, 0, 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, state.width, state.height);
  if (!nodeVisible) return;
  const focus = focusNode();
  const near = new Set();
  const nearEdges = new Set();
  if (focus >= 0) {
    near.add(focus);
    for (const k of [...state.out[focus], ...state.in[focus]]) {
      if (!edgeVisible[k]) continue;
      nearEdges.add(k);
      near.add(edges[k].from);
      near.add(edges[k].to);
    }
  }
  if (state.selectedEdge >= 0 && edgeVisible[state.selectedEdge]) nearEdges.add(state.selectedEdge);
  state.highlight = {focus, near, nearEdges};
  const dimmed = focus >= 0 || state.selectedEdge >= 0;
  const arrows = state.scale * state.rowGap >= LABEL_MIN_ROW;

  // edges, batched by status (one path per status)
  const normal = new Map(EDGE_ORDER.map((s) => [s, []]));
  const bright = new Map(EDGE_ORDER.map((s) => [s, []]));
  let drawn = 0;
  for (let k = 0; k < edges.length; k++) {
    if (!edgeVisible[k]) continue;
    const c = curve(edges[k]);
    if (!edgeOnScreen(c)) continue;
    drawn += 1;
    const bucket = nearEdges.has(k) ? bright : normal;
    (bucket.get(edges[k].status) || bucket.get("used")).push(c);
  }
  state.drawnEdges = drawn;
  for (const status of EDGE_ORDER) {
    const list = normal.get(status);
    if (!list.length) continue;
    const alpha = dimmed ? 0.08 : (status === "used" ? 0.35 : 0.7);
    strokeEdges(list, status, alpha, status === "hidden" ? 1.4 : 1);
    if (arrows && !dimmed) arrowHeads(list, status, alpha);
  }
  for (const status of EDGE_ORDER) {
    const list = bright.get(status);
    if (!list.length) continue;
    strokeEdges(list, status, 1, 2);
    arrowHeads(list, status, 1);
  }
  if (state.selectedEdge >= 0 && edgeVisible[state.selectedEdge]) {  // the chosen edge, thicker
    const e = edges[state.selectedEdge];
    strokeEdges([curve(e)], e.status, 1, 3.5);
  }
  // symbol counts on the highlighted edges
  if (nearEdges.size && nearEdges.size < 400) {
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    ctx.font = "10px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const k of nearEdges) {
      const e = edges[k];
      if (!e.count) continue;
      const [x, y] = curvePoint(e, 0.5);
      const text = String(e.count);
      const w = ctx.measureText(text).width + 6;
      ctx.fillStyle = "rgba(255,255,255,0.9)";
      ctx.fillRect(x - w / 2, y - 7, w, 14);
      ctx.fillStyle = (STATUS_STYLE[e.status] || STATUS_STYLE.used).color;
      ctx.fillText(text, x, y);
    }
  }

  // nodes
  ctx.setLineDash([]);
  const labelsForAll = state.scale * state.rowGap >= LABEL_MIN_ROW;
  ctx.font = LABEL_FONT;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (let i = 0; i < nodes.length; i++) {
    if (!nodeVisible[i]) continue;
    const n = nodes[i];
    const [x, y] = toScreen(n.x, n.y);
    if (x < -300 || x > state.width + 20 || y < -20 || y > state.height + 20) continue;
    const faded = dimmed && !near.has(i) && !state.matchSet.has(i);
    ctx.globalAlpha = faded ? 0.2 : 1;
    if (state.matchSet.has(i)) {
      ctx.fillStyle = "#ffd54f";
      ctx.beginPath();
      ctx.arc(x, y, NODE_RADIUS + 5, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.beginPath();
    ctx.arc(x, y, NODE_RADIUS + (i === focus ? 2 : 0), 0, 2 * Math.PI);
    if (n.missing) {
      ctx.fillStyle = "#ffffff";
      ctx.fill();
      ctx.setLineDash([2, 2]);
      ctx.strokeStyle = KIND_COLOR.missing;
      ctx.lineWidth = 1.2;
      ctx.stroke();
      ctx.setLineDash([]);
    } else {
      ctx.fillStyle = KIND_COLOR[n.kind] || KIND_COLOR["other-elf"];
      ctx.fill();
    }
    if (i === state.selectedNode) {
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x, y, NODE_RADIUS + 4, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (labelsForAll || near.has(i) || state.matchSet.has(i)) {
      const text = n.short.replace(/[\u0000-\u001f]/g, " ");
      if (!labelsForAll) {  // a label on a crowded view gets a white background
        ctx.fillStyle = "rgba(255,255,255,0.85)";
        ctx.fillRect(x + NODE_RADIUS + 2, y - 7, n.width + 4, 14);
      }
      ctx.fillStyle = n.missing ? "#6d6d6d" : "#1a1a1a";
      ctx.fillText(text, x + NODE_RADIUS + 4, y);
    }
  }
  ctx.globalAlpha = 1;
  state.frames += 1;
  state.lastFrameMs = performance.now();
  state.lastDrawMs = state.lastFrameMs - started;
}

// ------------------------------------------------------------------ hit-testing

export function nodeAt(sx, sy) {
  const labels = state.scale * state.rowGap >= LABEL_MIN_ROW;
  let best = -1;
  let bestDist = (NODE_RADIUS + 5) ** 2;
  for (let i = 0; i < state.nodes.length; i++) {
    if (!state.nodeVisible[i]) continue;
    const n = state.nodes[i];
    const x = n.x * state.scale + state.tx;
    const y = n.y * state.scale + state.ty;
    const d = (x - sx) ** 2 + (y - sy) ** 2;
    if (d <= bestDist) {
      best = i;
      bestDist = d;
    } else if (best < 0 && labels && sx >= x && sx <= x + NODE_RADIUS + 4 + n.width && Math.abs(sy - y) <= 6) {
      best = i;  // on its label
    }
  }
  return best;
}

function distToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  const t = len ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

export function edgeAt(sx, sy) {
  let best = -1;
  let bestDist = 5;
  for (let k = 0; k < state.edges.length; k++) {
    if (!state.edgeVisible[k]) continue;
    const c = curve(state.edges[k]);
    if (sx < Math.min(c[0], c[6]) - 6 || sx > Math.max(c[0], c[6]) + 6 ||
        sy < Math.min(c[1], c[7]) - 6 || sy > Math.max(c[1], c[7]) + 6) continue;
    let [px, py] = [c[0], c[1]];
    for (let s = 1; s <= 16; s++) {
      const [qx, qy] = curvePoint(state.edges[k], s / 16);
      const d = distToSegment(sx, sy, px, py, qx, qy);
      if (d < bestDist) {
        bestDist = d;
        best = k;
      }
      [px, py] = [qx, qy];
    }
  }
  return best;
}

export function zoomAt(sx, sy, factor) {
  const [wx, wy] = toWorld(sx, sy);
  state.scale = Math.min(8, Math.max(0.01, state.scale * factor));
  state.tx = sx - wx * state.scale;
  state.ty = sy - wy * state.scale;
  requestDraw();
}
