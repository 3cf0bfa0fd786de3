// The Graph tab: the server's Graphviz SVG of a file's dependency graph, made clickable.
// The SVG is parsed as XML and cleaned (no scripts, no foreign content, no event handlers, no
// links leaving the document) before it is put into the page.
import {apiUrl, clear, el, errorBox, getJson, legend, plural, statusTag, symbolDetails} from "./common.js";

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
    const fit = el("button", {type: "button", className: "small", "aria-pressed": "false"}, "Fit to panel");
    const bar = el("div", {className: "diagram-bar"},
      el("span", {className: "muted"}, `${plural(g.nodes.length, "module")}, ${plural(g.edges.length, "edge")}. `,
        "Click an edge for its symbols, a module to open it."),
      fit,
      el("span", {className: "exports"}, "Export: ",
        el("a", {href: apiUrl("diagram.svg", {path: this.path}), className: "export export-diagram-svg", download: ""},
          "SVG"), " · ",
        el("a", {href: apiUrl("diagram.pdf", {path: this.path}), className: "export export-diagram-pdf", download: ""},
          "PDF"), " · ",
        el("a", {href: apiUrl("diagram.png", {path: this.path}), className: "export export-diagram-png", download: ""},
          "PNG")));
    const box = el("div", {className: "diagram", role: "figure", "aria-label": "dependency graph"});
    this.side = el("aside", {className: "edge-box", "aria-live": "polite"},
      el("p", {className: "muted"}, "Click an edge to see the symbols behind it."));
    box.appendChild(svg);
    fit.addEventListener("click", () => {
      const on = box.classList.toggle("fit");
      fit.setAttribute("aria-pressed", String(on));
    });
    this.host.append(bar, legend(), el("div", {className: "diagram-row"}, box, this.side));
    // fit to the panel when that keeps the labels readable; big graphs stay at their size (scroll)
    const natural = svg.width && svg.width.baseVal ? svg.width.baseVal.value : 0;
    if (natural > box.clientWidth && box.clientWidth / natural >= 0.55) {
      box.classList.add("fit");
      fit.setAttribute("aria-pressed", "true");
    }
    this.wire(svg);
    this.host.dataset.state = "ready";
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
      if (node.missing) {
        group.classList.add("missing-node");
        this.clickable(group, `missing ${node.label}`, () => this.showMissing(node));
      } else {
        this.clickable(group, `open ${node.path}`, () => {
          if (node.path !== this.path) this.onNode(node.path);
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

  showEdge(edge, group) {
    this.mark(group);
    const from = this.nodes.get(edge.from);
    const to = this.nodes.get(edge.to);
    clear(this.side).append(
      el("h3", {}, "Dependency"),
      el("p", {className: "edge-ends"}, el("code", {}, from ? from.path || from.label : edge.from), " → ",
        el("code", {}, to ? to.path || to.label : edge.to)),
      el("p", {}, statusTag(edge.status), " ", edge.soname ? el("code", {}, edge.soname) : ""),
      symbolDetails(edge.symbols, {open: true}));
    this.side.dataset.edge = edge.id;
  }

  showMissing(node) {
    this.mark(null);
    clear(this.side).append(el("h3", {}, "Missing library"), el("p", {}, el("code", {}, node.label)),
      el("p", {className: "muted"}, "Declared in DT_NEEDED; no file in the image satisfies it."));
    delete this.side.dataset.edge;
  }
}
