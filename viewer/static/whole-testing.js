// window.linkgraphWhole, the whole-firmware view as tests and benchmarks read it: what the graph
// library draws now (modules, edges, their screen positions, label sizes), timings and counters.
// whole.js adds the actions (select, focus, isolate, ...).
import {graph} from "./whole-graph.js";
import {edgeIndex, nodeIndex, state} from "./whole-state.js";

function drawnNodes() {
  return graph().nodes().filter((n) => !n.hasClass("group") && !n.hasClass("agg") && !n.hasClass("off"));
}

/** Every box drawn with a label of its own: modules and closed groups (not the boxes around modules). */
function labelled() {
  return graph().nodes().filter((n) => !n.hasClass("group") && !n.hasClass("off"));
}

function drawnEdges() {
  return graph().edges().filter((e) => !e.hasClass("off"));
}

export function testingApi() {
  return {
    ready: false, firstFrameMs: null, dataMs: null, nodes: 0, edges: 0, frames: 0, lastFrameMs: 0,
    busy: 0, layouts: 0, renders: 0, lastLayoutMs: null, lastShowMs: null, lastRenderMs: null,
    visibleEdges: () => drawnEdges().length,
    visibleNodes: () => drawnNodes().length,
    drawnEdges: () => drawnEdges().length,
    /** The modules drawn now (paths, or sonames of missing libraries), sorted. */
    visibleKeys: () => drawnNodes().map((n) => state.nodes[n.scratch("i")].key).sort(),
    /** The edges drawn now as [from, to, status] of keys, sorted. */
    visibleEdgeList: () => drawnEdges().map((e) => {
      const edge = state.edges[e.scratch("k")];
      return [state.nodes[edge.from].key, state.nodes[edge.to].key, edge.status];
    }).sort(),
    /** The edges drawn now, by link (elf, kernel, dlopen) and status: {kernel: {used: 3}, ...}. */
    visibleLinks() {
      const out = {};
      drawnEdges().forEach((e) => {
        const edge = state.edges[e.scratch("k")];
        const per = out[edge.link] || (out[edge.link] = {});
        per[edge.status] = (per[edge.status] || 0) + 1;
      });
      return out;
    },
    /** Screen position (CSS pixels, relative to the graph's box) of a module drawn now, or null. */
    nodePosition(key) {
      const i = nodeIndex(key);
      const node = i < 0 ? null : graph().getElementById(state.nodes[i].id);
      if (!node || node.empty() || node.hasClass("off")) return null;
      return node.renderedPosition();
    },
    /** Screen position of the middle of the edge drawn from one module to another (or null). */
    edgePosition(from, to) {
      const k = edgeIndex(from, to);
      const edge = k < 0 ? null : graph().getElementById(state.edges[k].id);
      if (!edge || edge.empty() || edge.hasClass("off")) return null;
      return edge.renderedMidpoint();
    },
    /** Each module drawn: its label's font size on screen, whether it is drawn, its box with the label. */
    labels() {
      const cy = graph();
      return labelled().map((n) => {
        const px = Number.parseFloat(n.style("font-size")) * cy.zoom();
        const key = n.hasClass("agg") ? `group:${n.data("name")}` : state.nodes[n.scratch("i")].key;
        return {key, label: n.data("label"), fontPx: px,
          drawn: n.hasClass("all-labels") || px >= Number.parseFloat(n.style("min-zoomed-font-size")),
          box: n.renderedBoundingBox({includeLabels: true, includeOverlays: false, includeUnderlays: false})};
      });
    },
    /** The closed groups drawn: {name, members (count), box (on screen)}; and the aggregated edges
     * drawn: [from group or module key, to, count]. */
    closedGroups: () => graph().nodes(".agg").filter((n) => !n.hasClass("off")).map((n) => ({name: n.data("name"),
      members: n.data("members"), box: n.renderedBoundingBox({includeLabels: true})})),
    joinedEdges() {
      const name = (n) => (n.hasClass("agg") ? `group:${n.data("name")}` : state.nodes[n.scratch("i")].key);
      return graph().edges(".joined").map((e) => [name(e.source()), name(e.target()), e.data("count")]).sort();
    },
    /** The aggregated edges drawn: {from, to (group names or module keys), count, mid (its middle on screen)}. */
    joinedMidpoints: () => graph().edges(".joined").map((e) => ({from: e.source().data("name") ?? state.nodes[e.source().scratch("i")].key,
      to: e.target().data("name") ?? state.nodes[e.target().scratch("i")].key, count: e.data("count"), mid: e.renderedMidpoint()})),
    /** The box every shown module or group fills on screen (CSS px relative to the graph's box). */
    drawingBox: () => labelled().renderedBoundingBox({includeLabels: true}),
    /** The fill colour of a module's box (rgb()). */
    nodeColour(key) {
      const i = nodeIndex(key);
      return i < 0 ? null : graph().getElementById(state.nodes[i].id).style("background-color");
    },
    /** The group boxes drawn now: {title: [keys of the modules shown inside it (by where they are
     * drawn), sorted]}. */
    groups() {
      const out = {};
      const modules = drawnNodes();
      graph().nodes(".group").forEach((g) => {
        if (g.hasClass("off")) return;
        const b = g.boundingBox({includeLabels: false});
        out[g.data("label")] = modules.filter((n) => {
          const p = n.position();
          return p.x > b.x1 && p.x < b.x2 && p.y > b.y1 && p.y < b.y2;
        }).map((n) => state.nodes[n.scratch("i")].key).sort();
      });
      return out;
    },
    /** What the path finder marks in the drawing: module keys and group names ("group:" name). */
    onPathEdges: () => graph().edges(".on-path").map((e) => [e.source(), e.target()].map((n) => state.nodes[n.scratch("i")]?.key ?? `group:${n.data("name")}`)).sort(),
    onPath: () => graph().nodes(".on-path").map((n) => (n.hasClass("agg") ? `group:${n.data("name")}` : state.nodes[n.scratch("i")].key)).sort(),
    view: () => ({zoom: graph().zoom(), width: graph().width(), height: graph().height()}),
    selected: () => (state.selectedNode >= 0 ? state.nodes[state.selectedNode].key : null),
    selectedEdge: () => {
      if (state.selectedEdge < 0) return null;
      const e = state.edges[state.selectedEdge];
      return [state.nodes[e.from].key, state.nodes[e.to].key];
    },
    focused: () => (state.focus >= 0 ? state.nodes[state.focus].key : null),
    mode: () => (state.focus >= 0 ? "focus" : (state.isolate ? "isolate" : (state.modules ? "overview" : "groups"))),
  };
}
