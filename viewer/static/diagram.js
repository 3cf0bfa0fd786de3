// The Graph tab: the server's Graphviz SVG of a file's dependency graph, made clickable.
// The SVG is parsed as XML and cleaned (no scripts, no foreign content, no event handlers, no
// links leaving the document) before it is put into the page.
import {apiUrl, clear, el, errorBox, getJson, legend, plural, statusTag, symbolDetails} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE, licenceClass, licenceTag} from "./licence.js";

const ZOOM_MIN = 0.1;
const ZOOM_MAX = 4;

const DROP_ELEMENTS = new Set(["script", "foreignobject", "iframe", "object", "embed", "style", "animate",
  "animatemotion", "animatetransform", "set", "discard", "handler", "listener", "audio", "video", "canvas"]);

/** Parse SVG text and return a clean <svg> element of this document (throws on anything else). */
export function sanitizeSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.localName !== "svg" || doc.getElementsByTagName("parsererror").length) {
    throw new Error("the diagram is not a valid SVG document");
  }
  const walk = (node) => {
    for (const child of [...node.children]) {
      if (DROP_ELEMENTS.has(child.localName.toLowerCase())) {
        child.remove();
        continue;
      }
      cleanAttributes(child);
      walk(child);
    }
  };
  cleanAttributes(root);
  walk(root);
  return document.importNode(root, true);
}

function cleanAttributes(node) {
  for (const attr of [...node.attributes]) {
    const name = attr.name.toLowerCase();
    const value = attr.value.replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
    if (name.startsWith("on")) node.removeAttributeNode(attr);
    else if ((name === "href" || name.endsWith(":href")) && !attr.value.startsWith("#")) node.removeAttributeNode(attr);
    else if (value.includes("javascript:") || (name === "style" && /url\(|expression|@import/.test(value))) {
      node.removeAttributeNode(attr);
    }
  }
}

export class DiagramView {
  /** host: the Graph tab's body; onNode(path): a module node was clicked. */
  constructor(host, {path, onNode}) {
    this.host = host;
    this.path = path;
    this.onNode = onNode;
    this.selected = null;
  }

  async load() {
    clear(this.host).appendChild(el("p", {className: "muted"}, "Drawing the dependency graph…"));
    this.host.dataset.state = "loading";
    let graph;
    let svgText;
    try {
      const svgResponse = fetch(apiUrl("diagram.svg", {path: this.path}));
      graph = await getJson(apiUrl("graph", {path: this.path}));
      const response = await svgResponse;
      svgText = await response.text();
      if (!response.ok) {
        let message = `${response.status} ${response.statusText}`;
        try {
          message = JSON.parse(svgText).error || message;
        } catch {
          // not JSON: keep the status line
        }
        throw new Error(`diagram: ${message}`);
      }
    } catch (err) {
      clear(this.host).appendChild(errorBox(err.message));
      this.host.dataset.state = "error";
      return;
    }
    this.graph = graph;
    this.nodes = new Map(graph.nodes.map((n) => [n.id, n]));
    this.edges = new Map(graph.edges.map((e) => [e.id, e]));
    let svg;
    try {
      svg = sanitizeSvg(svgText);
    } catch (err) {
      clear(this.host).appendChild(errorBox(err.message));
      this.host.dataset.state = "error";
      return;
    }
    this.render(svg);
  }

  render(svg) {
    const g = this.graph;
    clear(this.host);
    const button = (label, title, action) => el("button", {type: "button", className: "small", title,
      on: {click: action}}, label);
    this.fitButton = button("Fit to panel", "the whole graph as wide as the panel", () => this.fit());
    this.zoomLabel = el("span", {className: "zoom-label muted", "aria-live": "polite"});
    const bar = el("div", {className: "diagram-bar"},
      el("span", {className: "muted"}, `${plural(g.nodes.length, "module")}, ${plural(g.edges.length, "edge")}. `,
        "Click an edge for its symbols, a module to open it; Ctrl+wheel zooms."),
      el("span", {className: "zoom-controls"}, this.fitButton,
        button("−", "zoom out", () => this.zoomBy(1 / 1.25)), button("+", "zoom in", () => this.zoomBy(1.25)),
        button("1:1", "natural size", () => this.setZoom(1)), this.zoomLabel),
      el("span", {className: "exports"}, "Export: ",
        el("a", {href: apiUrl("diagram.svg", {path: this.path}), className: "export export-diagram-svg", download: ""},
          "SVG"), " · ",
        el("a", {href: apiUrl("diagram.pdf", {path: this.path}), className: "export export-diagram-pdf", download: ""},
          "PDF"), " · ",
        el("a", {href: apiUrl("diagram.png", {path: this.path}), className: "export export-diagram-png", download: ""},
          "PNG")));
    const box = el("div", {className: "diagram", role: "figure", "aria-label": "dependency graph"});
    this.box = box;
    this.svg = svg;
    this.detail = el("div", {className: "edge-detail"},
      el("p", {className: "muted"}, "Click an edge to see the symbols behind it."));
    this.side = el("aside", {className: "edge-box", "aria-live": "polite"}, this.detail, this.licenceList());
    box.appendChild(svg);
    const size = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal : null;
    this.natural = {  // the size Graphviz gave (pt converted to CSS pixels), else the viewBox's
      w: (svg.width && svg.width.baseVal ? svg.width.baseVal.value : 0) || (size ? size.width : 800),
      h: (svg.height && svg.height.baseVal ? svg.height.baseVal.value : 0) || (size ? size.height : 600),
    };
    box.addEventListener("wheel", (ev) => this.wheel(ev), {passive: false});
    this.host.append(bar, legend(), el("div", {className: "diagram-row"}, box, this.side));
    this.fit();  // open fitted to the panel's width (never enlarged); zoom and scroll from there
    this.wire(svg);
    this.host.dataset.state = "ready";
  }

  /** The scale the SVG is drawn at now (1 = Graphviz's size). */
  scale() {
    const shown = this.svg.getBoundingClientRect().width;
    return shown && this.natural.w ? shown / this.natural.w : 1;
  }

  fit() {
    this.fitted = true;
    this.box.classList.add("fit");
    Object.assign(this.svg.style, {width: "", height: "", maxWidth: `${this.natural.w}px`});
    this.showZoom();
  }

  setZoom(z) {
    const zoom = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, z));
    this.fitted = false;
    this.box.classList.remove("fit");
    Object.assign(this.svg.style, {width: `${this.natural.w * zoom}px`, height: `${this.natural.h * zoom}px`,
      maxWidth: "none"});
    this.showZoom();
    return zoom;
  }

  zoomBy(factor) {
    return this.setZoom(this.scale() * factor);
  }

  showZoom() {
    const zoom = this.scale();
    this.zoomLabel.textContent = `${Math.round(zoom * 100)}%`;
    this.fitButton.setAttribute("aria-pressed", String(this.fitted));
    this.box.dataset.fit = String(this.fitted);
  }

  /** Ctrl+wheel zooms about the pointer; the plain wheel scrolls. */
  wheel(ev) {
    if (!ev.ctrlKey) return;
    ev.preventDefault();
    const r = this.box.getBoundingClientRect();
    const [cx, cy] = [ev.clientX - r.left, ev.clientY - r.top];
    const [px, py] = [cx + this.box.scrollLeft, cy + this.box.scrollTop];
    const before = this.scale();
    const after = this.setZoom(before * Math.exp(-ev.deltaY * 0.002));
    this.box.scrollLeft = px * (after / before) - cx;
    this.box.scrollTop = py * (after / before) - cy;
  }

  /** Every module of the graph with its licence, GPL first. */
  licenceList() {
    const order = (n) => LICENCE_CLASSES.indexOf(licenceClass(n.licence_class));
    const modules = this.graph.nodes.filter((n) => !n.missing)
      .sort((a, b) => order(a) - order(b) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    const ul = el("ul", {className: "plain graph-licences"});
    for (const n of modules) {
      ul.appendChild(el("li", {dataset: {path: n.path}}, el("span", {className: "module-label", title: n.path}, n.label),
        " ", licenceTag(n.licence, n.licence_class)));
    }
    return el("section", {className: "graph-licence-box"}, el("h3", {}, "Licences"), ul);
  }

  wire(svg) {
    for (const group of svg.querySelectorAll("g.edge")) {
      const edge = this.edges.get(group.id);
      if (!edge) continue;
      group.dataset.status = edge.status;
      for (const path of group.querySelectorAll("path")) {  // a wide transparent twin to click on
        const hit = path.cloneNode(false);
        hit.removeAttribute("stroke-dasharray");
        hit.setAttribute("class", "hit");
        hit.setAttribute("stroke", "transparent");
        hit.setAttribute("stroke-width", "12");
        hit.setAttribute("fill", "none");
        path.after(hit);
      }
      this.clickable(group, `dependency ${edge.status} ${edge.soname || ""}`, () => this.showEdge(edge, group));
    }
    for (const group of svg.querySelectorAll("g.node")) {
      const node = this.nodes.get(group.id);
      if (!node) continue;
      group.dataset.path = node.path || "";
      if (!node.missing) {
        const cls = licenceClass(node.licence_class);
        group.dataset.licenceClass = cls;
        licenceTooltip(group, `${node.path}\n${node.kind}${node.soname ? `\nsoname ${node.soname}` : ""}`,
          `licence: ${node.licence || "unknown"} (${LICENCE_STYLE[cls].label})`);
      }
      if (node.missing) {
        group.classList.add("missing-node");
        this.clickable(group, `missing ${node.label}`, () => this.showMissing(node));
      } else {
        this.clickable(group, `open ${node.path}`, () => {
          if (node.path && node.path !== this.path) this.onNode(node.path);
        });
      }
    }
  }

  clickable(group, label, action) {
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    group.setAttribute("aria-label", label);
    group.addEventListener("click", (ev) => {
      ev.stopPropagation();
      action();
    });
    group.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        action();
      }
    });
  }

  mark(group) {
    if (this.selected) this.selected.classList.remove("selected");
    this.selected = group;
    if (group) group.classList.add("selected");
  }

  nodeName(id) {
    const n = this.nodes.get(id);
    return n ? n.path || n.label : id;
  }

  showEdge(edge, group) {
    this.mark(group);
    const ends = el("dl", {className: "facts edge-licences"});
    for (const [term, id] of [["from", edge.from], ["to", edge.to]]) {
      const n = this.nodes.get(id);
      if (n && !n.missing) ends.append(el("dt", {}, term), el("dd", {}, licenceTag(n.licence, n.licence_class)));
    }
    clear(this.detail).append(
      el("h3", {}, "Dependency"),
      el("p", {className: "edge-ends"}, el("code", {}, this.nodeName(edge.from)), " → ",
        el("code", {}, this.nodeName(edge.to))),
      el("p", {}, statusTag(edge.status), " ", edge.soname ? el("code", {}, edge.soname) : ""),
      symbolDetails(edge.symbols, {open: true}), ends);
    this.side.dataset.edge = edge.id;
  }

  showMissing(node) {
    this.mark(null);
    clear(this.detail).append(el("h3", {}, "Missing library"), el("p", {}, el("code", {}, node.label)),
      el("p", {className: "muted"}, "Declared in DT_NEEDED; no file in the image satisfies it."));
    delete this.side.dataset.edge;
  }
}

const XLINK = "http://www.w3.org/1999/xlink";

/** A module's tooltip says its licence: its <title>, and Graphviz's link title inside when that lacks it. */
function licenceTooltip(group, about, line) {
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
