// The whole-firmware view: every module and every dependency edge on one <canvas>, placed at the
// x/y the API gives. Drag to pan, wheel to zoom; hovering or clicking a module highlights its
// neighbourhood; clicking an edge asks the API for its symbols. This file loads the data and
// offers window.linkgraphWhole to tests and benchmarks; whole-state.js holds the view's state,
// whole-canvas.js draws, whole-controls.js, whole-info.js and whole-input.js handle the user.
import {apiUrl, errorBox, getJson} from "./common.js";
import {draw, fit, resize} from "./whole-canvas.js";
import {applyFilters, buildControls} from "./whole-controls.js";
import {selectEdge, selectNode} from "./whole-info.js";
import {wireCanvas} from "./whole-input.js";
import {LABEL_FONT, ctx, curvePoint, state} from "./whole-state.js";

const MAX_LABEL = 48;        // characters drawn on the canvas (the panel shows the whole name)

const api = {
  ready: false, firstFrameMs: null, dataMs: null, nodes: 0, edges: 0,
  get frames() { return state.frames; },
  get lastFrameMs() { return state.lastFrameMs; },
  get lastDrawMs() { return state.lastDrawMs; },
  visibleEdges: () => state.visibleEdgeCount,
  visibleNodes: () => state.visibleNodeCount,
  drawnEdges: () => state.drawnEdges,
  /** Screen position (CSS pixels, relative to the canvas) of a module given by path or missing soname. */
  nodePosition(key) {
    const i = nodeIndex(key);
    if (i < 0) return null;
    const n = state.nodes[i];
    return {x: n.x * state.scale + state.tx, y: n.y * state.scale + state.ty};
  },
  /** Screen position of the middle of the edge from one module to another (or null). */
  edgePosition(from, to) {
    const e = edgeIndex(from, to);
    if (e < 0) return null;
    const p = curvePoint(state.edges[e], 0.5);
    return {x: p[0], y: p[1]};
  },
  select(key) {
    const i = nodeIndex(key);
    if (i >= 0) selectNode(i, true);
    return i >= 0;
  },
  /** Open the side panel of the edge from one module to another (paths, missing names, "vmlinux"). */
  selectEdge(from, to) {
    const e = edgeIndex(from, to);
    if (e >= 0) selectEdge(e);
    return e >= 0;
  },
  /** The edges shown now, by link (elf, kernel, dlopen) and status: {kernel: {used: 3}, ...}. */
  visibleLinks() {
    const out = {};
    state.edges.forEach((e, k) => {
      if (!state.edgeVisible[k]) return;
      const per = out[e.link] || (out[e.link] = {});
      per[e.status] = (per[e.status] || 0) + 1;
    });
    return out;
  },
  setStatus(status, on) {
    const box = document.querySelector(`#whole-status input[value="${CSS.escape(status)}"]`);
    if (box) {
      box.checked = on;
      box.dispatchEvent(new Event("change"));
    }
  },
  fit: () => fit(),
  redraw: () => draw(),
  selected: () => (state.selectedNode >= 0 ? state.nodes[state.selectedNode].key : null),
  /** The modules shown now (paths, or sonames of missing libraries), sorted. */
  visibleKeys: () => state.nodes.filter((_, i) => state.nodeVisible[i]).map((n) => n.key).sort(),
  /** What the last frame highlighted: the module in focus (hovered or selected), its neighbours, its edges. */
  highlighted() {
    const h = state.highlight;
    if (!h || h.focus < 0) return {focus: null, nodes: [], edges: h ? h.nearEdges.size : 0};
    return {focus: state.nodes[h.focus].key, nodes: [...h.near].map((i) => state.nodes[i].key).sort(),
      edges: h.nearEdges.size};
  },
};
window.linkgraphWhole = api;

function nodeIndex(key) {
  return state.nodes.findIndex((n) => n.key === key || n.id === key);
}

function edgeIndex(from, to) {
  return state.edges.findIndex((e) => state.nodes[e.from].key === from && state.nodes[e.to].key === to);
}

function prepare(data) {
  const index = new Map();
  state.nodes = data.nodes.map((n, i) => {
    index.set(n.id, i);
    const kind = n.missing ? "missing" : (n.kind || "other-elf");
    const label = n.label || n.path || "";
    return {id: n.id, path: n.path, key: n.path || n.label, label, kind, dir: n.dir || "", missing: Boolean(n.missing),
      licence: n.missing || n.kind === "kernel" ? null : (n.licence_class || "unknown"),
      x: Number(n.x), y: Number(n.y), search: `${n.path || ""}\n${label}`.toLowerCase(),
      short: label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label, width: 0};
  });
  state.out = state.nodes.map(() => []);
  state.in = state.nodes.map(() => []);
  state.edges = [];
  for (const e of data.edges) {
    const from = index.get(e.from);
    const to = index.get(e.to);
    if (from === undefined || to === undefined) continue;
    const k = state.edges.length;
    state.edges.push({id: e.id, from, to, status: e.status, count: e.count || 0, link: e.link || "elf",
      gplOnly: e.gpl_only || 0, certainty: e.certainty || null});
    state.out[from].push(k);
    state.in[to].push(k);
  }
  ctx.font = LABEL_FONT;
  for (const n of state.nodes) n.width = ctx.measureText(n.short.replace(/[\u0000-\u001f]/g, " ")).width;
  // the row spacing of the layout: the smallest vertical gap between two modules of one column
  const columns = new Map();
  for (const n of state.nodes) {
    if (!columns.has(n.x)) columns.set(n.x, []);
    columns.get(n.x).push(n.y);
  }
  let gap = Infinity;
  for (const ys of columns.values()) {
    ys.sort((a, b) => a - b);
    for (let i = 1; i < ys.length; i++) if (ys[i] > ys[i - 1]) gap = Math.min(gap, ys[i] - ys[i - 1]);
  }
  state.rowGap = Number.isFinite(gap) && gap > 0 ? gap : 26;
  api.nodes = state.nodes.length;
  api.edges = state.edges.length;
}

async function main() {
  const loading = document.getElementById("whole-loading");
  let data;
  try {
    data = await getJson(apiUrl("whole"));
  } catch (err) {
    loading.replaceWith(errorBox(`Cannot load the graph: ${err.message}`));
    document.body.dataset.ready = "error";
    return;
  }
  api.dataMs = performance.now();
  prepare(data);
  buildControls();
  resize();
  applyFilters();
  fit();
  wireCanvas();
  loading.remove();
  draw();  // the first full frame, now; the next animation frame is when it is on screen
  requestAnimationFrame(() => {
    api.firstFrameMs = performance.now();
    api.ready = true;
    document.body.dataset.ready = "1";
  });
}

main();
