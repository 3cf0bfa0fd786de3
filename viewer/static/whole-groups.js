// The opening picture of the whole-firmware view: one box per group (folder, package or licence
// class, whole-state.js groupOf) instead of every module, with one edge per pair of groups that
// the shown edges join, counting them (and by status). A group the user expands shows its modules
// in its place; the edges between an expanded module and a closed group are aggregated the same way.
// Also the list of the groups beside the drawing, and the boxes of the overview of every module.
// The filters apply first: a group holds the modules they leave, an edge counts the edges they leave.
import {clear, el} from "./common.js";
import {GROUP_HEIGHT, TITLE_FONT_PX, titleWidth} from "./whole-layout.js";
import {groupOf, state} from "./whole-state.js";

const LINE = 24;  // characters a line of a group's title holds before the next part of a folder's name
const LINE_PX = Math.ceil(TITLE_FONT_PX * 1.25);  // px a further line of a title adds to its box

/** A group's title whole, in lines broken before a "/" (a folder's parts), its count on the last. */
export function titleLines(name, count) {
  const lines = [];
  for (const part of name.split(/(?=\/)/)) {
    if (lines.length && lines[lines.length - 1].length + part.length <= LINE) lines[lines.length - 1] += part;
    else lines.push(part);
  }
  lines[lines.length - 1] += ` (${count})`;
  return lines;
}

/** The shown modules by group name: Map name -> [module index], names sorted. */
export function groupsOfShown() {
  const byName = new Map();
  for (let i = 0; i < state.nodes.length; i++) {
    if (!state.nodeVisible[i]) continue;
    const name = groupOf(state.nodes[i]) ?? "all modules";
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name).push(i);
  }
  return new Map([...byName].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/**
 * The units drawn: a closed group ({id, group, short, members}) or a module of an open group
 * ({id, i, group}); the edges: a module-to-module edge of an open group ({k}) or an aggregated one
 * ({id, from, to, count, statuses: {status: n}, members: [edge index]}, from and to unit ids).
 */
export function aggregate() {
  const groups = groupsOfShown();
  const units = [];
  const unitOf = new Map();  // module index -> unit id
  let g = 0;
  for (const [name, members] of groups) {
    const id = `grp${g++}`;
    if (state.expanded.has(name)) {
      for (const i of members) {
        units.push({id: state.nodes[i].id, i, group: name});
        unitOf.set(i, state.nodes[i].id);
      }
    } else {
      const lines = titleLines(name, members.length);
      units.push({id, group: name, members, short: lines.join("\n"), w: Math.max(...lines.map(titleWidth)),
        h: GROUP_HEIGHT + LINE_PX * (lines.length - 1)});
      for (const i of members) unitOf.set(i, id);
    }
  }
  const modules = [];
  const joined = new Map();
  for (let k = 0; k < state.edges.length; k++) {
    if (!state.edgeVisible[k]) continue;
    const e = state.edges[k];
    const from = unitOf.get(e.from);
    const to = unitOf.get(e.to);
    if (from === undefined || to === undefined || from === to) continue;
    if (from === state.nodes[e.from].id && to === state.nodes[e.to].id) {
      modules.push(k);
      continue;
    }
    const id = `agg:${from}>${to}`;
    if (!joined.has(id)) joined.set(id, {id, from, to, count: 0, statuses: {}, members: []});
    const agg = joined.get(id);
    agg.count += 1;
    agg.members.push(k);
    agg.statuses[e.status] = (agg.statuses[e.status] || 0) + 1;
  }
  return {units, modules, joined: [...joined.values()]};
}

/** The Cytoscape element of a closed group at `p` (its centre). */
export function groupElement(unit, p) {
  return {group: "nodes", data: {id: unit.id, label: unit.short, w: unit.w, h: unit.h, name: unit.group, members: unit.members.length},
    position: p ? {x: p.x, y: p.y} : {x: 0, y: 0}, classes: "agg"};
}

/** The Cytoscape element of an aggregated edge: as wide as the log of its count. */
export function joinedElement(j) {
  const statuses = Object.keys(j.statuses);
  return {group: "edges", classes: "joined",
    data: {id: j.id, source: j.from, target: j.to, count: j.count, width: 1 + Math.log2(j.count), members: j.members,
      status: statuses.length === 1 ? statuses[0] : "used"}};
}

/** Boxes per group of these modules: Map group id -> {label, members: [node]}. */
export function grouping(indices) {
  const byName = new Map();
  for (const i of indices) {
    const name = groupOf(state.nodes[i]) ?? "";
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name).push(i);
  }
  const groups = new Map();
  const parent = new Map();
  [...byName.keys()].sort().forEach((name, g) => {
    const id = `g${g}`;
    groups.set(id, {label: `${name} (${byName.get(name).length})`, members: byName.get(name).map((i) => state.nodes[i])});
    for (const i of byName.get(name)) parent.set(i, id);
  });
  return {groups, parent};
}

/** The groups as a list of buttons (Enter or a click opens or closes one), beside the drawing. */
export function groupList(shown, toggle) {
  const box = document.getElementById("whole-group-list");
  if (!shown) {
    clear(box);
    return;
  }
  const list = el("ul", {className: "plain groups"});
  for (const [name, members] of groupsOfShown()) {
    const open = state.expanded.has(name);
    list.appendChild(el("li", {}, el("button", {type: "button", className: "link-button group-toggle",
      dataset: {group: name}, "aria-expanded": open ? "true" : "false", on: {click: () => toggle(name)}},
    `${open ? "Close" : "Open"} ${name} (${members.length})`)));
  }
  clear(box).appendChild(list);
  document.getElementById("whole-modules").setAttribute("aria-pressed", state.modules ? "true" : "false");
}
