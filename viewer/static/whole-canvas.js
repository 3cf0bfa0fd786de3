// The drawing of the whole-firmware view on its <canvas>: edges batched by status, module dots
// (coloured by kind or by licence class), labels with fillText (text, never markup); fitting,
// resizing and zooming. The state and geometry are in whole-state.js; whole.js owns the data.
import {EDGE_STYLE, LATER_EDGES, STATUSES} from "./common.js";
import {
  KIND_COLOR, LABEL_FONT, LABEL_MIN_ROW, NODE_RADIUS, canvas, ctx, curve, curvePoint, nodeColour, state, toScreen,
  toWorld,
} from "./whole-state.js";

// the wider lines (hidden) drawn last, on top; dlopen edges are drawn in their own style too
const EDGE_ORDER = [...STATUSES, ...LATER_EDGES].sort((a, b) => EDGE_STYLE[a].width - EDGE_STYLE[b].width);

// ------------------------------------------------------------------ view

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

export function zoomAt(sx, sy, factor) {
  const [wx, wy] = toWorld(sx, sy);
  state.scale = Math.min(8, Math.max(0.01, state.scale * factor));
  state.tx = sx - wx * state.scale;
  state.ty = sy - wy * state.scale;
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
  const style = EDGE_STYLE[status] || EDGE_STYLE.used;
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
  const style = EDGE_STYLE[status] || EDGE_STYLE.used;
  const open = style.arrowhead === "empty";  // dlopen: an open arrowhead, as in the diagrams
  ctx.fillStyle = style.color;
  ctx.strokeStyle = style.color;
  ctx.lineWidth = 1;
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
  if (open) ctx.stroke();
  else ctx.fill();
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
    strokeEdges(list, status, alpha, EDGE_STYLE[status].width);
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
      ctx.fillStyle = (EDGE_STYLE[e.status] || EDGE_STYLE.used).color;
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
      ctx.fillStyle = nodeColour(n);
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
