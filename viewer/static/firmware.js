// The files page: the tree on the left, the file panel on the right. Every choice (a file, a missing
// soname, a tab) is a history entry (?path=P&tab=T or ?missing=SONAME), and so is a module or edge
// selected in the graph (diagram.js adds &select=ID), so Back and Forward walk through them and a URL
// opened fresh shows the same view.
import {apiUrl, clear, errorBox, getJson} from "./common.js";
import {componentsOverview} from "./identity.js";
import {moduleLink} from "./licence-findings.js";
import {FilePanel} from "./panel.js";
import {FileTree} from "./tree.js";

const treeBox = document.getElementById("tree");
const panelBox = document.getElementById("panel");
let missing = new Map();

/** The view a URL's query names: {path, tab} or {missing}; {} for the empty page. */
function viewOf(search) {
  const params = new URLSearchParams(search);
  if (params.get("path")) {
    return {path: params.get("path"), tab: params.get("tab") || "overview"};
  }
  if (params.get("missing")) return {missing: params.get("missing")};
  return {};
}

function queryOf(view) {
  const query = new URLSearchParams();
  if (view.path) {
    query.set("path", view.path);
    if (view.tab && view.tab !== "overview") query.set("tab", view.tab);
  } else if (view.missing) query.set("missing", view.missing);
  const qs = query.toString();
  return qs ? `?${qs}` : location.pathname;
}

/** A new history entry for the view, unless the URL already names it. */
function remember(view) {
  const url = queryOf(view);
  if (url === (location.search || location.pathname)) return;
  history.pushState(null, "", url);
}

const panel = new FilePanel(panelBox, {
  onNavigate: (path, tab) => openFile(path, tab),
  onTab: (tab) => {
    if (panel.path) remember({path: panel.path, tab});
  },
});

const tree = new FileTree(treeBox, {
  onSelect: (choice) => (choice.missing ? openMissing(choice.missing) : openFile(choice.path, panel.tab)),
  filterBox: document.getElementById("tree-filter"),
  statusBox: document.getElementById("tree-status"),
  countLine: document.getElementById("tree-count"),
});

function openFile(path, tab) {
  remember({path, tab});
  return showFile(path, tab);
}

function showFile(path, tab) {
  tree.select(path);
  return panel.showFile(path, tab);
}

function openMissing(soname) {
  remember({missing: soname});
  showMissing(soname);
}

function showMissing(soname) {
  tree.select({missing: soname});
  panel.showMissing(soname, missing.get(soname) || []);
}

/** Show the view the current URL names, without a new history entry (page load, Back, Forward). */
async function restore() {
  const view = viewOf(location.search);
  if (view.path) {
    if (panel.path === view.path && panel.data && panel.container.dataset.state === "ready") {
      panel.restore(view.tab);  // same file: only the tab (or the graph's selection) changed
    } else await showFile(view.path, view.tab);
  } else if (view.missing) showMissing(view.missing);
  else {
    tree.select(null);
    panel.showEmpty();
  }
}

/** The firmware's identified components (docs/identify.md) on the page's first words, under the tree's prompt. */
async function showComponents() {
  let data;
  try {
    data = await getJson(apiUrl("components"));
  } catch (err) {
    panel.empty.push(errorBox(`Cannot load the identified components: ${err.message}`));
    return;
  }
  panel.empty.push(componentsOverview(data, moduleLink));
  if (!Object.keys(viewOf(location.search)).length) panel.showEmpty();
}

async function main() {
  let data;
  try {
    data = await getJson(apiUrl("tree"));
  } catch (err) {
    clear(treeBox).appendChild(errorBox(`Cannot load the file tree: ${err.message}`));
    document.body.dataset.ready = "error";
    return;
  }
  missing = new Map((data.missing || []).map((m) => [m.soname, m.needed_by]));
  tree.load(data, data.firmware && data.firmware.name ? data.firmware.name : "/");
  window.addEventListener("popstate", () => restore());
  await restore();
  await showComponents();
  document.body.dataset.ready = "1";
}

main();
