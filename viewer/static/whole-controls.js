// The controls of the whole-firmware view: filters by edge status, kind, licence class and folder,
// the colouring (kind or licence class) with its legend, and the search box.
import {EDGE_STYLE, KIND_LABEL, LATER_EDGES, STATUSES, clear, el, legend, plural} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE, classTag, licencesHref} from "./licence.js";
import {fit, requestDraw} from "./whole-canvas.js";
import {nodeButton, selectNode} from "./whole-info.js";
import {KIND_ORDER, state} from "./whole-state.js";

const searchBox = document.getElementById("whole-search");
const matchesBox = document.getElementById("whole-matches");
const statsBox = document.getElementById("whole-stats");

export function applyFilters() {
  const {nodes, edges} = state;
  const nodeOk = new Uint8Array(nodes.length);
  const dir = state.dir;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const inDir = !dir || (!n.missing && (n.dir === dir || n.dir.startsWith(dir === "/" ? "/" : `${dir}/`)));
    const licenceOk = n.licence === null || state.licenceOn.has(n.licence);  // missing sonames, the kernel
    nodeOk[i] = state.kindOn.has(n.kind) && licenceOk && (inDir || (n.missing && !dir)) ? 1 : 0;
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

/** A checkbox per value that adds it to or takes it from `set`, then filters again. */
function checkbox(box, set, value, ...label) {
  const input = el("input", {type: "checkbox", value});
  input.checked = set.has(value);
  input.addEventListener("change", () => {
    if (input.checked) set.add(value);
    else set.delete(value);
    applyFilters();
  });
  box.appendChild(el("label", {className: "check"}, input, ...label));
}

function counts(items, key) {
  const out = new Map();
  for (const item of items) if (item[key]) out.set(item[key], (out.get(item[key]) || 0) + 1);
  return out;
}

export function buildControls() {
  const statusBox = document.getElementById("whole-status");
  const statuses = counts(state.edges, "status");
  for (const status of STATUSES) {
    checkbox(statusBox, state.statusOn, status, el("span", {className: `legend-line line-${status}`}),
      `${status} (${statuses.get(status) || 0})`);
  }
  for (const later of LATER_EDGES) {  // dlopen: no start-up status, counted apart
    checkbox(statusBox, state.statusOn, later, el("span", {className: `legend-line line-${later}`}),
      `${later} (${statuses.get(later) || 0})`);
  }
  const kernelLinks = state.edges.filter((e) => e.link === "kernel").length;
  if (kernelLinks) {
    statusBox.appendChild(el("p", {className: "help muted kernel-links-note"},
      `${plural(kernelLinks, "kernel-module link")} among them (to modules and to the kernel, by the kernel's rules)`));
  }
  const only = el("input", {type: "checkbox", id: "whole-connected"});
  only.addEventListener("change", () => {
    state.onlyConnected = only.checked;
    applyFilters();
  });
  statusBox.appendChild(el("label", {className: "check"}, only, "only modules with a shown edge"));

  const kindBox = document.getElementById("whole-kind");
  const kinds = counts(state.nodes, "kind");
  state.kindOn.clear();
  for (const kind of [...KIND_ORDER, ...[...kinds.keys()].filter((k) => !KIND_ORDER.includes(k))]) {
    if (!kinds.has(kind)) continue;
    state.kindOn.add(kind);
    checkbox(kindBox, state.kindOn, kind, el("span", {className: `kind kind-${kind}`}, KIND_LABEL[kind] || kind),
      ` ${kind} (${kinds.get(kind)})`);
  }

  const licenceBox = document.getElementById("whole-licence");
  const licences = counts(state.nodes, "licence");
  for (const cls of LICENCE_CLASSES) {
    checkbox(licenceBox, state.licenceOn, cls, classTag(cls), ` (${licences.get(cls) || 0})`);
  }
  licenceBox.appendChild(el("p", {className: "help"}, el("a", {href: licencesHref()}, "The licence findings")));

  const colour = document.getElementById("whole-colour");
  colour.addEventListener("change", () => {
    state.colourBy = colour.value;
    showLegend(kinds);
    requestDraw();
  });
  state.colourBy = colour.value;
  showLegend(kinds);

  const dirSelect = document.getElementById("whole-dir");
  const dirs = counts(state.nodes, "dir");
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
}

/** The legend under the canvas: the edge styles, and the dot colours of the current colouring. */
function showLegend(kinds) {
  const box = clear(document.getElementById("whole-legend"));
  const dot = (colour) => {
    const span = el("span", {className: "legend-dot"});
    span.style.background = colour;
    return span;
  };
  const items = state.colourBy === "licence"
    ? LICENCE_CLASSES.map((c) => el("span", {className: "legend-item", title: LICENCE_STYLE[c].help,
      dataset: {licenceClass: c}}, dot(LICENCE_STYLE[c].color), LICENCE_STYLE[c].label))
    : KIND_ORDER.filter((k) => kinds.has(k)).map((k) =>
      el("span", {className: "legend-item", dataset: {kind: k}}, el("span", {className: `legend-dot dot-${k}`}), k));
  box.dataset.colour = state.colourBy;
  const later = LATER_EDGES.map((name) => el("span", {className: "legend-item", title: EDGE_STYLE[name].help,
    dataset: {edge: name}}, el("span", {className: `legend-line line-${name}`}), EDGE_STYLE[name].label));
  box.appendChild(legend([...later, ...items]));
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
