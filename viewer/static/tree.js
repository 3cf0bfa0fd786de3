// The file tree of a firmware: folders, files (kind marked), symlinks with their target, and the
// missing sonames as ghost entries; a filter box and a filter by status or by a hardening fact. The
// WAI-ARIA tree pattern: one tab stop (the chosen entry, else the first), arrow keys move, open and
// close, Home and End, Enter opens.
import {KIND_LABEL, basename, clear, el, fileHref, plural} from "./common.js";
import {HARDENING_PREFIX, hardeningBadges, hardeningMatch, hardeningOptions} from "./hardening.js";

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
    statusBox.appendChild(hardeningOptions());
    statusBox.addEventListener("change", () => this.applyFilter());
    this.stop = null;  // the one item Tab reaches
    container.setAttribute("aria-label", "files");
    container.addEventListener("keydown", (ev) => this.onKey(ev));
    container.addEventListener("focusin", (ev) => {  // a click focuses the link: its item is the tab stop
      const li = ev.target.closest("li[role=treeitem]");
      if (li) this.tabStop(li);
    });
  }

  /** Make ``li`` the tree's one tab stop. */
  tabStop(li) {
    if (this.stop === li) return;
    if (this.stop) this.stop.tabIndex = -1;
    this.stop = li;
    li.tabIndex = 0;
  }

  /** The items a person sees now, top to bottom (not filtered away, not inside a closed folder). */
  shownItems() {
    return [...this.container.querySelectorAll("li[role=treeitem]")].filter((li) => li.offsetParent !== null);
  }

  onKey(ev) {
    const li = ev.target.closest("li[role=treeitem]");
    if (!li || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const details = li.querySelector(":scope > details");
    const shown = this.shownItems();
    const at = shown.indexOf(li);
    let to = null;
    if (ev.key === "ArrowDown") to = shown[at + 1];
    else if (ev.key === "ArrowUp") to = shown[at - 1];
    else if (ev.key === "Home") to = shown[0];
    else if (ev.key === "End") to = shown[shown.length - 1];
    else if (ev.key === "ArrowRight" && details) {
      if (details.open) to = shown[at + 1];
      else details.open = true;
    } else if (ev.key === "ArrowLeft") {
      if (details && details.open) details.open = false;
      else to = li.parentElement.closest("li[role=treeitem]");
    } else if (ev.key === "Enter" || ev.key === " ") {
      if (details) details.open = !details.open;
      else li.querySelector(":scope > a").click();
    } else return;
    ev.preventDefault();
    if (to) {
      this.tabStop(to);
      to.focus();
    }
  }

  /** A folder's item: its details (named from its content, as the WAI-ARIA example), aria-expanded kept with it. */
  folderItem(className, details, summary, level) {
    summary.tabIndex = -1;
    const li = el("li", {className, role: "treeitem", "aria-level": level,
      "aria-expanded": String(details.open), tabindex: -1}, details);
    details.addEventListener("toggle", () => li.setAttribute("aria-expanded", String(details.open)));
    return li;
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
    this.tabStop(ul.querySelector("li[role=treeitem]"));
    this.total = data.entries.length;
    this.applyFilter();
  }

  renderDir(dir, parent, isTop = false, level = 1) {
    const details = el("details", {});
    details.open = true;
    const label = isTop ? dir.name : `${dir.name}/`;
    const summary = el("summary", {className: isTop ? "top" : null, title: dir.path}, label);
    details.appendChild(summary);
    const li = this.folderItem("dir", details, summary, level);
    const ul = el("ul", {role: "group"});
    const record = {li, details, parent, level};
    this.dirItems.push(record);
    for (const name of [...dir.dirs.keys()].sort()) ul.appendChild(this.renderDir(dir.dirs.get(name), record, false, level + 1));
    dir.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const entry of dir.files) ul.appendChild(this.renderFile(entry, record));
    details.appendChild(ul);
    li.appendChild(details);
    return li;
  }

  renderFile(entry, parent) {
    const kind = entry.kind || "other-elf";
    const link = el("a", {href: fileHref(entry.path), className: "entry", tabindex: -1, dataset: {path: entry.path}},
      el("span", {className: `kind kind-${kind}`, title: kind}, KIND_LABEL[kind] || kind),
      el("span", {className: "name"}, basename(entry.path)));
    if (kind === "symlink" && entry.target) {
      link.appendChild(el("span", {className: "target", title: `symlink to ${entry.target}`}, "→ ", entry.target));
    }
    if (entry.static) {
      link.appendChild(el("span", {className: "static-badge", title: "statically linked: its libraries are inside the file"},
        "static"));
    }
    link.append(...hardeningBadges(entry.hardening));
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
    const li = el("li", {className: `file kind-${kind}`, role: "treeitem", tabindex: -1, "aria-level": parent.level + 1,
      "aria-selected": "false", dataset: {path: entry.path}}, link);
    const text = [entry.path, entry.soname || "", entry.target || ""].join("\n").toLowerCase();
    const item = {li, link, entry, text, parent};
    this.items.push(item);
    this.byPath.set(entry.path, item);
    return li;
  }

  renderMissing(missing) {
    const details = el("details", {});
    details.open = true;
    const summary = el("summary", {title: "declared in DT_NEEDED, not in the image"}, `missing libraries (${missing.length})`);
    details.appendChild(summary);
    const li = this.folderItem("dir ghosts", details, summary, 1);
    const record = {li, details, parent: null, level: 1};
    this.dirItems.push(record);
    const ul = el("ul", {role: "group"});
    for (const m of missing) {
      const link = el("a", {href: "#", className: "entry ghost", tabindex: -1, dataset: {missing: m.soname}},
        el("span", {className: "kind kind-missing"}, "missing"),
        el("span", {className: "name"}, m.soname));
      link.title = `not in the image; needed by ${plural(m.needed_by.length, "file")}`;
      link.addEventListener("click", (ev) => {
        ev.preventDefault();
        this.onSelect({missing: m.soname, needed_by: m.needed_by});
      });
      const item = {li: el("li", {className: "file ghost", role: "treeitem", tabindex: -1, "aria-level": 2,
        "aria-selected": "false", dataset: {missing: m.soname}}, link), link,
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
      const ok = (!query || item.text.includes(query)) && (!status || (status.startsWith(HARDENING_PREFIX)
        ? hardeningMatch(status, item.entry.hardening, this.kindOf(item.entry)) : flags[status] > 0));
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

  /** A module's kind; a symlink's is its target's. */
  kindOf(entry) {
    const target = entry.kind === "symlink" ? this.byPath.get(entry.target) : null;
    return target ? target.entry.kind : entry.kind;
  }

  /** Mark the entry (a path, or {missing: soname}) as the selected one and bring it into view. */
  select(target) {
    if (this.selected) {
      this.selected.link.classList.remove("selected");
      this.selected.link.removeAttribute("aria-current");
      this.selected.li.setAttribute("aria-selected", "false");
    }
    const item = typeof target === "string" ? this.byPath.get(target) : this.byMissing.get(target && target.missing);
    this.selected = item || null;
    if (!item) return;
    item.link.classList.add("selected");
    item.link.setAttribute("aria-current", "true");
    item.li.setAttribute("aria-selected", "true");
    this.tabStop(item.li);
    for (let d = item.parent; d; d = d.parent) d.details.open = true;
    if (!item.li.hidden) item.link.scrollIntoView({block: "nearest"});
  }
}
