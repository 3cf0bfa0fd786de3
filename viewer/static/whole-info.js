// The side panel of the whole-firmware view: the selected module (kind, licence class, its edges)
// or the selected edge (its symbols, asked from the API). Names are text.
import {
  KIND_LABEL, apiUrl, append, clear, el, errorBox, fileHref, getJson, plural, statusTag, symbolDetails,
} from "./common.js";
import {kernelSymbols} from "./kernel.js";
import {classTag} from "./licence.js";
import {requestDraw} from "./whole-canvas.js";
import {state, toScreen} from "./whole-state.js";

const info = document.getElementById("whole-info");

/** A module's name as a button that selects it. */
export function nodeButton(i) {
  const n = state.nodes[i];
  return el("button", {type: "button", className: "link-button", title: n.key, on: {click: () => selectNode(i, true)}},
    n.label);
}

export function selectNode(i, centre = false) {
  state.selectedNode = i;
  state.selectedEdge = -1;
  if (i < 0) {
    clear(info).appendChild(el("p", {className: "muted"}, "Click a module or an edge."));
    delete info.dataset.node;
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
  append(info,  // (append of common.js skips the null of a missing library's licence)
    el("h2", {className: "node-name"}, n.label),
    n.path ? el("p", {}, el("code", {}, n.path)) : el("p", {className: "muted"}, n.kind === "kernel"
      ? "the kernel: its exports, which kernel modules link to" : "missing library: not in the image"),
    el("p", {}, el("span", {className: `kind kind-${n.kind}`}, KIND_LABEL[n.kind] || n.kind), " ", n.kind,
      n.dir ? " in " : "", n.dir ? el("code", {}, n.dir) : ""),
    n.licence ? el("p", {className: "node-licence"}, "licence class ", classTag(n.licence)) : null);
  if (n.path) info.appendChild(el("p", {}, el("a", {href: fileHref(n.path), className: "open-file"}, "Open in the file view")));
  const list = (title, ks, other) => {
    if (!ks.length) return;
    info.appendChild(el("h3", {}, `${title} (${ks.length})`));
    const ul = el("ul", {className: "plain neighbours"});
    for (const k of ks) {
      const e = state.edges[k];
      ul.appendChild(el("li", {dataset: {link: e.link}}, nodeButton(other(e)), " ", statusTag(e.status), " ",
        e.link === "kernel" ? el("span", {className: "link-kind muted"}, "kernel link ") : null,
        e.certainty ? el("span", {className: "certainty muted"}, `${e.certainty} `) : null,
        el("button", {type: "button", className: "link-button small", on: {click: () => selectEdge(k)}},
          e.count ? plural(e.count, "symbol") : "details"),
        e.gplOnly ? el("span", {className: "gpl-only-count"}, ` (${e.gplOnly} GPL-only)`) : null));
    }
    info.appendChild(ul);
  };
  list("Depends on", state.out[i], (e) => e.to);
  list("Used by", state.in[i], (e) => e.from);
  requestDraw();
}

export async function selectEdge(k) {
  state.selectedEdge = k;
  state.selectedNode = -1;
  const e = state.edges[k];
  const from = state.nodes[e.from];
  const to = state.nodes[e.to];
  clear(info);
  info.dataset.edge = `${from.key}\n${to.key}`;
  delete info.dataset.node;
  const body = el("div", {className: "edge-symbols"}, el("p", {className: "muted"}, "Loading the symbols…"));
  const title = {kernel: "Kernel link", dlopen: "May load with dlopen"}[e.link] || "Dependency";
  info.dataset.link = e.link;
  info.append(el("h2", {}, title),
    el("p", {}, nodeButton(e.from), " → ", nodeButton(e.to)),
    el("p", {}, statusTag(e.status), e.certainty ? ` certainty ${e.certainty}` : ""), body);
  requestDraw();
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
