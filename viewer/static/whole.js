// The whole-firmware view: every module and every edge, drawn by Cytoscape.js and laid out by ELK
// in a Web Worker. Three ways to look: the overview (modules in a box per folder, package or
// licence class; filters hide without moving anything), a focus (a module's neighbourhood, N hops
// in a direction, laid out again in layers with every label on) and an isolated set (the modules the
// filters leave, laid out again). Single click selects, double click opens a module's page; the
// state is in the URL (whole-url.js) and each change is a history entry.
// This file loads the data, decides what is laid out and offers window.linkgraphWhole to tests
// and benchmarks.
import {apiUrl, errorBox, fileHref, getJson} from "./common.js";
import {buildControls, syncControls} from "./whole-controls.js";
import {READABLE_PX, applyMarks, applyVisibility, createGraph, fitView, graph, reveal, room, show} from "./whole-graph.js";
import {aggregate, groupList, grouping, groupsOfShown} from "./whole-groups.js";
import {setActions, showJoined, showSelection} from "./whole-info.js";
import {LABEL_FONT_PX, LAYERED_LIMIT, TITLE_FONT_PX, fitScale, layeredLayout, packedLayout, shapedLayout, warmUp} from "./whole-layout.js";
import {placed, recheck, watchNote} from "./whole-note.js";
import {buildPathFinder, loadProcess} from "./whole-path.js";
import {computeVisible, edgeIndex, groupOf, nodeIndex, prepare, state} from "./whole-state.js";
import {fromQuery, pushState} from "./whole-url.js";
import {testingApi} from "./whole-testing.js";

const loading = document.getElementById("whole-loading");
const api = testingApi();
window.linkgraphWhole = api;
let layoutKey = null;
let layoutSeq = 0;
let marks = {focus: -1, near: new Set(), nearEdges: new Set()};
let opened = null;  // the group just opened: the view fits its modules
const overviews = new Map();  // grouping -> its laid-out overview (coming back to it costs no layout)

function mode() {
  if (state.focus >= 0) return "focus";
  if (state.isolate) return "isolate";
  return state.modules ? "overview" : "groups";
}

function shownIndices(flags) {
  const out = [];
  for (let i = 0; i < flags.length; i++) if (flags[i]) out.push(i);
  return out;
}

/** The groups, the open ones as their modules: in layers, or packed in boxes when too many. */
async function layOutGroups() {
  const closed = aggregate();
  const units = closed.units.map((u) => (u.i === undefined ? u : state.nodes[u.i]));
  const indices = closed.units.filter((u) => u.i !== undefined).map((u) => u.i);
  let positions;
  if (units.length <= LAYERED_LIMIT) {
    const ids = (k) => ({id: state.edges[k].id, from: state.nodes[state.edges[k].from].id, to: state.nodes[state.edges[k].to].id});
    // shaped to the pane, so that every group is in view at open with its title legible
    positions = await layeredLayout(units, [...closed.modules.map(ids), ...closed.joined], 30, room());
    if (!indices.length && fitScale(positions, room()) < READABLE_PX / TITLE_FONT_PX) {  // too wide in layers
      const packed = await shapedLayout(units, room());
      if (fitScale(packed, room()) > fitScale(positions, room())) positions = packed;
    }
  } else {
    const boxes = new Map();
    closed.units.forEach((u, n) => {
      const name = u.i === undefined ? "closed groups" : u.group;
      if (!boxes.has(name)) boxes.set(name, {label: name, members: []});
      boxes.get(name).members.push(units[n]);
    });
    positions = await packedLayout(boxes);
  }
  return {indices, edges: closed.modules, positions, closed};
}


async function layOut(current) {
  if (current === "groups") return layOutGroups();
  const all = current === "overview";
  const indices = all ? state.nodes.map((_, i) => i) : shownIndices(state.nodeVisible);
  const edges = all ? state.edges.map((_, k) => k) : shownIndices(state.edgeVisible);
  if (current !== "overview" && indices.length <= LAYERED_LIMIT) {
    const ids = (k) => ({id: state.edges[k].id, from: state.nodes[state.edges[k].from].id, to: state.nodes[state.edges[k].to].id});
    return {indices, edges, positions: await layeredLayout(indices.map((i) => state.nodes[i]), edges.map(ids), 60, room())};
  }
  const {groups, parent} = grouping(indices);
  const positions = await packedLayout(groups);
  const boxes = state.group === "none" ? null : new Map([...groups].map(([id, g]) => [id, g.label]));
  return {indices, edges, positions, boxes, parentOf: boxes ? (i) => parent.get(i) : null};
}

/** Work out what is shown, lay it out again when that changed the set to lay out, draw (busy from
 * the start: the link map of a focus may be asked first). */
let drawing = Promise.resolve();
async function render(options = {}) {
  api.busy += 1;
  const run = drawing.then(() => draw(options));  // one at a time: a change waits for the one before
  drawing = run.catch(() => {});
  try {
    await run;
  } finally {
    api.busy -= 1;
  }
}

async function draw({push = true, fit = false}) {
  const begun = performance.now();
  await loadProcess();
  computeVisible();
  if (push) pushState();
  const current = mode();
  const key = current === "overview" ? `overview:${state.group}`
    : current === "groups" ? `groups:${state.group}:${[...state.expanded].join("\n")}:${shownIndices(state.nodeVisible).length}:${shownIndices(state.edgeVisible).join(",")}`
    : `${current}:${state.group}:${shownIndices(state.nodeVisible).join(",")}:${shownIndices(state.edgeVisible).join(",")}`;
  let again = fit;
  if (key !== layoutKey) {
    const seq = ++layoutSeq;
    loading.textContent = api.ready ? "Laying out…" : "Loading the graph…";
    loading.hidden = false;
    const started = performance.now();
    try {
      const laid = overviews.get(key) || await layOut(current).catch((err) => {
        loading.replaceChildren(errorBox(`Cannot lay the graph out: ${err.message || err}`));
        throw err;
      });
      if (current === "overview") overviews.set(key, laid);
      if (seq !== layoutSeq) return;  // a newer change is being laid out
      const laidOut = performance.now();
      show(laid.indices, laid.edges, laid.positions, laid.boxes, laid.parentOf, laid.closed);
      layoutKey = key;
      api.lastLayoutMs = laidOut - started;
      api.lastShowMs = performance.now() - laidOut;
      api.layouts += 1;
      again = true;
    } finally {
      if (seq === layoutSeq && !loading.querySelector(".error")) loading.hidden = true;
    }
  }
  const t = [performance.now()];
  applyVisibility();
  t.push(performance.now());
  marks = applyMarks();
  t.push(performance.now());
  showSelection();
  syncControls();
  t.push(performance.now());
  groupList(current === "groups", toggleGroup);
  if (again) {
    const only = current === "groups" && state.expanded.has(opened) ? openedIds(opened) : null;
    fitView(floor(current, only), only, current === "focus" ? state.focus : -1);
    placed();
  } else recheck();
  opened = null;
  t.push(performance.now());
  api.steps = t.slice(1).map((x, i) => Math.round(x - t[i]));
  api.renders += 1;
  api.lastRenderMs = performance.now() - begun;
}

/** The smallest zoom at which the view opens: labels of READABLE_PX at least in a focus, among the
 * groups and among a few modules of open groups. */
function floor(current, only) {
  if (current === "focus") return READABLE_PX / LABEL_FONT_PX;
  if (current !== "groups") return 0;
  if (!state.expanded.size) return READABLE_PX / TITLE_FONT_PX;
  const open = [...groupsOfShown()].filter(([name]) => state.expanded.has(name));
  const count = only ? only.size : open.reduce((n, [, members]) => n + members.length, 0);
  return count <= 150 ? READABLE_PX / LABEL_FONT_PX : 0;
}

/** The ids of the shown modules of group `name` (the view fits them when it opens). */
function openedIds(name) {
  return new Set((groupsOfShown().get(name) || []).map((i) => state.nodes[i].id));
}

function toggleGroup(name) {
  if (state.expanded.has(name)) state.expanded.delete(name);
  else {
    state.expanded.add(name);
    opened = name;
  }
  return render();
}

function selectNode(i) {
  if (i >= 0 && mode() === "groups" && !state.expanded.has(groupOf(state.nodes[i]) ?? "all modules")) {
    opened = groupOf(state.nodes[i]) ?? "all modules";  // its group opens to show it
    state.expanded.add(opened);
    state.selectedNode = i;
    state.selectedEdge = -1;
    return render();
  }
  state.selectedNode = i;
  state.selectedEdge = -1;
  marks = applyMarks();
  showSelection();
  if (i >= 0) reveal(i);
  pushState();
}

function selectEdge(k) {
  state.selectedEdge = k;
  state.selectedNode = -1;
  marks = applyMarks();
  showSelection();
  pushState();
}

/** An aggregated edge clicked: no single edge is selected, the panel lists the ones it stands for. */
function joined(from, to, members) {
  state.selectedNode = -1;
  state.selectedEdge = -1;
  marks = applyMarks();
  pushState();
  showJoined(from, to, members);
}

function focusOn(i) {
  state.focus = i;
  state.selectedNode = i;
  state.selectedEdge = -1;
  return render();
}

function hover(i) {
  state.hover = i;
  marks = applyMarks();
}

function open(i) {
  const n = state.nodes[i];
  if (n.path) location.assign(fileHref(n.path));
}

Object.assign(api, {
  /** Select a module (path or missing soname); null clears the selection. */
  select(key) {
    const i = key === null ? -1 : nodeIndex(key);
    if (i >= 0 || key === null) selectNode(i);
    return i >= 0;
  },
  /** Open the side panel of the edge from one module to another (paths, missing names, "vmlinux"). */
  selectEdge(from, to) {
    const k = edgeIndex(from, to);
    if (k >= 0) selectEdge(k);
    return k >= 0;
  },
  /** Focus on a module (a promise, resolved once it is laid out and drawn). */
  focus(key, hops = state.hops, direction = state.direction) {
    state.hops = hops;
    state.direction = direction;
    return focusOn(nodeIndex(key));
  },
  /** Open or close a group of the opening picture (a promise, resolved once drawn). */
  toggleGroup,
  /** Show every module at once (true) or the groups (false). */
  everyModule(on) {
    state.modules = Boolean(on);
    return render();
  },
  isolate(on) {
    state.isolate = Boolean(on);
    return render();
  },
  setStatus(status, on) {
    if (on) state.statusOn.add(status);
    else state.statusOn.delete(status);
    return render();
  },
  fit: () => {
    fitView();
    placed();
  },
  redraw: () => graph().forceRender(),
  highlighted() {
    if (marks.focus < 0) return {focus: null, nodes: [], edges: marks.nearEdges.size};
    return {focus: state.nodes[marks.focus].key, nodes: [...marks.near].map((i) => state.nodes[i].key).sort(),
      edges: marks.nearEdges.size};
  },
});

async function main() {
  warmUp();
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
  api.nodes = state.nodes.length;
  api.edges = state.edges.length;
  fromQuery();
  setActions({select: selectNode, selectEdge, focus: focusOn});
  buildControls({changed: () => render(), select: selectNode, fit: api.fit, marks: () => { marks = applyMarks(); }});
  const cy = createGraph(document.getElementById("whole-canvas"),
    {node: selectNode, edge: selectEdge, joined, none: () => selectNode(-1), open, hover, group: toggleGroup});
  document.getElementById("whole-modules").addEventListener("click", () => api.everyModule(!state.modules));
  watchNote(() => api.everyModule(false));
  buildPathFinder(async (names) => {
    const closed = mode() === "groups" ? [...names].filter((n) => !state.expanded.has(n)) : [];
    for (const name of closed) state.expanded.add(name);
    if (closed.length) await render();
  });
  cy.on("render", () => {
    api.frames += 1;
    api.lastFrameMs = performance.now();
  });
  window.addEventListener("popstate", () => {
    fromQuery();
    render({push: false});
  });
  await render({push: false, fit: true});
  requestAnimationFrame(() => requestAnimationFrame(() => {
    api.firstFrameMs = performance.now();
    api.ready = true;
    document.body.dataset.ready = "1";
  }));
}

main();
