// The side panel of the Graph tab: what the selected module or edge is, the key (edge statuses and
// licence classes, as HTML beside the drawing rather than inside it), the title block and the
// licences of the drawing's modules. Names from the firmware are text only.
import {el, plural, statusTag, symbolDetails} from "./common.js";
import {LICENCE_CLASSES, LICENCE_STYLE, classTag, licenceClass, licenceTag} from "./licence.js";

function nodeName(nodes, id) {
  const n = nodes.get(id);
  return n ? n.path || n.label : id;
}

/** A dependency edge: its ends, status, soname, symbols and the licences of both ends. */
export function edgeDetail(edge, nodes) {
  const ends = el("dl", {className: "facts edge-licences"});
  for (const [term, id] of [["from", edge.from], ["to", edge.to]]) {
    const n = nodes.get(id);
    if (n && !n.missing) ends.append(el("dt", {}, term), el("dd", {}, licenceTag(n.licence, n.licence_class)));
  }
  const merged = edge.members && edge.members.length
    ? el("p", {className: "muted"}, `${plural(edge.members.length, "edge")} to the family's libraries, together.`)
    : null;
  return [
    el("h3", {}, "Dependency"),
    el("p", {className: "edge-ends"}, el("code", {}, nodeName(nodes, edge.from)), " → ",
      el("code", {}, nodeName(nodes, edge.to))),
    el("p", {}, statusTag(edge.status), " ", edge.soname ? el("code", {}, edge.soname) : ""),
    merged, symbolDetails(edge.symbols, {open: true}), ends,
  ];
}

/** The other edges whose lines run through the clicked point, each a button that selects it. */
export function alsoHere(ids, edges, nodes, choose) {
  const items = ids.filter((id) => edges.has(id)).map((id) => {
    const e = edges.get(id);
    return el("li", {}, el("button", {type: "button", className: "small link also-edge", dataset: {edge: id},
      on: {click: () => choose(id)}}, `${nodeName(nodes, e.from)} → ${nodeName(nodes, e.to)}`), " ", statusTag(e.status));
  });
  return items.length ? [el("p", {className: "muted"}, "Other edges through this point:"),
    el("ul", {className: "plain also-here"}, ...items)] : [];
}

/** A soname no file satisfies. */
export function missingDetail(node) {
  return [el("h3", {}, "Missing library"), el("p", {}, el("code", {}, node.label)),
    el("p", {className: "muted"}, "Declared in DT_NEEDED; no file in the image satisfies it.")];
}

/** A module (its path, kind, soname, licence, and a button to open it) or a plugin family. */
export function nodeDetail(node, open) {
  if (node.kind === "group") {
    return [el("h3", {}, "Plugin family"),
      el("p", {}, el("code", {}, `${node.family}*`), ` in `, el("code", {}, node.folder), `: ${plural(node.members.length, "library", "libraries")}`),
      el("ul", {className: "plain family-members"}, ...node.members.map((m) => el("li", {}, el("code", {}, m)))),
      el("button", {type: "button", className: "small open-node", on: {click: open}}, "Show each library")];
  }
  const facts = el("dl", {className: "facts"});
  facts.append(el("dt", {}, "kind"), el("dd", {}, node.kind || "ELF"));
  if (node.soname) facts.append(el("dt", {}, "soname"), el("dd", {}, el("code", {}, node.soname)));
  facts.append(el("dt", {}, "licence"), el("dd", {}, licenceTag(node.licence, node.licence_class)));
  return [el("h3", {}, "Module"), el("p", {}, el("code", {}, node.path)), facts,
    el("button", {type: "button", className: "small open-node", on: {click: open}}, "Open")];
}

/** The licence classes as the drawing fills its modules. */
export function licenceKey() {
  return el("div", {className: "licence-key"},
    ...LICENCE_CLASSES.map((c) => el("span", {className: "legend-item", title: LICENCE_STYLE[c].help},
      el("span", {className: `key-swatch lclass-${c}`}), classTag(c))));
}

/** What the exports' title block says (the firmware is the page's, the date the export's). */
export function titleBlock(path) {
  const name = document.querySelector("header .fw-name");
  const dl = el("dl", {className: "facts diagram-title"});
  dl.append(el("dt", {}, "File"), el("dd", {}, el("code", {}, path)));
  if (name) dl.append(el("dt", {}, "Firmware"), el("dd", {}, name.textContent), el("dt", {}, "Id"),
    el("dd", {}, el("code", {className: "hash"}, name.getAttribute("title") || "")));
  return el("section", {className: "diagram-title-box"}, dl);
}

/** Every module of the drawing with its licence, GPL first. */
export function licenceList(nodes) {
  const order = (n) => LICENCE_CLASSES.indexOf(licenceClass(n.licence_class));
  const modules = nodes.filter((n) => !n.missing && n.kind !== "group")
    .sort((a, b) => order(a) - order(b) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  const ul = el("ul", {className: "plain graph-licences"});
  for (const n of modules) {
    ul.appendChild(el("li", {dataset: {path: n.path}}, el("span", {className: "module-label", title: n.path}, n.label),
      " ", licenceTag(n.licence, n.licence_class)));
  }
  return el("section", {className: "graph-licence-box"}, el("h3", {}, "Licences"), ul);
}
