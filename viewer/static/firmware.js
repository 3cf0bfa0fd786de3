// The files page: the tree on the left, the file panel on the right, the URL (?path=P&tab=T or
// ?missing=SONAME) kept in sync so that the page can be bookmarked.
import {apiUrl, clear, errorBox, getJson} from "./common.js";
import {FilePanel} from "./panel.js";
import {FileTree} from "./tree.js";

const treeBox = document.getElementById("tree");
const panelBox = document.getElementById("panel");
let missing = new Map();

function setUrl(params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  const qs = query.toString();
  history.replaceState(null, "", qs ? `?${qs}` : location.pathname);
}

const panel = new FilePanel(panelBox, {
  onNavigate: (path, tab) => openFile(path, tab),
  onTab: (tab) => {
    if (panel.path) setUrl({path: panel.path, tab: tab === "overview" ? null : tab});
  },
});

const tree = new FileTree(treeBox, {
  onSelect: (choice) => (choice.missing ? openMissing(choice.missing) : openFile(choice.path, panel.tab)),
  filterBox: document.getElementById("tree-filter"),
  statusBox: document.getElementById("tree-status"),
  countLine: document.getElementById("tree-count"),
});

function openFile(path, tab) {
  tree.select(path);
  setUrl({path, tab: tab === "overview" ? null : tab});
  return panel.showFile(path, tab);
}

function openMissing(soname) {
  tree.select({missing: soname});
  setUrl({missing: soname});
  panel.showMissing(soname, missing.get(soname) || []);
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
  const params = new URLSearchParams(location.search);
  if (params.get("path")) await openFile(params.get("path"), params.get("tab") || "overview");
  else if (params.get("missing")) openMissing(params.get("missing"));
  document.body.dataset.ready = "1";
}

main();
