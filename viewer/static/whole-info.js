// The side panel of the whole-firmware view: the selected module (kind, licence class, its edges,
// buttons to focus on it or open its page), the selected edge (its symbols, asked from the API) or
// an aggregated edge between groups (its count by status and the edges it stands for).
// Names are text. The panel only shows: what a button does is whole.js's (`actions`).
import {
  BACKWARD, KIND_LABEL, apiUrl, append, clear, el, errorBox, fileHref, getJson, plural, statusTag, symbolDetails,
} from "./common.js";
import {kernelSymbols} from "./kernel.js";
import {classTag} from "./licence.js";
import {state} from "./whole-state.js";

const info = document.getElementById("whole-info");
let actions = {select: () => {}, selectEdge: () => {}, focus: () => {}};

export function setActions(given) {
  actions = given;
}

/** A module's name as a button that selects it. */
export function nodeButton(i) {
  const n = state.nodes[i];
  return el("button", {type: "button", className: "link-button", title: n.key, on: {click: () => actions.select(i)}},
    n.label);
}

const KIND_PLURAL = {executable: "programs", library: "libraries", "kernel-module": "kernel modules"};

/** A list of the module's neighbours, each with its kind; with more than one kind among them, a
 * filter by kind ("programs only") whose choice the title's count follows. */
function edgeList(title, ks, other) {
  if (!ks.length) return;
  const kinds = [...new Set(ks.map((k) => state.nodes[other(state.edges[k])].kind))].sort();
  const count = el("span", {className: "count"}, `(${ks.length})`);
  const heading = el("h3", {}, `${title} `, count);
  const ul = el("ul", {className: "plain neighbours", dataset: {list: title}});
  info.appendChild(heading);
  if (kinds.length > 1) {
    const select = el("select", {className: "kind-filter", "aria-label": `${title}: show the modules of one kind`},
      el("option", {value: ""}, `every kind (${ks.length})`),
      ...kinds.map((kind) => el("option", {value: kind}, `${KIND_PLURAL[kind] || kind} only (${
        ks.filter((k) => state.nodes[other(state.edges[k])].kind === kind).length})`)));
    select.addEventListener("change", () => {
      let shown = 0;
      for (const li of ul.children) {
        li.hidden = Boolean(select.value) && li.dataset.kind !== select.value;
        if (!li.hidden) shown += 1;
      }
      count.textContent = select.value ? `(${shown} of ${ks.length})` : `(${ks.length})`;
    });
    info.appendChild(el("p", {className: "kind-filter-row"}, el("label", {}, "Show ", select)));
  }
  for (const k of ks) {
    const e = state.edges[k];
    const n = state.nodes[other(e)];
    ul.appendChild(el("li", {dataset: {link: e.link, kind: n.kind}},
      el("span", {className: `kind kind-${n.kind}`, title: n.kind}, KIND_LABEL[n.kind] || n.kind), " ",
      nodeButton(other(e)), " ", statusTag(e.status), " ",
      e.link === "kernel" ? el("span", {className: "link-kind muted"}, "kernel link ") : null,
      e.certainty ? el("span", {className: "certainty muted"}, `${e.certainty} `) : null,
      el("button", {type: "button", className: "link-button small", on: {click: () => actions.selectEdge(k)}},
        e.count ? plural(e.count, "symbol") : "details"),
      e.gplOnly ? el("span", {className: "gpl-only-count"}, ` (${e.gplOnly} GPL-only)`) : null));
  }
  info.appendChild(ul);
}

/** Show what is selected now (state.selectedNode or state.selectedEdge), or the hint. */
export function showSelection() {
  if (state.selectedEdge >= 0) {
    if (info.dataset.edgeIndex !== String(state.selectedEdge)) showEdge(state.selectedEdge);
    return;
  }
  delete info.dataset.edgeIndex;
  delete info.dataset.joined;
  const i = state.selectedNode;
  if (i < 0) {
    clear(info).appendChild(el("p", {className: "muted"}, "Click a module or an edge; double-click a module to open it."));
    delete info.dataset.node;
    delete info.dataset.edge;
    return;
  }
  const n = state.nodes[i];
  clear(info);
  info.dataset.node = n.key;
  delete info.dataset.edge;
  append(info,  // (append of common.js skips the null of a missing library's licence)
    el("h2", {className: "node-name"}, n.label),
    n.path ? el("p", {}, el("code", {}, n.path)) : el("p", {className: "muted"}, n.kind === "kernel"
      ? "the kernel: its exports, which kernel modules link to" : "missing library: not in the image"),
    el("p", {}, el("span", {className: `kind kind-${n.kind}`}, KIND_LABEL[n.kind] || n.kind), " ", n.kind,
      n.dir ? " in " : "", n.dir ? el("code", {}, n.dir) : ""),
    n.package ? el("p", {className: "node-package"}, "package ", el("code", {}, n.package)) : null,
    n.licence ? el("p", {className: "node-licence"}, "licence class ", classTag(n.licence)) : null);
  const buttons = el("p", {className: "node-actions"},
    el("button", {type: "button", id: "whole-focus-here", on: {click: () => actions.focus(i)}},
      state.focus === i ? "Focused" : "Focus on its neighbourhood"));
  if (n.path) buttons.append(" ", el("a", {href: fileHref(n.path), className: "open-file"}, "Open in the file view"));
  info.appendChild(buttons);
  // an upcall (the other module loads this one, which calls back into it) is no dependency, nor is
  // an interposition (the other module only comes first in the lookup): each apart, in its own words
  const kind = (k) => (BACKWARD.has(state.edges[k].status) ? "back" : state.edges[k].status === "interposed" ? "interposed" : "");
  const only = (ks, wanted) => ks.filter((k) => kind(k) === wanted);
  edgeList("Depends on", only(state.out[i], ""), (e) => e.to);
  edgeList("Interposed on by", only(state.out[i], "interposed"), (e) => e.to);
  edgeList("Calls back into", only(state.out[i], "back"), (e) => e.to);
  edgeList("Used by", only(state.in[i], ""), (e) => e.from);
  edgeList("Interposes on", only(state.in[i], "interposed"), (e) => e.from);
  edgeList("Called back by", only(state.in[i], "back"), (e) => e.from);
}

async function showEdge(k) {
  const e = state.edges[k];
  const from = state.nodes[e.from];
  const to = state.nodes[e.to];
  clear(info);
  info.dataset.edgeIndex = String(k);
  delete info.dataset.joined;
  info.dataset.edge = `${from.key}\n${to.key}`;
  delete info.dataset.node;
  const body = el("div", {className: "edge-symbols"}, el("p", {className: "muted"}, "Loading the symbols…"));
  const title = {kernel: "Kernel link", dlopen: "May load with dlopen"}[e.link] || "Dependency";
  info.dataset.link = e.link;
  info.append(el("h2", {}, title),
    el("p", {}, nodeButton(e.from), " → ", nodeButton(e.to)),
    el("p", {}, statusTag(e.status), e.certainty ? ` certainty ${e.certainty}` : ""), body);
  if (e.link === "dlopen") {  // no start-up binding: what it binds in its program is in dlopen-edges
    clear(body).appendChild(el("p", {className: "muted"}, "No start-up dependency: the module may load this " +
      "library later with dlopen."));
    body.dataset.state = "ready";
    return;
  }
  try {
    if (e.link === "kernel") {
      const answer = await getJson(apiUrl("kernel-link", {from: from.key, to: to.key}));
      if (state.selectedEdge !== k) return;
      clear(body).append(el("p", {}, plural(answer.gpl_only.length, "GPL-only symbol")),
        kernelSymbols(answer.symbols, {open: true}));
      body.dataset.state = "ready";
      return;
    }
    const answer = await getJson(apiUrl("edge", {from: from.key, to: to.key}));
    if (state.selectedEdge !== k) return;
    clear(body).append(el("p", {}, "soname ", el("code", {}, answer.soname || "")), symbolDetails(answer.symbols, {open: true}));
    body.dataset.state = "ready";
  } catch (err) {
    if (state.selectedEdge === k) clear(body).appendChild(errorBox(err.message));
  }
}

const MAX_LISTED = 200;  // edges of an aggregated edge listed in the panel (the count says how many)

/** The panel of an aggregated edge from `from` to `to` (group names or module keys): how many edges
 * it stands for, by status, and those edges (each a button that selects it). */
export function showJoined(from, to, members) {
  clear(info);
  for (const key of ["node", "edge", "edgeIndex"]) delete info.dataset[key];
  info.dataset.joined = `${from}\n${to}`;
  const byStatus = new Map();
  for (const k of members) byStatus.set(state.edges[k].status, (byStatus.get(state.edges[k].status) || 0) + 1);
  info.append(el("h2", {}, "Edges between groups"), el("p", {}, el("code", {}, from), " → ", el("code", {}, to)),
    el("p", {className: "joined-count", dataset: {count: String(members.length)}}, plural(members.length, "edge"), ": ",
      ...[...byStatus].flatMap(([status, n]) => [statusTag(status), ` ${n} `])));
  const ul = el("ul", {className: "plain joined-edges"});
  for (const k of members.slice(0, MAX_LISTED)) {
    const e = state.edges[k];
    ul.appendChild(el("li", {dataset: {from: state.nodes[e.from].key, to: state.nodes[e.to].key}},
      nodeButton(e.from), " → ", nodeButton(e.to), " ",
      el("button", {type: "button", className: "link-button small", on: {click: () => actions.selectEdge(k)}}, "details")));
  }
  info.appendChild(ul);
  if (members.length > MAX_LISTED) info.appendChild(el("p", {className: "muted"}, `… and ${members.length - MAX_LISTED} more`));
}
