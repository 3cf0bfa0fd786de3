// The Graph tab: the server's Graphviz drawing of a file's dependency graph (without legend or title
// block: those are HTML beside it), laid out by the server for the pane's size, cleaned by DOMPurify
// (svg-clean.js), panned and zoomed with svg-pan-zoom (diagram-pan.js). It opens whole if every text
// is then readable, else readable at the file's node, and says which (diagram-open.js). A click
// selects a module or an edge (the side panel says what it is; Back undoes it: each selection is a
// history entry, ?select=ID), a double-click (or Enter on the selected one, after a click as after Tab)
// opens a module or unfolds a plugin family. "Direct only" keeps the file's own edges.
import {apiUrl, append, clear, el, errorBox, getJson, legend, plural} from "./common.js";
import {nearestEdges} from "./diagram-hit.js";
import {fitPane, layoutNote, openingZoom, shownAtOpening} from "./diagram-open.js";
import {PanZoom} from "./diagram-pan.js";
import {alsoHere, edgeDetail, licenceKey, licenceList, missingDetail, nodeDetail, titleBlock} from "./diagram-side.js";
import {LICENCE_STYLE, licenceClass} from "./licence.js";
import {sourceKey} from "./source.js";
import {sanitizeSvg} from "./svg-clean.js";

export {sanitizeSvg};

const DRAG_SLOP = 5;  // px a press may move and still be a click
const RELAYOUT_MS = 250;  // ms after the last resize of the window
let current = null;  // the DiagramView on screen, for Back and Forward
// the view a bookmark asked for (the files page rewrites the URL before the Graph tab opens)
let bookmark = new URLSearchParams(location.search);

addEventListener("popstate", () => {
  if (current && current.host.isConnected) current.followUrl();
});
let resizing = 0;
addEventListener("resize", () => {
  if (!current || !current.pan) return;
  current.pan.resize();
  // still the opening view: laid out again for the new size of the pane, once the window stops changing
  clearTimeout(resizing);
  const shown = () => current.host.isConnected && current.box.clientWidth > 0;  // not in a hidden tab
  if (current.atHome) resizing = setTimeout(() => shown() && current.atHome && current.draw(), RELAYOUT_MS);
});

const style = el("link", {rel: "stylesheet", href: new URL("./diagram.css", import.meta.url).pathname});
document.head.appendChild(style);

export class DiagramView {
  /** host: the Graph tab's body; onNode(path): open another module. */
  constructor(host, {path, onNode}) {
    this.host = host;
    this.path = path;
    this.onNode = onNode;
    this.selected = null;
    let params = new URLSearchParams(location.search);
    if (bookmark && bookmark.get("path") === path) params = bookmark;
    this.initial = params.get("select");
    this.direct = params.get("direct") === "1";
    this.expand = new Set(params.getAll("expand"));
    bookmark = null;
  }

  /** The query of the drawing's routes: the file, direct only, the families unfolded. */
  query(extra = {}) {
    const q = {path: this.path, ...extra};
    if (this.direct) q.direct = "1";
    const url = new URL(apiUrl("diagram.json", q), location.origin);
    for (const prefix of this.expand) url.searchParams.append("expand", prefix);
    return url.search;
  }

  route(what, extra = {}) {
    return apiUrl(what) + this.query(extra);
  }

  async load() {
    current = this;
    if (this.pan) this.pan.destroy();
    this.pan = null;
    clear(this.host).appendChild(el("p", {className: "muted"}, "Drawing the dependency graph…"));
    this.host.dataset.state = "loading";
    try {
      this.graph = await getJson(this.route("diagram.json"));
      this.nodes = new Map(this.graph.nodes.map((n) => [n.id, n]));
      this.edges = new Map(this.graph.edges.map((e) => [e.id, e]));
    } catch (err) {
      clear(this.host).appendChild(errorBox(err.message));
      this.host.dataset.state = "error";
      return;
    }
    this.render();  // the bar, the pane and the side panel: the drawing is laid out for the pane
    await this.draw();
  }

  /** The drawing laid out by the server for the pane as it is now, shown at its opening view. */
  async draw() {
    this.host.dataset.state = "loading";
    this.box.style.height = "";
    const pane = fitPane(this.box);
    const size = pane ? {width: Math.round(pane.width), height: Math.round(pane.height)} : {};
    let svg;
    try {
      const response = await fetch(this.route("diagram.svg", {view: "screen", ...size}));
      const text = await response.text();
      if (!response.ok) {
        let message = `${response.status} ${response.statusText}`;
        try {
          message = JSON.parse(text).error || message;
        } catch {
          // not JSON: keep the status line
        }
        throw new Error(`diagram: ${message}`);
      }
      svg = sanitizeSvg(text);
      this.layout = response.headers.get("X-Diagram-Layout");
    } catch (err) {
      clear(this.host).appendChild(errorBox(err.message));
      this.host.dataset.state = "error";
      return;
    }
    if (!this.host.isConnected) return;
    this.show(svg);
  }

  render() {
    const g = this.graph;
    clear(this.host);
    const button = (label, title, action) => el("button", {type: "button", className: "small", title,
      on: {click: () => this.pan && action()}}, label);  // no drawing yet: nothing to move
    this.zoomLabel = el("span", {className: "zoom-label muted", "aria-live": "polite"});
    const direct = el("input", {type: "checkbox", className: "direct-only", on: {change: () => {
      this.direct = direct.checked;
      this.setUrl({select: null}, false);
      this.load();
    }}});
    direct.checked = this.direct;
    const bar = el("div", {className: "diagram-bar"},
      el("span", {className: "muted"}, `${plural(g.nodes.length, "module")}, ${plural(g.edges.length, "edge")}. `,
        "Drag to move, wheel to zoom; click to select, double-click to open."),
      el("label", {className: "check"}, direct, " direct only"),
      el("span", {className: "zoom-controls"},
        button("Fit", "the whole graph in the panel", () => this.pan.fit()),
        button("−", "zoom out", () => this.pan.zoomOut()), button("+", "zoom in", () => this.pan.zoomIn()),
        button("100%", "natural size, centred on this file", () => this.natural()),
        button("Reset", "the opening view", () => this.home()), this.zoomLabel),
      el("span", {className: "exports"}, "Export: ",
        this.exportLink("diagram.svg", {}, "SVG", "svg"), " · ",
        this.exportLink("diagram.pdf", {}, "PDF (A4)", "pdf"), " · ",
        this.exportLink("diagram.pdf", {page: "letter"}, "PDF (Letter)", "pdf-letter"), " · ",
        this.exportLink("diagram.png", {}, "PNG (2×)", "png")));
    this.box = el("div", {className: "diagram", role: "figure", "aria-label": "dependency graph"});
    this.detail = el("div", {className: "edge-detail"});
    this.side = el("aside", {className: "edge-box", "aria-live": "polite", "aria-label": "selection", tabindex: "0"}, this.detail,
      el("section", {className: "diagram-key"}, el("h3", {}, "Key"), legend(), licenceKey(), sourceKey(g.nodes)),
      titleBlock(this.path), licenceList(g.nodes));
    this.box.appendChild(el("p", {className: "muted"}, "Drawing the dependency graph…"));
    this.watchDrags();
    this.note = el("p", {className: "layout-note muted"});
    this.host.append(bar, this.note, el("div", {className: "diagram-row"}, this.box, this.side));
  }

  show(svg) {
    if (this.pan) this.pan.destroy();
    clear(this.box).appendChild(svg);
    this.svg = svg;
    this.wire(svg);
    this.pan = new PanZoom(svg, () => {
      if (!this.placing) this.atHome = false;  // moved by the user
      this.showZoom();
    });
    this.home();
    const height = this.box.clientHeight;
    fitPane(this.box);  // the note may have pushed the pane down
    if (this.box.clientHeight !== height) {
      this.pan.resize();
      this.home();
    }
    if (this.initial) this.setUrl({select: this.initial}, false);
    this.initial = null;
    this.followUrl();
    this.host.dataset.drawn = String(Number(this.host.dataset.drawn || 0) + 1);  // tests wait for a new drawing
    this.host.dataset.state = "ready";
  }

  exportLink(what, extra, label, name) {
    return el("a", {href: this.route(what, extra), className: `export export-diagram-${name}`, download: ""}, label);
  }

  /** The opening view: the whole drawing if its text is then readable, else readable at the file. */
  home() {
    if (!this.pan.later(() => this.home())) return;  // its box has no size yet (its tab hidden)
    const opening = openingZoom(this.pan, this.svg);
    const root = this.svg.querySelector("g#n0");
    this.placing = true;
    if (opening.mode === "whole" || !root) this.pan.fit();
    else this.pan.show(opening.zoom, root);
    this.placing = false;
    this.atHome = true;
    const name = (this.path || "").split("/").pop();
    this.note.textContent = layoutNote(this.layout, opening, name, shownAtOpening(this.pan, this.svg, this.graph));
    this.note.dataset.mode = opening.mode;
    this.note.dataset.layout = this.layout || "";
    this.showZoom();
  }

  /** Natural size, centred on the file's node. */
  natural() {
    const root = this.svg.querySelector("g#n0");
    if (root) this.pan.show(1, root);
    else this.pan.fit();
    this.showZoom();
  }

  showZoom() {
    if (!this.pan) return;
    const zoom = this.pan.zoom();
    this.zoomLabel.textContent = `${Math.round(zoom * 100)}%`;
    this.box.dataset.zoom = zoom.toFixed(4);
  }

  wire(svg) {
    for (const group of svg.querySelectorAll("g.edge")) {
      const edge = this.edges.get(group.id);
      if (!edge) continue;
      group.dataset.status = edge.status;
      for (const path of group.querySelectorAll("path")) {  // a wide invisible twin to click on
        const hit = path.cloneNode(false);
        hit.removeAttribute("stroke-dasharray");
        hit.setAttribute("class", "hit");
        path.after(hit);
      }
      this.clickable(group, `dependency ${edge.status} ${edge.soname || ""}`, (ev) => {
        const found = ev && ev.type === "click" ? nearestEdges(ev, group) : [group.id];
        this.select(found[0]);
        if (found.length > 1) append(this.detail, alsoHere(found.slice(1), this.edges, this.nodes, (id) => this.select(id)));
      });
    }
    for (const group of svg.querySelectorAll("g.node")) {
      const node = this.nodes.get(group.id);
      if (!node) continue;
      group.dataset.path = node.path || "";
      if (node.kind === "group") group.classList.add("family");
      if (node.missing) group.classList.add("missing-node");
      else {
        const cls = licenceClass(node.licence_class);
        group.dataset.licenceClass = cls;
        tooltip(group, node, `licence: ${node.licence || "unknown"} (${LICENCE_STYLE[cls].label})`);
      }
      this.clickable(group, node.missing ? `missing ${node.label}` : `select ${node.path || node.label}`,
        () => this.select(group.id), () => this.open(node));
    }
  }

  /** A press that moves is a drag, not a click. */
  watchDrags() {
    let down = null;
    this.box.addEventListener("pointerdown", (ev) => (down = {x: ev.clientX, y: ev.clientY}));
    this.box.addEventListener("click", (ev) => {  // a drag is not a click
      if (down && Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > DRAG_SLOP) ev.stopPropagation();
    }, true);
    this.box.addEventListener("pointerdown", () => this.box.classList.add("dragging"));
    this.box.addEventListener("pointerup", () => this.box.classList.remove("dragging"));
  }

  clickable(group, label, action, open = null) {
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    // the name starts with the words drawn (a label's text, a symbol count), as the eye reads them
    const drawn = [...group.querySelectorAll("text")].map((t) => t.textContent.trim()).filter((t) => t).join(" ");
    group.setAttribute("aria-label", drawn ? `${drawn}: ${label}` : label);
    group.addEventListener("click", (ev) => {
      ev.stopPropagation();
      action(ev);
      // svg-pan-zoom's pointer handling keeps the click from focusing: focus what it selected, so Enter opens it
      if (this.selected) this.selected.focus({preventScroll: true});
    });
    if (open) group.addEventListener("dblclick", (ev) => {
      ev.stopPropagation();
      open();
    });
    group.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && open && this.selected === group) open();
      else if (ev.key === "Enter" || ev.key === " ") action();
      else return;
      ev.preventDefault();
    });
  }

  /** Open a module (another file's page), or unfold a plugin family. */
  open(node) {
    if (node.kind === "group") {
      this.expand.add(node.family);
      this.setUrl({select: null}, false);
      this.load();
    } else if (node.path && node.path !== this.path) this.onNode(node.path);
  }

  /** Select a node or an edge by id (null: nothing); a new history entry unless ``push`` is false. */
  select(id, push = true) {
    const group = id ? this.svg.querySelector(`g#${CSS.escape(id)}`) : null;
    if (push && (group ? group.id : null) !== (this.selected ? this.selected.id : null)) {
      this.setUrl({select: group ? group.id : null}, true);
    }
    if (this.selected) this.selected.classList.remove("selected");
    this.selected = group;
    delete this.side.dataset.edge;
    delete this.side.dataset.node;
    if (!group) {
      clear(this.detail).appendChild(el("p", {className: "muted"},
        "Click an edge to see the symbols behind it, a module to see what it is; double-click a module to open it."));
      return;
    }
    group.classList.add("selected");
    const edge = this.edges.get(group.id);
    const node = this.nodes.get(group.id);
    if (edge) {
      append(clear(this.detail), edgeDetail(edge, this.nodes));  // absent parts (null) are left out
      this.side.dataset.edge = edge.id;
    } else if (node && node.missing) {
      append(clear(this.detail), missingDetail(node));
      this.side.dataset.node = node.id;
    } else if (node) {
      append(clear(this.detail), nodeDetail(node, () => this.open(node)));
      this.side.dataset.node = node.id;
    }
  }

  /** The selection the URL names (Back and Forward, a bookmark). */
  followUrl() {
    const params = new URLSearchParams(location.search);
    if (params.get("path") && params.get("path") !== this.path) return;
    const id = params.get("select");
    this.select(id && (this.nodes.has(id) || this.edges.has(id)) ? id : null, false);
  }

  /** This view's state in the URL: the other parameters kept. */
  setUrl(changes, push) {
    const params = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries({...changes, direct: this.direct ? "1" : null})) {
      if (v === null) params.delete(k);
      else params.set(k, v);
    }
    params.delete("expand");
    for (const prefix of this.expand) params.append("expand", prefix);
    const url = `${location.pathname}?${params}`;
    if (push) history.pushState(history.state, "", url);
    else history.replaceState(history.state, "", url);
  }
}

const XLINK = "http://www.w3.org/1999/xlink";

/** A module's tooltip says what it is and its licence: its <title>, and Graphviz's link title inside. */
function tooltip(group, node, line) {
  const about = node.kind === "group"
    ? `${node.label}: ${(node.members || []).length} libraries in ${node.folder}`
    : `${node.path}\n${node.kind}${node.soname ? `\nsoname ${node.soname}` : ""}`;
  let title = [...group.children].find((c) => c.localName === "title");
  if (!title) {
    title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    group.prepend(title);
  }
  title.textContent = `${about}\n${line}`;
  for (const a of group.querySelectorAll("a")) {
    const text = a.getAttributeNS(XLINK, "title");
    if (text !== null && !/\blicence\b/i.test(text)) a.setAttributeNS(XLINK, "xlink:title", `${text}\n${line}`);
  }
}
