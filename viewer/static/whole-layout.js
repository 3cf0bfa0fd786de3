// Where the modules go, computed by ELK (elkjs) in a Web Worker, so that the page stays responsive:
//   * the overview: one box per group (folder, package, licence class) holding its modules packed
//     in rows (ELK "box"), the boxes packed together (ELK "rectpacking"); no edge moves anything,
//     so it takes a fraction of a second even for thousands of modules;
//   * a focus or an isolated set: ELK "layered" along the dependencies, left to right or top to
//     bottom, layers closer or wrapped in rows, whichever fits the pane at the largest zoom.
// Every node's box is as wide as its label, so labels never overlap. Positions are node centres
// (with the size ELK gave the node: a group's box is drawn so, its title cut to its width); layered
// edges keep ELK's bends.
const ELK = window.ELK;  // vendor/elk-api-*.js, a classic script the page loads first
const WORKER = document.querySelector("script[data-elk-worker]").dataset.elkWorker;

export const NODE_HEIGHT = 18;
export const LABEL_FONT_PX = 11;
export const TITLE_FONT_PX = 13;
export const GROUP_HEIGHT = 28;  // a closed group's box (its title in bold TITLE_FONT_PX)
export const FONT_FAMILY = "system-ui, sans-serif";
export const MAX_FIT_ZOOM = 1.6;  // fitting never zooms in further
export const LAYERED_LIMIT = 300;  // more modules than this: packed in groups, not in layers (seconds)

let elk = null;
const measure = document.createElement("canvas").getContext("2d");
measure.font = `${LABEL_FONT_PX}px ${FONT_FAMILY}`;
const widths = new Map();

/** The width of a node: its label and some padding. */
export function nodeWidth(text) {
  let w = widths.get(text);
  if (w === undefined) {
    w = Math.ceil(measure.measureText(text).width) + 14;
    widths.set(text, w);
  }
  return w;
}

export function titleWidth(text) {
  measure.font = `bold ${TITLE_FONT_PX}px ${FONT_FAMILY}`;
  const w = Math.ceil(measure.measureText(text).width) + 20;
  measure.font = `${LABEL_FONT_PX}px ${FONT_FAMILY}`;
  return w;
}

function engine() {
  if (!elk) elk = new ELK({workerUrl: WORKER});
  return elk;
}

/** Start the worker (it loads and compiles ELK, a few hundred ms) while the page waits for its data. */
export function warmUp() {
  engine().layout({id: "warm-up", children: [], edges: []}).catch(() => {});  // a real layout reports errors
}

function leaf(n) {
  return {id: n.id, width: n.w || nodeWidth(n.short), height: n.h || NODE_HEIGHT};
}

/** Node centres (and widths) by id, and the bend points ELK routed each edge through, by edge id. */
function centres(graph, out = new Map(), dx = 0, dy = 0) {
  for (const c of graph.children || []) {
    out.set(c.id, {x: dx + c.x + c.width / 2, y: dy + c.y + c.height / 2, w: c.width, h: c.height});
    centres(c, out, dx + c.x, dy + c.y);
  }
  for (const e of graph.edges || []) {
    const bends = (e.sections || []).flatMap((section) => section.bendPoints || []);
    if (bends.length) out.set(e.id, {bends: bends.map((b) => ({x: dx + b.x, y: dy + b.y}))});
  }
  return out;
}

/** The overview: `groups` maps a group's id to {label, members}; each box at least as wide as its title. */
export async function packedLayout(groups) {
  const children = [...groups].map(([id, g]) => ({id, children: g.members.map(leaf), layoutOptions: {
    "elk.algorithm": "box", "elk.aspectRatio": "1.6", "elk.spacing.nodeNode": "6",
    "elk.padding": "[top=30,left=10,bottom=10,right=10]", "elk.nodeSize.constraints": "MINIMUM_SIZE",
    "elk.nodeSize.minimum": `(${titleWidth(g.label)}, 40)`}}));
  const graph = {id: "root", children,
    layoutOptions: {"elk.algorithm": "rectpacking", "elk.aspectRatio": "1.6", "elk.spacing.nodeNode": "24"}};
  return centres(await engine().layout(graph));
}

/** Modules in layers along the edges (`edges`: [{id, from, to}] of node ids), left to right; given the
 * size of the `pane` ({width, height}), also top to bottom, with half the room between layers (and
 * straight edges, which need no room of their own there) and wrapped in rows to the pane's shape,
 * keeping the first that shows at the largest zoom (up to MAX_FIT_ZOOM) when fitted in the pane. */
export async function layeredLayout(nodes, edges, between = 60, pane = null) {
  const ways = [{"elk.direction": "RIGHT"}];
  if (pane) {
    const half = String(Math.round(between / 2));
    ways.push({"elk.direction": "DOWN"}, {"elk.direction": "RIGHT", "elk.layered.spacing.nodeNodeBetweenLayers": half},
      {"elk.direction": "DOWN", "elk.layered.spacing.nodeNodeBetweenLayers": half},
      {"elk.direction": "RIGHT", "elk.layered.spacing.nodeNodeBetweenLayers": half, "elk.edgeRouting": "POLYLINE"},
      {"elk.direction": "RIGHT", "elk.layered.wrapping.strategy": "MULTI_EDGE", "elk.aspectRatio": String(pane.width / pane.height)});
  }
  const laid = await Promise.all(ways.map((way) => engine().layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered", "elk.layered.thoroughness": "3",
      "elk.spacing.nodeNode": "10", "elk.layered.spacing.nodeNodeBetweenLayers": String(between),
      "elk.separateConnectedComponents": "true", "elk.spacing.componentComponent": "30", ...way,
    },
    children: nodes.map(leaf),
    edges: edges.map((e) => ({id: e.id, sources: [e.from], targets: [e.to]})),
  })));
  const scale = (g) => (pane ? Math.min(MAX_FIT_ZOOM, pane.width / Math.max(g.width, 1), pane.height / Math.max(g.height, 1)) : 0);
  return centres(laid.reduce((best, g) => (scale(g) > scale(best) ? g : best)));
}

/** Boxes packed together to the shape of the `pane` ({width, height}), edges left out: the closed
 * groups when their layers are too wide for the pane (their edges are drawn straight anyway). */
export async function shapedLayout(nodes, pane) {
  const graph = {id: "root", children: nodes.map(leaf), layoutOptions: {"elk.algorithm": "rectpacking",
    "elk.aspectRatio": String(pane.width / pane.height), "elk.spacing.nodeNode": "24"}};
  return centres(await engine().layout(graph));
}

/** The zoom at which the boxes at `positions` (centres and sizes) fit the `pane`. */
export function fitScale(positions, pane) {
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of positions.values()) {
    if (p.w === undefined) continue;  // an edge's bends
    [x1, y1] = [Math.min(x1, p.x - p.w / 2), Math.min(y1, p.y - p.h / 2)];
    [x2, y2] = [Math.max(x2, p.x + p.w / 2), Math.max(y2, p.y + p.h / 2)];
  }
  return x1 === Infinity ? Infinity : Math.min(pane.width / (x2 - x1), pane.height / (y2 - y1));
}
