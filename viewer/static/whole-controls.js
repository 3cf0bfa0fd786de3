// The controls of the whole-firmware view: grouping, filters by edge status, kind, licence class and
// folder, the colouring with its legend, the focus (hops, direction), isolation and the search box.
// Each control changes the state and calls `changed()` (whole.js lays out, draws, pushes the URL);
// syncControls() puts the state back into the controls (after Back or Forward).
import {EDGE_STYLE, KIND_LABEL, LATER_EDGES, STATUSES, clear, el, legend, plural} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE, classTag, licencesHref} from "./licence.js";
import {sourceLegend} from "./source.js";
import {nodeButton} from "./whole-info.js";
import {KIND_ORDER, MAX_HOPS, state} from "./whole-state.js";

const $ = (id) => document.getElementById(id);
const searchBox = $("whole-search");
const matchesBox = $("whole-matches");
let changed = () => {};
let onSelect = () => {};

/** A checkbox per value that adds it to or takes it from the set `state[key]`. */
function checkbox(box, key, value, ...label) {
  const input = el("input", {type: "checkbox", value, dataset: {set: key}});
  input.addEventListener("change", () => {
    if (input.checked) state[key].add(value);
    else state[key].delete(value);
    changed();
  });
  box.appendChild(el("label", {className: "check"}, input, ...label));
}

function counts(items, key) {
  const out = new Map();
  for (const item of items) if (item[key]) out.set(item[key], (out.get(item[key]) || 0) + 1);
  return out;
}

function select(id, key, convert = (v) => v) {
  $(id).addEventListener("change", () => {
    state[key] = convert($(id).value);
    changed();
  });
}

export function buildControls(actions) {
  changed = actions.changed;
  onSelect = actions.select;
  const statusBox = $("whole-status");
  const statuses = counts(state.edges, "status");
  for (const status of [...STATUSES, ...LATER_EDGES]) {  // dlopen: no start-up status, counted apart
    checkbox(statusBox, "statusOn", status, el("span", {className: `legend-line line-${status}`}),
      `${status} (${statuses.get(status) || 0})`);
  }
  const kernelLinks = state.edges.filter((e) => e.link === "kernel").length;
  if (kernelLinks) {
    statusBox.appendChild(el("p", {className: "help muted kernel-links-note"},
      `${plural(kernelLinks, "kernel-module link")} among them (to modules and to the kernel, by the kernel's rules)`));
  }
  const only = el("input", {type: "checkbox", id: "whole-connected"});
  only.addEventListener("change", () => {
    state.onlyConnected = only.checked;
    changed();
  });
  statusBox.appendChild(el("label", {className: "check"}, only, "only modules with a shown edge"));

  const kinds = counts(state.nodes, "kind");
  for (const kind of state.allKinds) {
    checkbox($("whole-kind"), "kindOn", kind, el("span", {className: `kind kind-${kind}`}, KIND_LABEL[kind] || kind),
      ` ${kind} (${kinds.get(kind)})`);
  }
  const licences = counts(state.nodes, "licence");
  for (const cls of LICENCE_CLASSES) {
    checkbox($("whole-licence"), "licenceOn", cls, classTag(cls), ` (${licences.get(cls) || 0})`);
  }
  $("whole-licence").appendChild(el("p", {className: "help"}, el("a", {href: licencesHref()}, "The licence findings")));
  const dirs = counts(state.nodes, "dir");
  for (const dir of [...dirs.keys()].sort()) $("whole-dir").appendChild(el("option", {value: dir}, `${dir} (${dirs.get(dir)})`));
  select("whole-group", "group");
  select("whole-colour", "colourBy");
  select("whole-dir", "dir");
  select("whole-direction", "direction");
  const hops = $("whole-hops");
  hops.max = String(MAX_HOPS);
  hops.addEventListener("change", () => {
    const value = Number.parseInt(hops.value, 10);
    state.hops = Number.isFinite(value) ? Math.min(MAX_HOPS, Math.max(1, value)) : 1;
    changed();
  });
  $("whole-unfocus").addEventListener("click", () => {
    state.focus = -1;
    changed();
  });
  $("whole-isolate").addEventListener("click", () => {
    state.isolate = !state.isolate;
    changed();
  });
  $("whole-fit").addEventListener("click", () => actions.fit());

  let timer = null;
  searchBox.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      search();
      actions.marks();
    }, 150);
  });
  searchBox.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && state.matches.length) {
      state.matchCursor = (state.matchCursor + 1) % state.matches.length;
      onSelect(state.matches[state.matchCursor]);
    }
  });
}

/** Put the state into the controls, the legend and the counts. */
export function syncControls() {
  for (const input of document.querySelectorAll(".whole-controls input[data-set]")) {
    input.checked = state[input.dataset.set].has(input.value);
  }
  $("whole-connected").checked = state.onlyConnected;
  $("whole-group").value = state.group;
  $("whole-colour").value = state.colourBy;
  $("whole-dir").value = state.dir;
  $("whole-hops").value = String(state.hops);
  $("whole-direction").value = state.direction;
  const focusBox = $("whole-focus");
  focusBox.dataset.active = state.focus >= 0 ? "1" : "0";
  $("whole-unfocus").disabled = state.focus < 0;  // nothing to leave: no tab stop either
  clear($("whole-focus-name")).append(state.focus >= 0 ? nodeButton(state.focus) : "none: click a module, then " +
    "“Focus on its neighbourhood”");
  $("whole-isolate").textContent = state.isolate ? "Back to the whole overview" : "Isolate the shown modules";
  $("whole-isolate").setAttribute("aria-pressed", state.isolate ? "true" : "false");
  $("whole-stats").textContent = `${state.visibleNodeCount} of ${plural(state.nodes.length, "module")}, ` +
    `${state.visibleEdgeCount} of ${plural(state.edges.length, "edge")} shown`;
  showLegend();
}

/** The legend under the graph: the edge styles, and the colours of the current colouring. */
function showLegend() {
  const box = $("whole-legend");
  if (box.dataset.colour === state.colourBy) return;
  clear(box);
  const kinds = new Set(state.nodes.map((n) => n.kind));
  const dot = (colour) => {
    const span = el("span", {className: "legend-dot"});
    span.style.background = colour;
    return span;
  };
  const items = state.colourBy === "source" ? sourceLegend(state.nodes, dot) : state.colourBy === "licence"
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
}
