// The per-file panel: tabs Overview, ELF analysis and Graph.
import {
  KIND_LABEL, apiUrl, basename, clear, el, errorBox, fileHref, formatSize, getJson, pathPieces, plural, statusTag,
  symbolDetails,
} from "./common.js";
import {DiagramView} from "./diagram.js";
import {hardeningSection} from "./hardening.js";
import {kernelSections, kernelSummary} from "./kernel.js";
import {CONTAINED_HEADERS, containedCells, identitySection} from "./identity.js";
import {sourceSection} from "./source.js";
import {licenceFacts, licencesHref} from "./licence.js";
import {whyButton} from "./why.js";

export const TABS = [
  {key: "overview", label: "Overview"},
  {key: "analysis", label: "ELF analysis"},
  {key: "graph", label: "Graph"},
];

// More aliases than this are shown as a count with a "show" toggle.
const ALIASES_SHOWN = 3;

export class FilePanel {
  /**
   * onNavigate(path, tab): the user asked for another file (a link, a module of the graph opened);
   * onTab(tab): the user chose a tab. (A module of the graph is selected by the graph itself: one click,
   * a history entry of its own; a double-click or the graph's Open opens it through onNavigate.)
   */
  constructor(container, {onNavigate, onTab}) {
    this.container = container;
    this.onNavigate = onNavigate;
    this.onTab = onTab;
    this.tab = "overview";
    this.request = 0;
    this.data = null;
    this.diagram = null;
    this.empty = [...container.childNodes].map((n) => n.cloneNode(true));  // the page's first words
  }

  /** Back to the page's first words (no file chosen). */
  showEmpty() {
    ++this.request;
    this.data = null;
    this.path = null;
    clear(this.container).append(...this.empty.map((n) => n.cloneNode(true)));
    this.container.dataset.state = "empty";
  }

  /** The same file, another tab (Back, Forward): no new history entry. */
  restore(tab) {
    this.selectTab(TABS.some((t) => t.key === tab) ? tab : "overview", false);
  }

  /** A link to another file of the firmware that opens it in this panel (or in a new tab). */
  fileLink(path, text = path) {
    if (!path) return el("span", {className: "muted"}, "(not in the image)");
    const shown = text === path ? pathPieces(text) : text;  // a path wraps between its names
    const a = el("a", {href: fileHref(path), className: "file-link", dataset: {path}}, shown);
    a.addEventListener("click", (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      ev.preventDefault();
      this.onNavigate(path, this.tab);
    });
    return a;
  }

  async showFile(path, tab = this.tab) {
    const request = ++this.request;
    this.path = path;
    this.tab = TABS.some((t) => t.key === tab) ? tab : "overview";
    clear(this.container).appendChild(el("p", {className: "muted"}, "Loading ", path, "…"));
    this.container.dataset.state = "loading";
    let data;
    try {
      data = await getJson(apiUrl("file", {path}));
    } catch (err) {
      if (request !== this.request) return;
      clear(this.container).appendChild(errorBox(err.message));
      this.container.dataset.state = "error";
      return;
    }
    if (request !== this.request) return;
    this.data = data;
    this.diagram = null;
    this.render();
  }

  showMissing(soname, neededBy) {
    ++this.request;
    this.data = null;
    this.path = null;
    clear(this.container);
    const list = el("ul", {className: "plain"});
    for (const path of neededBy || []) list.appendChild(el("li", {}, this.fileLink(path)));
    this.container.append(
      el("header", {className: "panel-head"},
        el("h1", {className: "file-name ghost-name"}, soname),
        el("p", {className: "file-path muted"}, "missing library: declared in DT_NEEDED, no file in the image has it")),
      el("h2", {}, `Needed by (${neededBy ? neededBy.length : 0})`), list);
    this.container.dataset.state = "missing";
  }

  render() {
    const {module} = this.data;
    clear(this.container);
    const head = el("header", {className: "panel-head"},
      el("h1", {className: "file-name"}, module.name || basename(module.path)),
      el("p", {className: "file-path"}, el("code", {}, module.path)));
    if (this.path !== module.path) {
      head.appendChild(el("p", {className: "muted via"}, "opened through the symlink ", el("code", {}, this.path)));
    }
    const tabs = el("div", {className: "tabs", role: "tablist"});
    this.choiceBar = null;
    this.tabButtons = new Map();
    this.tabPanels = new Map();
    const bodies = el("div", {className: "tab-bodies"});
    for (const t of TABS) {
      const button = el("button", {type: "button", role: "tab", id: `tab-${t.key}`, "aria-controls": `tabpanel-${t.key}`,
        dataset: {tab: t.key}}, t.label);
      button.addEventListener("click", () => {
        if (this.tab !== t.key) this.selectTab(t.key);
      });
      button.addEventListener("keydown", (ev) => this.tabKey(ev, t.key));
      tabs.appendChild(button);
      this.tabButtons.set(t.key, button);
      const body = el("div", {role: "tabpanel", id: `tabpanel-${t.key}`, "aria-labelledby": `tab-${t.key}`,
        className: `tab-body tab-${t.key}`});
      body.hidden = true;
      bodies.appendChild(body);
      this.tabPanels.set(t.key, body);
    }
    this.container.append(head, tabs, bodies);
    this.tabPanels.get("overview").appendChild(this.overview());
    this.tabPanels.get("analysis").appendChild(this.analysis());
    this.container.dataset.state = "ready";
    this.selectTab(this.tab, false);
  }

  /** The WAI-ARIA tabs pattern: Left/Right (round), Home and End move to a tab and choose it. */
  tabKey(ev, key) {
    const keys = TABS.map((t) => t.key);
    const at = keys.indexOf(key);
    const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: keys.length - 1}[ev.key];
    if (to === undefined || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    ev.preventDefault();
    const next = keys[(to + keys.length) % keys.length];
    if (next !== this.tab) this.selectTab(next);
    this.tabButtons.get(next).focus();
  }

  /** Show a tab; notify: the user chose it (a new history entry), not the URL. */
  selectTab(key, notify = true) {
    this.tab = key;
    for (const [k, button] of this.tabButtons) {
      button.setAttribute("aria-selected", String(k === key));
      button.tabIndex = k === key ? 0 : -1;
      this.tabPanels.get(k).hidden = k !== key;
    }
    if (key === "graph" && !this.diagram) this.drawGraph();
    if (notify) this.onTab(key);
  }

  // ------------------------------------------------------------------ Graph

  drawGraph() {
    const body = this.tabPanels.get("graph");
    const host = el("div", {className: "diagram-host"});
    clear(body).append(host);
    this.diagram = new DiagramView(host, {path: this.data.module.path, onNode: (path) => this.onNavigate(path, "graph")});
    // the drawing comes later; tests wait on the graph's state
    new MutationObserver(() => {
      body.dataset.state = host.dataset.state || "";
    }).observe(host, {attributes: true, attributeFilter: ["data-state"]});
    this.diagram.load();
  }

  // ------------------------------------------------------------------ Overview

  overview() {
    const m = this.data.module;
    const dl = el("dl", {className: "facts"});
    const row = (term, ...value) => {
      if (value.every((v) => v === null || v === undefined || v === "")) return;
      dl.append(el("dt", {}, term), el("dd", {}, ...value));
    };
    row("Path", el("code", {}, m.path));
    row("Kind", m.kind);
    const arch = [
      m.machine ? String(m.machine).replace(/^EM_/, "") : null,
      m.class ? `${String(m.class).replace(/^ELF(CLASS)?/, "")}-bit` : null,
      m.endian ? `${String(m.endian).replace(/-?endian$/i, "")}-endian` : null,
      m.osabi ? String(m.osabi).replace(/^ELFOSABI_/, "") : null,
    ].filter((v) => v);
    row("Architecture", arch.join(" · "));
    row("Soname", m.soname ? el("code", {}, m.soname) : el("span", {className: "muted"}, "none"));
    row("Interpreter", m.interpreter ? el("code", {}, m.interpreter) : null);
    row("Size", formatSize(m.size));
    for (const key of Object.keys(m).filter((k) => /^(sha\d+|md5|sha1|tlsh|ssdeep)$/.test(k))) {
      row(key.toUpperCase(), el("code", {className: "hash"}, m[key] || ""));
    }
    if (m.needed && m.needed.length) {
      row("DT_NEEDED", el("ol", {className: "plain-ol", start: "0"}, ...m.needed.map((n) => el("li", {}, el("code", {}, n)))));
    }
    row("Aliases", aliasList(m.aliases || []));
    row("Root", m.root ? el("code", {}, m.root) : null);
    const d = this.data;
    const summary = m.static ? el("p", {className: "summary static-summary"}, el("span", {className: "static-badge"},
      "static"), " Statically linked: no dynamic linker runs before it and it declares no libraries; the code it " +
      "was linked with is inside the file, so it has no dependency edges and its licence covers all of it.")
      : el("p", {className: "summary"},
      `${plural(d.declared.length, "declared dependency", "declared dependencies")}: `,
      `${d.used.length} used, ${d.declared_unused.length} declared-unused, ${d.missing.length} missing; `,
      `${d.hidden.length} hidden, ${(d.interposed || []).length} interposed, ${(d.upcall || []).length} upcall; `,
      `used by ${plural(d.used_by.length, "module")}; `,
      `${plural(d.unresolved.filter((u) => !u.weak).length, "unresolved strong reference")}`,
      d.unresolved.some((u) => u.weak) ? ` (and ${d.unresolved.filter((u) => u.weak).length} weak)` : "", ".");
    const unusedHelp = d.declared_unused.length
      ? el("p", {className: "help muted declared-unused-help"}, "Declared-unused: ", DECLARED_UNUSED_HELP, ".") : null;
    const licence = el("section", {className: "licence-box", dataset: {section: "licence"}}, el("h2", {}, "Licence"),
      licenceFacts(m), el("p", {}, el("a", {href: licencesHref(), className: "licences-link"},
        "The licence findings of the whole firmware")));
    const kernel = m.kind === "kernel-module" ? kernelSummary(d) : null;
    return el("div", {}, dl, summary, unusedHelp, kernel, hardeningSection(d.hardening, m.kind),
      identitySection(d.identification), licence, sourceSection(d.source), this.exportLinks());
  }

  exportLinks() {
    const path = this.data.module.path;
    const link = (what, label) => el("a", {href: apiUrl(what, {path}), className: `export export-${what.replace(".", "-")}`,
      download: ""}, label);
    return el("p", {className: "exports"}, "Export: ",
      link("analysis.csv", "analysis (CSV)"), " · ",
      link("diagram.svg", "diagram (SVG)"), " · ",
      link("diagram.pdf", "PDF"), " · ",
      link("diagram.png", "PNG"));
  }

  // ------------------------------------------------------------------ ELF analysis

  section(key, title, help, rows, headers, cells) {
    const box = el("section", {className: "analysis-section", dataset: {section: key}});
    box.appendChild(el("h2", {}, `${title} `, el("span", {className: "count"}, `(${rows.length})`)));
    if (help) box.appendChild(el("p", {className: "help muted"}, help));
    if (!rows.length) {
      box.appendChild(el("p", {className: "none muted"}, "none"));
      return box;
    }
    const table = el("table", {className: "data stacks"});  // a card per row on a phone (narrow.css)
    table.appendChild(el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))));
    const body = el("tbody", {});
    for (const r of rows) {
      body.appendChild(el("tr", {}, ...cells(r).map((c, i) => el("td", {dataset: {label: headers[i]}}, c))));
    }
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }

  // How the loader found a declared dependency: "rule in DIR (via OBJECT)", or the paths tried.
  foundBy(f) {
    if (!f) return "";
    const one = (v) => {
      if (!v.rule) {
        const tried = v.tried || [];
        return el("details", {className: "found-by found-by-missing"},
          el("summary", {}, `not found: ${plural(tried.length, "path")} tried`),
          el("ol", {}, ...tried.map((p) => el("li", {}, el("code", {}, p)))));
      }
      return el("span", {className: "found-by"}, el("code", {className: "found-by-rule"}, v.rule),
        ...(v.directory ? [" in ", el("code", {}, v.directory)] : []),
        ...(v.via ? [" (via ", this.fileLink(v.via), ")"] : []));
    };
    if (!f.variants || f.variants.length < 2) return one(f);
    return el("details", {className: "found-by-variants"},
      el("summary", {}, one(f), ` (found ${f.variants.length} ways, depending on the program)`),
      el("ul", {className: "plain"}, ...f.variants.map((v) =>
        el("li", {}, one(v), ` for ${plural(v.executables.length, "link map")}`))));
  }

  // "why?" beside a library of a program's link map: the panel of why.js (how the program loads it)
  why(library) {
    return library && this.data.module.kind === "executable" ? whyButton(this.data.module.path, library) : null;
  }

  analysis() {
    const d = this.data;
    const code = (t) => (t === null || t === undefined ? "" : el("code", {}, t));
    const list = (items) => el("ul", {className: "plain"}, ...items.map((i) => el("li", {}, i)));
    const paths = (items) => (items.length > 5
      ? el("details", {}, el("summary", {}, plural(items.length, "program")), list(items.map((p) => this.fileLink(p))))
      : list(items.map((p) => this.fileLink(p))));
    return el("div", {},
      el("p", {className: "exports"}, el("a", {href: apiUrl("analysis.csv", {path: d.module.path}),
        className: "export export-analysis-csv", download: ""}, "Export this analysis as CSV")),
      this.section("declared", "Declared", "DT_NEEDED entries in order, with the file the loader takes for each " +
        "and how it found it (the rule and the folder), or the paths it tried for a missing one.",
        d.declared, ["#", "soname", "loads", "found by", "status", "symbols"],
        (r) => [String(r.position ?? ""), code(r.soname), [this.fileLink(r.to), this.why(r.to)], this.foundBy(r.found_by),
          statusTag(r.status), symbolDetails(r.symbols)]),
      this.section("used", "Used", "Declared, and symbols of this file bind to it.", d.used,
        ["soname", "file", "symbols"], (r) => [code(r.soname), this.fileLink(r.to), symbolDetails(r.symbols)]),
      this.section("declared_unused", "Declared-unused", `Declared, but nothing of this file binds to it: ${
        DECLARED_UNUSED_HELP}.`,
        d.declared_unused, ["soname", "file"], (r) => [code(r.soname), this.fileLink(r.to)]),
      this.section("hidden", "Hidden", "Not declared, yet symbols of this file bind to it: it works only " +
        "because another object loads that library.", d.hidden, ["soname", "file", "symbols"],
      (r) => [code(r.soname), [this.fileLink(r.to), this.why(r.to)], symbolDetails(r.symbols)]),
      this.section("interposed", "Interposed", "Not declared, and no dependency: this file or its own " +
        "dependencies define these symbols too, but that module comes first in the lookup (it interposes " +
        "them, as a program defining malloc).", d.interposed || [], ["soname", "file", "symbols"],
      (r) => [code(r.soname), this.fileLink(r.to), symbolDetails(r.symbols)]),
      this.section("upcall", "Upcalls", "Not declared, and no dependency: that module's own dependencies load " +
        "this file, which calls back into it (as the C runtime calls a program's main); the dependency runs " +
        "the other way.", d.upcall || [], ["soname", "file", "symbols"],
      (r) => [code(r.soname), this.fileLink(r.to), symbolDetails(r.symbols)]),
      this.section("missing", "Missing", "Declared, but no file in the image satisfies it.", d.missing,
        ["soname"], (r) => [code(r.soname)]),
      kindFilter(this.section("used_by", "Used by", "Modules that depend on this file.", d.used_by,
        ["module", "kind", "status", "symbols"], (r) => [this.fileLink(r.module), kindCell(r.kind), statusTag(r.status),
          symbolDetails(r.symbols)]), d.used_by),
      this.section("interposes_on", "Interposes on", "Modules whose references bind to this file only because it " +
        "comes first in their lookup (as a program defining malloc interposes on the C library): no use of " +
        "this file, and no dependency of it.", d.interposes_on || [], ["module", "kind", "symbols"],
      (r) => [this.fileLink(r.module), kindCell(r.kind), symbolDetails(r.symbols)]),
      this.section("called_back_by", "Called back by", "Modules this file's own dependencies load that call back " +
        "into it (upcalls): no use of this file.", d.called_back_by || [], ["module", "symbols"],
      (r) => [this.fileLink(r.module), symbolDetails(r.symbols)]),
      this.section("unresolved", "Unresolved", "References of this file nothing in the link map defines.",
        d.unresolved, ["symbol", "version", "binding", "in the link maps of"],
        (r) => [code(r.symbol), code(r.version), r.weak ? "weak" : "strong", paths(r.executables)]),
      this.section("duplicates", "Duplicate providers", "Symbols several loaded objects define: the first in " +
        "load order wins.", d.duplicates, ["symbol", "providers (load order)", "chosen", "in the link maps of"],
      (r) => [code(r.symbol), list(r.providers.map((p) => this.fileLink(p))), this.fileLink(r.chosen),
        paths(r.executables)]),
      ...(d.module.kind === "kernel-module"
        ? kernelSections(d, this.section.bind(this), (p) => this.fileLink(p)) : []),
      this.containsSection());
  }

  /** The components found inside this file (docs/identify.md), with the evidence of each. */
  containsSection() {
    const inside = (this.data.identification && this.data.identification.contains) || [];
    return this.section("contains", "Components inside", "Copies of known components compiled or linked into " +
      "this file (a static program's C library, a library's code copied in), found by their signatures; not " +
      "loaded at run time.", inside, CONTAINED_HEADERS, containedCells);
  }
}

/** A module's kind as the table's cell: its short tag and its name. */
function kindCell(kind) {
  return el("span", {dataset: {kind}}, el("span", {className: `kind kind-${kind}`}, KIND_LABEL[kind] || kind), ` ${kind}`);
}

/** A section's table filtered by the kind of module of each row ("programs only"), when it holds
 * more than one kind; the count in its title says how many rows are shown. */
function kindFilter(box, rows) {
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  if (kinds.length < 2) return box;
  const counts = Object.fromEntries(kinds.map((k) => [k, rows.filter((r) => r.kind === k).length]));
  const select = el("select", {className: "kind-filter", "aria-label": "Show the modules of one kind"},
    el("option", {value: ""}, `every kind (${rows.length})`),
    ...kinds.map((k) => el("option", {value: k}, `${KIND_PLURAL[k] || k} only (${counts[k]})`)));
  select.addEventListener("change", () => {
    const trs = box.querySelectorAll("tbody tr");
    rows.forEach((r, n) => { trs[n].hidden = Boolean(select.value) && r.kind !== select.value; });
    box.querySelector("h2 .count").textContent = select.value ? `(${counts[select.value]} of ${rows.length})` : `(${rows.length})`;
  });
  box.querySelector("table").before(el("p", {className: "kind-filter-row"}, el("label", {}, "Show ", select)));
  return box;
}

const KIND_PLURAL = {executable: "programs", library: "libraries", "kernel-module": "kernel modules", "other-elf": "other ELF files"};

// What declared-unused means, in the words of the status's own explanation (docs/viewer.md).
const DECLARED_UNUSED_HELP = "the library is still loaded and its initialisation code runs, but no symbol of " +
  "the declaring object binds to it";

/** A file's other names (symlinks): listed when few, else a count with a "show" toggle. */
function aliasList(aliases) {
  if (!aliases.length) return el("span", {className: "muted"}, "none");
  const list = el("ul", {className: "plain alias-list"}, ...aliases.map((a) => el("li", {}, el("code", {}, a))));
  if (aliases.length <= ALIASES_SHOWN) return list;
  list.hidden = true;
  const toggle = el("button", {type: "button", className: "small alias-toggle", "aria-expanded": "false"}, "show");
  toggle.addEventListener("click", () => {
    list.hidden = !list.hidden;
    toggle.textContent = list.hidden ? "show" : "hide";
    toggle.setAttribute("aria-expanded", String(!list.hidden));
  });
  return el("div", {className: "aliases"}, el("span", {className: "alias-count"}, plural(aliases.length, "alias",
    "aliases")), " ", toggle, list);
}
