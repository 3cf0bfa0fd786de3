// The shared state of the whole-firmware view: the graph as the API gives it, what the user chose
// (grouping, colouring, filters, focus, isolation, selection: all of it kept in the URL by
// whole-url.js) and what follows from it (the modules and edges shown). whole-graph.js draws it.
import {BACKWARD, LATER_EDGES, STATUSES, printable} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE} from "./licence.js";
import {sourceColour} from "./source.js";
import {VOCABULARY} from "./vocabulary.js";

const MODULE_KINDS = VOCABULARY.kinds.filter((k) => k.module);
export const KIND_ORDER = MODULE_KINDS.map((k) => k.name);
export const KIND_COLOR = Object.fromEntries(MODULE_KINDS.map((k) => [k.name, k.color]));
export const GROUPINGS = ["folder", "package", "licence", "none"];
export const DIRECTIONS = ["both", "out", "in"];  // along the edges (dependencies), against them (users)
export const MAX_HOPS = 6;
const MAX_LABEL = 48;  // characters drawn in a node (the panel shows the whole name)

export const state = {
  nodes: [], edges: [], out: [], in: [], index: new Map(), allKinds: [],
  // chosen by the user (whole-url.js reads and writes them)
  group: "folder", colourBy: "kind", dir: "", onlyConnected: false,
  statusOn: new Set([...STATUSES, ...LATER_EDGES]), kindOn: new Set(), licenceOn: new Set(LICENCE_CLASSES),
  focus: -1, hops: 1, direction: "both", isolate: false, selectedNode: -1, selectedEdge: -1,
  modules: false, expanded: new Set(),  // every module at once, or the groups (these ones open)
  process: null,  // {focus, edges: Set of edge indices}: the link map of the program in focus

  // what follows from it
  nodeVisible: new Uint8Array(0), edgeVisible: new Uint8Array(0), visibleNodeCount: 0, visibleEdgeCount: 0,
  hover: -1, matches: [], matchSet: new Set(), matchCursor: -1,
};

/** The fill of a module: by kind, by licence class or by source status (colourBy). */
export function nodeColour(n) {
  if (state.colourBy === "source" && !n.missing && n.kind !== "kernel") return sourceColour(n.source);
  if (state.colourBy === "licence" && n.licence) return (LICENCE_STYLE[n.licence] || LICENCE_STYLE.unknown).color;
  return KIND_COLOR[n.kind] || KIND_COLOR["other-elf"];
}

/** The group a module belongs to in the overview (folder, package or licence class). */
export function groupOf(n) {
  if (state.group === "folder") return n.missing ? "missing libraries" : (n.kind === "kernel" ? "the kernel" : n.dir);
  if (state.group === "package") return n.package || "no package";
  if (state.group === "licence") return n.licence ? LICENCE_STYLE[n.licence].label : "no licence";
  return null;
}

/** The API's answer as arrays indexed by number, with the edges out of and into each module. */
export function prepare(data) {
  state.index = new Map();
  state.nodes = data.nodes.map((n, i) => {
    state.index.set(n.id, i);
    const kind = n.missing ? "missing" : (n.kind || "other-elf");
    const label = n.label || n.path || "";
    const shown = printable(label);
    return {id: n.id, path: n.path, key: n.path || n.label, label, kind, dir: n.dir || "", missing: Boolean(n.missing),
      package: n.package || null, source: n.source_status || null, licence: n.missing || n.kind === "kernel" ? null : (n.licence_class || "unknown"),
      search: `${n.path || ""}\n${label}`.toLowerCase(),
      short: shown.length > MAX_LABEL ? `${shown.slice(0, MAX_LABEL - 1)}…` : shown};
  });
  state.out = state.nodes.map(() => []);
  state.in = state.nodes.map(() => []);
  state.edges = [];
  for (const e of data.edges) {
    const from = state.index.get(e.from);
    const to = state.index.get(e.to);
    if (from === undefined || to === undefined) continue;
    const k = state.edges.length;
    state.edges.push({id: e.id, from, to, status: e.status, count: e.count || 0, link: e.link || "elf",
      gplOnly: e.gpl_only || 0, certainty: e.certainty || null});
    state.out[from].push(k);
    state.in[to].push(k);
  }
  const present = new Set(state.nodes.map((n) => n.kind));
  state.allKinds = [...KIND_ORDER.filter((k) => present.has(k)), ...[...present].filter((k) => !KIND_ORDER.includes(k))];
  state.kindOn = new Set(state.allKinds);
}

export function nodeIndex(key) {
  return state.nodes.findIndex((n) => n.key === key || n.id === key);
}

export function edgeIndex(from, to) {
  return state.edges.findIndex((e) => state.nodes[e.from].key === from && state.nodes[e.to].key === to);
}

/** Whether "what it depends on" may follow edge k: only the edges of the link map of the program
 * in focus, when it has one (a library's edges into other programs are in their processes). */
function inProcess(k) {
  const p = state.process;
  return !(p && p.focus === state.focus && state.direction === "out" && p.edges.size) || p.edges.has(k);
}

/** The modules within `hops` edges of `start` (edges allowed by `edgeOk`), in `direction`; "what it
 * depends on" and "what uses it" follow no upcall (its target loads its source: no dependency). */
function neighbourhood(start, hops, direction, edgeOk) {
  const seen = new Set([start]);
  let ring = [start];
  const ok = (k) => edgeOk[k] && (direction === "both" || !BACKWARD.has(state.edges[k].status));
  for (let h = 0; h < hops && ring.length; h++) {
    const next = [];
    for (const i of ring) {
      const steps = [];
      if (direction !== "in") for (const k of state.out[i]) if (ok(k) && inProcess(k)) steps.push(state.edges[k].to);
      if (direction !== "out") for (const k of state.in[i]) if (ok(k)) steps.push(state.edges[k].from);
      for (const j of steps) if (!seen.has(j)) { seen.add(j); next.push(j); }
    }
    ring = next;
  }
  return seen;
}

/** Which modules and edges the filters (and the focus, when there is one) leave. */
export function computeVisible() {
  const {nodes, edges, dir} = state;
  const nodeOk = new Uint8Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const inDir = !dir || (!n.missing && (n.dir === dir || n.dir.startsWith(dir === "/" ? "/" : `${dir}/`)));
    const licenceOk = n.licence === null || state.licenceOn.has(n.licence);  // missing sonames, the kernel
    nodeOk[i] = state.kindOn.has(n.kind) && licenceOk && (inDir || (n.missing && !dir)) ? 1 : 0;
  }
  if (state.focus >= 0) nodeOk[state.focus] = 1;  // the module in focus stays, whatever the filters
  const edgeOk = new Uint8Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k];
    edgeOk[k] = state.statusOn.has(e.status) && nodeOk[e.from] && nodeOk[e.to] ? 1 : 0;
  }
  if (state.focus >= 0) {
    const near = neighbourhood(state.focus, state.hops, state.direction, edgeOk);
    for (let i = 0; i < nodes.length; i++) if (!near.has(i)) nodeOk[i] = 0;
    // among them, only the edges of the program's link map when "what it depends on" follows it
    for (let k = 0; k < edges.length; k++) if (edgeOk[k] && !(nodeOk[edges[k].from] && nodeOk[edges[k].to] && inProcess(k))) edgeOk[k] = 0;
  }
  if (state.onlyConnected) {
    const touched = new Uint8Array(nodes.length);
    for (let k = 0; k < edges.length; k++) if (edgeOk[k]) touched[edges[k].from] = touched[edges[k].to] = 1;
    for (let i = 0; i < nodes.length; i++) if (!touched[i] && i !== state.focus) nodeOk[i] = 0;
  }
  state.nodeVisible = nodeOk;
  state.edgeVisible = edgeOk;
  state.visibleNodeCount = nodeOk.reduce((a, b) => a + b, 0);
  state.visibleEdgeCount = edgeOk.reduce((a, b) => a + b, 0);
  // a selection the filters hide is no selection any more
  if (state.selectedNode >= 0 && !nodeOk[state.selectedNode]) state.selectedNode = -1;
  if (state.selectedEdge >= 0 && !edgeOk[state.selectedEdge]) state.selectedEdge = -1;
}
