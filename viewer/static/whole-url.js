// The whole-firmware view's state in its URL, so that a view can be shared and Back and Forward
// walk through the changes: grouping, colouring, filters, focus (module, hops, direction),
// isolation and selection. Each change pushes a history entry; a popstate restores one.
import {LATER_EDGES, STATUSES} from "./common.js";
import {LICENCE_CLASSES} from "./licence.js";
import {DIRECTIONS, GROUPINGS, MAX_HOPS, edgeIndex, nodeIndex, state} from "./whole-state.js";

const DEFAULTS = {group: "folder", colour: "kind", hops: "1", direction: "both"};

/** The view's state as URL query parameters (defaults left out). */
export function toQuery() {
  const q = new URLSearchParams();
  const put = (name, value) => { if (value !== "" && value !== null && value !== DEFAULTS[name]) q.set(name, value); };
  put("group", state.group);
  put("colour", state.colourBy);
  put("folder", state.dir);
  if (state.onlyConnected) q.set("connected", "1");
  for (const s of [...STATUSES, ...LATER_EDGES]) if (!state.statusOn.has(s)) q.append("hide-status", s);
  for (const k of state.allKinds || []) if (!state.kindOn.has(k)) q.append("hide-kind", k);
  for (const c of LICENCE_CLASSES) if (!state.licenceOn.has(c)) q.append("hide-licence", c);
  if (state.focus >= 0) {
    q.set("focus", state.nodes[state.focus].key);
    put("hops", String(state.hops));
    put("direction", state.direction);
  }
  if (state.isolate) q.set("isolate", "1");
  if (state.modules) q.set("modules", "1");
  for (const name of [...state.expanded].sort()) q.append("expand", name);
  if (state.selectedNode >= 0) q.set("select", state.nodes[state.selectedNode].key);
  if (state.selectedEdge >= 0) {
    const e = state.edges[state.selectedEdge];
    q.set("edge-from", state.nodes[e.from].key);
    q.set("edge-to", state.nodes[e.to].key);
  }
  return q;
}

/** Push the current state as a new history entry (unless the URL already says it). */
export function pushState() {
  const query = toQuery().toString();
  const url = `${location.pathname}${query ? `?${query}` : ""}`;
  if (url !== `${location.pathname}${location.search}`) history.pushState({whole: true}, "", url);
}

/** Set the state from the URL's query (unknown values fall back to the defaults). */
export function fromQuery(search = location.search) {
  const q = new URLSearchParams(search);
  const pick = (name, allowed) => (allowed.includes(q.get(name)) ? q.get(name) : DEFAULTS[name]);
  state.group = pick("group", GROUPINGS);
  state.colourBy = pick("colour", ["kind", "licence", "source"]);
  state.dir = q.get("folder") || "";
  state.onlyConnected = q.get("connected") === "1";
  const hidden = (name) => new Set(q.getAll(name));
  const hideStatus = hidden("hide-status");
  state.statusOn = new Set([...STATUSES, ...LATER_EDGES].filter((s) => !hideStatus.has(s)));
  const hideKind = hidden("hide-kind");
  state.kindOn = new Set((state.allKinds || []).filter((k) => !hideKind.has(k)));
  const hideLicence = hidden("hide-licence");
  state.licenceOn = new Set(LICENCE_CLASSES.filter((c) => !hideLicence.has(c)));
  state.focus = q.has("focus") ? nodeIndex(q.get("focus")) : -1;
  const hops = Number.parseInt(q.get("hops") || DEFAULTS.hops, 10);
  state.hops = Number.isFinite(hops) ? Math.min(MAX_HOPS, Math.max(1, hops)) : 1;
  state.direction = pick("direction", DIRECTIONS);
  state.isolate = q.get("isolate") === "1";
  state.modules = q.get("modules") === "1";
  state.expanded = new Set(q.getAll("expand"));
  state.selectedNode = q.has("select") ? nodeIndex(q.get("select")) : -1;
  state.selectedEdge = q.has("edge-from") ? edgeIndex(q.get("edge-from"), q.get("edge-to")) : -1;
  if (state.selectedEdge >= 0) state.selectedNode = -1;
}
