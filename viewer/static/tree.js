// The file tree of a firmware: folders, files (kind marked), symlinks with their target, and the
// missing sonames as ghost entries; a filter box and a filter by status.
import {KIND_LABEL, basename, clear, el, fileHref, plural} from "./common.js";

const FLAG_MARK = {hidden: "H", declared_unused: "U", missing: "M", unresolved: "?"};
const FLAG_HELP = {
  hidden: "hidden dependencies (symbols bind to libraries it does not declare)",
  declared_unused: "declared-unused dependencies (declared: still loaded, their initialisation code runs, " +
    "but no symbol of this file binds to them)",
  missing: "missing libraries (declared, not in the image)",
  unresolved: "unresolved symbols (strong references nothing defines)",
};

function newDir(name, path) {
  return {name, path, dirs: new Map(), files: []};
}

export class FileTree {
  /**
   * container: the element to draw into; onSelect({path} | {missing: soname, needed_by}) is called
   * when the user picks an entry.
   */
  constructor(container, {onSelect, filterBox, statusBox, countLine}) {
    this.container = container;
    this.onSelect = onSelect;
    this.filterBox = filterBox;
    this.statusBox = statusBox;
    this.countLine = countLine;
    this.items = [];         // {li, entry, text} per file or ghost
    this.byPath = new Map(); // path -> item
    this.byMissing = new Map();
    this.dirItems = [];      // {li, details, parent}
    this.selected = null;
    let timer = null;
    filterBox.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.applyFilter(), 120);
    });
    statusBox.addEventListener("change", () => this.applyFilter());
  }

  load(data, firmwareName) {
    const top = newDir(firmwareName || "/", "/");
    for (const entry of data.entries) {
      const parts = entry.path.split("/").filter((p) => p !== "");
      let dir = top;
      for (const part of parts.slice(0, -1)) {
        if (!dir.dirs.has(part)) dir.dirs.set(part, newDir(part, `${dir.path === "/" ? "" : dir.path}/${part}`));
        dir = dir.dirs.get(part);
      }
      dir.files.push(entry);
    }
    clear(this.container);
    const ul = el("ul", {className: "tree-root", role: "group"});
    ul.appendChild(this.renderDir(top, null, true));
    if (data.missing && data.missing.length) ul.appendChild(this.renderMissing(data.missing));
    this.container.appendChild(ul);
    this.total = data.entries.length;
    this.applyFilter();
  }

  renderDir(dir, parent, isTop = false) {
    const li = el("li", {className: "dir", role: "treeitem"});
    const details = el("details", {});
    details.open = true;
    const label = isTop ? dir.name : `${dir.name}/`;
    details.appendChild(el("summary", {className: isTop ? "top" : null, title: dir.path}, label));
    const ul = el("ul", {role: "group"});
    const record = {li, details, parent};
    this.dirItems.push(record);
    for (const name of [...dir.dirs.keys()].sort()) ul.appendChild(this.renderDir(dir.dirs.get(name), record));
    dir.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const entry of dir.files) ul.appendChild(this.renderFile(entry, record));
    details.appendChild(ul);
    li.appendChild(details);
    return li;
  }

  renderFile(entry, parent) {
    const kind = entry.kind || "other-elf";
    const link = el("a", {href: fileHref(entry.path), className: "entry", dataset: {path: entry.path}},
      el("span", {className: `kind kind-${kind}`, title: kind}, KIND_LABEL[kind] || kind),
      el("span", {className: "name"}, basename(entry.path)));
    if (kind === "symlink" && entry.target) {
      link.appendChild(el("span", {className: "target", title: `symlink to ${entry.target}`}, "→ ", entry.target));
    }
    if (entry.static) {
      link.appendChild(el("span", {className: "static-badge", title: "statically linked: its libraries are inside the file"},
        "static"));
    }
    const flags = entry.flags || {};
    for (const key of Object.keys(FLAG_MARK)) {
      if (flags[key] > 0) {
        link.appendChild(el("span", {className: `flag flag-${key}`, title: `${flags[key]} ${FLAG_HELP[key]}`},
          FLAG_MARK[key]));
      }
    }
    link.title = entry.soname ? `${entry.path}\nsoname ${entry.soname}` : entry.path;
    link.addEventListener("click", (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;  // a new tab: let it be
      ev.preventDefault();
      this.onSelect({path: entry.path});
    });
    const li = el("li", {className: `file kind-${kind}`, role: "treeitem"}, link);
    const text = [entry.path, entry.soname || "", entry.target || ""].join("\n").toLowerCase();
    const item = {li, link, entry, text, parent};
    this.items.push(item);
    this.byPath.set(entry.path, item);
    return li;
  }

  renderMissing(missing) {
    const li = el("li", {className: "dir ghosts", role: "treeitem"});
    const details = el("details", {});
    details.open = true;
    details.appendChild(el("summary", {title: "declared in DT_NEEDED, not in the image"},
      `missing libraries (${missing.length})`));
    const record = {li, details, parent: null};
    this.dirItems.push(record);
    const ul = el("ul", {role: "group"});
    for (const m of missing) {
      const link = el("a", {href: "#", className: "entry ghost", dataset: {missing: m.soname}},
        el("span", {className: "kind kind-missing"}, "missing"),
        el("span", {className: "name"}, m.soname));
      link.title = `not in the image; needed by ${plural(m.needed_by.length, "file")}`;
      link.addEventListener("click", (ev) => {
        ev.preventDefault();
        this.onSelect({missing: m.soname, needed_by: m.needed_by});
      });
      const item = {li: el("li", {className: "file ghost", role: "treeitem"}, link), link,
        entry: {path: null, kind: "missing", soname: m.soname, flags: {missing: 1}},
        text: [m.soname, ...m.needed_by].join("\n").toLowerCase(), parent: record, ghost: m};
      this.items.push(item);
      this.byMissing.set(m.soname, item);
      ul.appendChild(item.li);
    }
    details.appendChild(ul);
    li.appendChild(details);
    return li;
  }

  applyFilter() {
    const query = this.filterBox.value.trim().toLowerCase();
    const status = this.statusBox.value;
    const visibleDirs = new Set();
    let shown = 0;
    for (const item of this.items) {
      const flags = item.entry.flags || {};
      const ok = (!query || item.text.includes(query)) && (!status || flags[status] > 0);
      item.li.hidden = !ok;
      if (ok) {
        if (!item.ghost) shown += 1;
        for (let d = item.parent; d && !visibleDirs.has(d); d = d.parent) visibleDirs.add(d);
      }
    }
    const filtering = Boolean(query || status);
    for (const d of this.dirItems) {
      d.li.hidden = !visibleDirs.has(d);
      if (filtering && visibleDirs.has(d)) d.details.open = true;
    }
    this.container.dataset.filter = `${status}:${query}`;  // what is applied (tests wait on it)
    this.countLine.textContent = filtering ? `${shown} of ${plural(this.total, "file")} shown`
      : plural(this.total, "file");
  }

  /** Mark the entry (a path, or {missing: soname}) as the selected one and bring it into view. */
  select(target) {
    if (this.selected) {
      this.selected.link.classList.remove("selected");
      this.selected.link.removeAttribute("aria-current");
    }
    const item = typeof target === "string" ? this.byPath.get(target) : this.byMissing.get(target && target.missing);
    this.selected = item || null;
    if (!item) return;
    item.link.classList.add("selected");
    item.link.setAttribute("aria-current", "true");
    for (let d = item.parent; d; d = d.parent) d.details.open = true;
    if (!item.li.hidden) item.link.scrollIntoView({block: "nearest"});
  }
}
