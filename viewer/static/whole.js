// The whole-firmware view: every module and every dependency edge on one <canvas>, placed at the
// x/y the API gives. Drag to pan, wheel to zoom; hovering or clicking a module highlights its
// neighbourhood; clicking an edge asks the API for its symbols. The drawing is in whole-canvas.js.
import {
  KIND_LABEL, STATUSES, apiUrl, clear, el, errorBox, fileHref, getJson, legend, plural, statusTag, symbolDetails,
} from "./common.js";
import {
  KIND_ORDER, LABEL_FONT, canvas, ctx, curvePoint, draw, edgeAt, fit, nodeAt, requestDraw, resize, state, toScreen,
  zoomAt,
} from "./whole-canvas.js";

const MAX_LABEL = 48;        // characters drawn on the canvas (the panel shows the whole name)

const info = document.getElementById("whole-info");
const searchBox = document.getElementById("whole-search");
const matchesBox = document.getElementById("whole-matches");
const statsBox = document.getElementById("whole-stats");

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

// ------------------------------------------------------------------ data

function prepare(data) {
  const index = new Map();
  state.nodes = data.nodes.map((n, i) => {
    index.set(n.id, i);
    const kind = n.missing ? "missing" : (n.kind || "other-elf");
    const label = n.label || n.path || "";
    return {id: n.id, path: n.path, key: n.path || n.label, label, kind, dir: n.dir || "", missing: Boolean(n.missing),
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
    state.edges.push({id: e.id, from, to, status: e.status, count: e.count || 0});
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

// ------------------------------------------------------------------ filters

function applyFilters() {
  const {nodes, edges} = state;
  const nodeOk = new Uint8Array(nodes.length);
  const dir = state.dir;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const inDir = !dir || (!n.missing && (n.dir === dir || n.dir.startsWith(dir === "/" ? "/" : `${dir}/`)));
    nodeOk[i] = state.kindOn.has(n.kind) && (inDir || (n.missing && !dir)) ? 1 : 0;
  }
  const edgeOk = new Uint8Array(edges.length);
  const touched = new Uint8Array(nodes.length);
  let count = 0;
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k];
    if (state.statusOn.has(e.status) && nodeOk[e.from] && nodeOk[e.to]) {
      edgeOk[k] = 1;
      touched[e.from] = 1;
      touched[e.to] = 1;
      count += 1;
    }
  }
  let shown = 0;
  for (let i = 0; i < nodes.length; i++) {
    if (state.onlyConnected && !touched[i]) nodeOk[i] = 0;
    shown += nodeOk[i];
  }
  state.nodeVisible = nodeOk;
  state.edgeVisible = edgeOk;
  state.visibleEdgeCount = count;
  state.visibleNodeCount = shown;
  statsBox.textContent = `${shown} of ${plural(nodes.length, "module")}, ${count} of ${plural(edges.length, "edge")} shown`;
  requestDraw();
}

// ------------------------------------------------------------------ the side panel

function nodeButton(i) {
  const n = state.nodes[i];
  return el("button", {type: "button", className: "link-button", title: n.key, on: {click: () => selectNode(i, true)}},
    n.label);
}

function selectNode(i, centre = false) {
  state.selectedNode = i;
  state.selectedEdge = -1;
  if (i < 0) {
    clear(info).appendChild(el("p", {className: "muted"}, "Click a module or an edge."));
    requestDraw();
    return;
  }
  const n = state.nodes[i];
  if (centre) {
    const [x, y] = toScreen(n.x, n.y);
    if (x < 40 || x > state.width - 40 || y < 40 || y > state.height - 40) {
      state.tx += state.width / 2 - x;
      state.ty += state.height / 2 - y;
    }
  }
  clear(info);
  info.dataset.node = n.key;
  delete info.dataset.edge;
  info.append(
    el("h2", {className: "node-name"}, n.label),
    n.path ? el("p", {}, el("code", {}, n.path)) : el("p", {className: "muted"}, "missing library: not in the image"),
    el("p", {}, el("span", {className: `kind kind-${n.kind}`}, KIND_LABEL[n.kind] || n.kind), " ", n.kind,
      n.dir ? " in " : "", n.dir ? el("code", {}, n.dir) : ""));
  if (n.path) info.appendChild(el("p", {}, el("a", {href: fileHref(n.path), className: "open-file"}, "Open in the file view")));
  const list = (title, ks, other) => {
    if (!ks.length) return;
    info.appendChild(el("h3", {}, `${title} (${ks.length})`));
    const ul = el("ul", {className: "plain neighbours"});
    for (const k of ks) {
      const e = state.edges[k];
      ul.appendChild(el("li", {}, nodeButton(other(e)), " ", statusTag(e.status), " ",
        el("button", {type: "button", className: "link-button small", on: {click: () => selectEdge(k)}},
          e.count ? plural(e.count, "symbol") : "details")));
    }
    info.appendChild(ul);
  };
  list("Depends on", state.out[i], (e) => e.to);
  list("Used by", state.in[i], (e) => e.from);
  requestDraw();
}

async function selectEdge(k) {
  state.selectedEdge = k;
  state.selectedNode = -1;
  const e = state.edges[k];
  const from = state.nodes[e.from];
  const to = state.nodes[e.to];
  clear(info);
  info.dataset.edge = `${from.key}\n${to.key}`;
  delete info.dataset.node;
  const body = el("div", {className: "edge-symbols"}, el("p", {className: "muted"}, "Loading the symbols…"));
  info.append(el("h2", {}, "Dependency"),
    el("p", {}, nodeButton(e.from), " → ", nodeButton(e.to)),
    el("p", {}, statusTag(e.status)), body);
  requestDraw();
  try {
    const answer = await getJson(apiUrl("edge", {from: from.key, to: to.key}));
    if (state.selectedEdge !== k) return;
    clear(body).append(el("p", {}, "soname ", el("code", {}, answer.soname || "")), symbolDetails(answer.symbols, {open: true}));
    body.dataset.state = "ready";
  } catch (err) {
    if (state.selectedEdge === k) clear(body).appendChild(errorBox(err.message));
  }
}

// ------------------------------------------------------------------ controls

function buildControls() {
  const statusBox = document.getElementById("whole-status");
  const counts = new Map();
  for (const e of state.edges) counts.set(e.status, (counts.get(e.status) || 0) + 1);
  for (const status of STATUSES) {
    const input = el("input", {type: "checkbox", value: status});
    input.checked = true;
    input.addEventListener("change", () => {
      if (input.checked) state.statusOn.add(status);
      else state.statusOn.delete(status);
      applyFilters();
    });
    statusBox.appendChild(el("label", {className: "check"}, input, el("span", {className: `legend-line line-${status}`}),
      `${status} (${counts.get(status) || 0})`));
  }
  const only = el("input", {type: "checkbox", id: "whole-connected"});
  only.addEventListener("change", () => {
    state.onlyConnected = only.checked;
    applyFilters();
  });
  statusBox.appendChild(el("label", {className: "check"}, only, "only modules with a shown edge"));

  const kindBox = document.getElementById("whole-kind");
  const kinds = new Map();
  for (const n of state.nodes) kinds.set(n.kind, (kinds.get(n.kind) || 0) + 1);
  for (const kind of [...KIND_ORDER, ...[...kinds.keys()].filter((k) => !KIND_ORDER.includes(k))]) {
    if (!kinds.has(kind)) continue;
    state.kindOn.add(kind);
    const input = el("input", {type: "checkbox", value: kind});
    input.checked = true;
    input.addEventListener("change", () => {
      if (input.checked) state.kindOn.add(kind);
      else state.kindOn.delete(kind);
      applyFilters();
    });
    kindBox.appendChild(el("label", {className: "check"}, input, el("span", {className: `kind kind-${kind}`},
      KIND_LABEL[kind] || kind), ` ${kind} (${kinds.get(kind)})`));
  }

  const dirSelect = document.getElementById("whole-dir");
  const dirs = new Map();
  for (const n of state.nodes) if (n.dir) dirs.set(n.dir, (dirs.get(n.dir) || 0) + 1);
  for (const dir of [...dirs.keys()].sort()) dirSelect.appendChild(el("option", {value: dir}, `${dir} (${dirs.get(dir)})`));
  dirSelect.addEventListener("change", () => {
    state.dir = dirSelect.value;
    applyFilters();
    fit();
  });

  let timer = null;
  searchBox.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  searchBox.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && state.matches.length) {
      state.matchCursor = (state.matchCursor + 1) % state.matches.length;
      selectNode(state.matches[state.matchCursor], true);
    }
  });
  document.getElementById("whole-fit").addEventListener("click", fit);
  const legendBox = document.getElementById("whole-legend");
  legendBox.appendChild(legend(KIND_ORDER.filter((k) => kinds.has(k)).map((k) =>
    el("span", {className: "legend-item"}, el("span", {className: `legend-dot dot-${k}`}), k))));
}

function search() {
  const q = searchBox.value.trim().toLowerCase();
  state.matches = [];
  state.matchCursor = -1;
  if (q) {
    for (let i = 0; i < state.nodes.length; i++) if (state.nodes[i].search.includes(q)) state.matches.push(i);
  }
  state.matchSet = new Set(state.matches);
  clear(matchesBox);
  if (q) {
    matchesBox.appendChild(document.createTextNode(`${plural(state.matches.length, "match", "matches")}` +
      (state.matches.length ? " (Enter: next)" : "")));
    const ul = el("ul", {className: "plain matches"});
    for (const i of state.matches.slice(0, 30)) ul.appendChild(el("li", {}, nodeButton(i)));
    if (state.matches.length > 30) ul.appendChild(el("li", {className: "muted"}, `… ${state.matches.length - 30} more`));
    matchesBox.appendChild(ul);
  }
  requestDraw();
}

function wireCanvas() {
  let drag = null;
  canvas.addEventListener("mousedown", (ev) => {
    drag = {x: ev.clientX, y: ev.clientY, tx: state.tx, ty: state.ty, moved: false};
  });
  window.addEventListener("mousemove", (ev) => {
    if (drag) {
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        state.tx = drag.tx + dx;
        state.ty = drag.ty + dy;
        canvas.classList.add("dragging");
        requestDraw();
      }
      return;
    }
    if (ev.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const i = nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i !== state.hover) {
      state.hover = i;
      canvas.style.cursor = i >= 0 ? "pointer" : "";
      requestDraw();
    }
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const wasDrag = drag.moved;
    drag = null;
    canvas.classList.remove("dragging");
    if (wasDrag || ev.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const sx = ev.clientX - r.left;
    const sy = ev.clientY - r.top;
    const i = nodeAt(sx, sy);
    if (i >= 0) {
      selectNode(i);
      return;
    }
    const k = edgeAt(sx, sy);
    if (k >= 0) selectEdge(k);
    else selectNode(-1);
  });
  canvas.addEventListener("mouseleave", () => {
    if (state.hover >= 0) {
      state.hover = -1;
      requestDraw();
    }
  });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
  }, {passive: false});
  canvas.addEventListener("keydown", (ev) => {
    const step = 60;
    const keys = {
      "ArrowLeft": () => { state.tx += step; }, "ArrowRight": () => { state.tx -= step; },
      "ArrowUp": () => { state.ty += step; }, "ArrowDown": () => { state.ty -= step; },
      "+": () => zoomAt(state.width / 2, state.height / 2, 1.25), "=": () => zoomAt(state.width / 2, state.height / 2, 1.25),
      "-": () => zoomAt(state.width / 2, state.height / 2, 0.8), "0": fit, "Escape": () => selectNode(-1),
    };
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
      requestDraw();
    }
  });
  new ResizeObserver(() => resize()).observe(canvas.parentElement);
}

// ------------------------------------------------------------------ start

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
