// One program's process in the whole-firmware view: the edges of its link map (what a focus on
// "what it depends on" follows, so that libc's edges into other programs stay out) and the path
// finder, "how does A reach B" in the process of a program (GET /path, docs/viewer.md), each step
// with its status, the paths marked in the drawing.
import {apiUrl, clear, el, errorBox, getJson, plural, statusTag} from "./common.js";
import {graph} from "./whole-graph.js";
import {edgeIndex, groupOf, nodeIndex, state} from "./whole-state.js";

const $ = (id) => document.getElementById(id);

/** Fetch the link map of the module in focus when "what it depends on" is asked (once per module). */
export async function loadProcess() {
  const i = state.focus;
  if (i < 0 || state.direction !== "out" || !state.nodes[i].path || state.process?.focus === i) return;
  const answer = await getJson(apiUrl("process", {program: state.nodes[i].path})).catch(() => ({edges: []}));
  const edges = new Set();
  for (const e of answer.edges) {
    const k = edgeIndex(e.from, e.to);
    if (k >= 0) edges.add(k);
  }
  state.process = {focus: i, edges};
}

function step(s) {
  const name = (key) => el("code", {title: key}, key.split("/").pop());
  return el("li", {dataset: {from: s.from, to: s.to, status: s.status}}, name(s.from), " → ", name(s.to), " ",
    statusTag(s.status), s.count ? ` ${plural(s.count, "symbol")}` : "");
}

/** Mark the paths' modules and edges in the drawing: a module of a closed group marks its group's box,
 * an edge drawn between open modules marks itself (the marks go with the next layout). */
function showOnDrawing(paths) {
  const cy = graph();
  cy.elements(".on-path").removeClass("on-path");
  const marked = [];
  for (const s of paths.flat()) {
    const k = edgeIndex(s.from, s.to);
    if (k >= 0) marked.push(cy.getElementById(state.edges[k].id));
    for (const key of [s.from, s.to]) {
      const i = nodeIndex(key);
      if (i < 0) continue;
      const node = cy.getElementById(state.nodes[i].id);
      const name = groupOf(state.nodes[i]) ?? "all modules";
      marked.push(node.nonempty() ? node : cy.nodes(".agg").filter((g) => g.data("name") === name));
    }
  }
  for (const e of marked) e.addClass("on-path");
  const shown = cy.collection(marked).filter((e) => e.visible());
  if (shown.nonempty()) cy.animate({fit: {eles: shown, padding: 48}, duration: 200});  // the path in view
}

let openGroups = async (_names) => {};

/** The groups (folders) holding the paths' modules, so that their modules can be drawn and marked. */
function groupsOf(paths) {
  const names = new Set();
  for (const s of paths.flat()) {
    for (const key of [s.from, s.to]) {
      const i = nodeIndex(key);
      if (i >= 0) names.add(groupOf(state.nodes[i]) ?? "all modules");
    }
  }
  return names;
}

async function find() {
  const box = $("whole-path-result");
  const from = $("whole-path-from").value.trim();
  const to = $("whole-path-to").value.trim();
  const program = $("whole-path-program").value.trim();
  if (!from || !to) return;
  box.dataset.state = "loading";
  clear(box).appendChild(el("p", {className: "muted"}, "Looking…"));
  try {
    const answer = await getJson(apiUrl("path", {from, to, ...(program ? {program} : {})}));
    clear(box);
    box.append(el("p", {}, `In the process of `, el("code", {}, answer.program), ` (${plural(answer.edges_in_link_map, "edge")}): `,
      answer.paths.length ? plural(answer.paths.length, "shortest path") : "no path"));
    for (const path of answer.paths) box.appendChild(el("ol", {className: "plain path-steps"}, ...path.map(step)));
    if (answer.more) box.appendChild(el("p", {className: "muted"}, "… and more paths of this length"));
    if (answer.note) box.appendChild(el("p", {className: "muted"}, `Not every path may be listed: ${answer.note}.`));
    await openGroups(groupsOf(answer.paths));  // the folders on the path open, to draw its modules
    showOnDrawing(answer.paths);
    box.dataset.state = "ready";
  } catch (err) {
    clear(box).appendChild(errorBox(err.message));
    box.dataset.state = "error";
  }
}

/** `open(names)` opens the groups of those names (and draws again) before the paths are marked. */
export function buildPathFinder(open) {
  openGroups = open;
  $("whole-path").addEventListener("submit", (ev) => {
    ev.preventDefault();
    find();
  });
}
