// The licence findings (a)-(g) of docs/licences.md as the Licences page shows them: one collapsible
// group per GPL library (per LGPL library for (d), per provider of GPL-only exports for (e)), its
// findings inside. Every module name links to its file page; everything from the firmware is text.
import {basename, el, fileHref, plural, statusTag, symbolDetails} from "./common.js";
import {groupBy} from "./finding-groups.js";
import {GPL_ONLY} from "./kernel.js";
import {componentLabel, evidenceTable} from "./identity.js";
import {licenceTag} from "./licence.js";

export function moduleLink(path) {
  return el("a", {href: fileHref(path), className: "file-link", dataset: {path}}, el("code", {}, path));
}

function symbols(list) {
  return symbolDetails(list, {open: list.length > 0 && list.length <= 8});
}

function table(headers, rows) {
  return el("table", {className: "data"}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows));
}

function row(dataset, ...cells) {
  return el("tr", {dataset}, ...cells.map((c) => el("td", {}, c)));
}

function programList(programs) {
  const list = el("ul", {className: "plain programs"}, ...programs.map((p) => el("li", {}, moduleLink(p))));
  return programs.length > 8 ? el("details", {}, el("summary", {}, plural(programs.length, "program")), list) : list;
}

function muted(text) {
  return el("span", {className: "muted"}, text);
}

// Longer lists of paths start closed.
const PATHS_OPEN_AT_MOST = 20;

// (a): the hops of all paths to one GPL library, each once with its symbols and the number of paths
// through it (the most travelled first), then the paths as chains
function gplUsedBy(rows) {
  const hops = [...groupBy(rows.flatMap((r) => r.hops), (h) => `${h.from}\n${h.to}\n${h.status}`).values()]
    .sort((a, b) => b.length - a.length);
  const hopTable = table(["from", "to", "link", "symbols", "paths"], hops.map((same) => {
    const h = same[0];
    return row({from: h.from, to: h.to, paths: String(same.length)}, moduleLink(h.from), moduleLink(h.to),
      statusTag(h.status), symbols(h.symbols), String(same.length));
  }));
  hopTable.classList.add("distinct-hops");
  const paths = rows.map((r) => el("article", {className: "finding-path", dataset: {module: r.module, gpl: r.gpl_module}},
    el("p", {className: "path-chain"}, moduleLink(r.module), " ", licenceTag(r.licence),
      ...r.hops.flatMap((h) => [" → ", el("span", {className: "hop", dataset: {from: h.from, to: h.to},
        title: `${h.from} → ${h.to} (${h.status})`}, el("code", {}, basename(h.to)), " ", statusTag(h.status))]),
      " ", muted(`(${plural(r.hops.length, "hop")})`)),
    el("div", {className: "held-by"}, muted("in the link maps of "), programList(r.programs))));
  const pathBox = el("details", {className: "path-list"},
    el("summary", {}, `${plural(rows.length, "path")} from ${plural(new Set(rows.map((r) => r.module)).size,
      "module")}`), ...paths);
  pathBox.open = rows.length <= PATHS_OPEN_AT_MOST;
  return el("div", {className: "paths"},
    el("h4", {}, `${plural(hops.length, "hop")}, each once with the symbols that bind across it`), hopTable, pathBox);
}

// (b)
function gplUses(rows) {
  return table(["GPL module", "its licence", "uses", "that module's licence", "link", "symbols"], rows.map((r) =>
    row({module: r.module, uses: r.uses}, moduleLink(r.module), licenceTag(r.licence, "gpl"), moduleLink(r.uses),
      licenceTag(r.uses_licence, r.uses_class), statusTag(r.status), symbols(r.symbols))));
}

// (c)
function declaredOnly(rows) {
  return table(["module", "its licence", "declares, does not use", "that library's licence", "still used by"],
    rows.map((r) => {
      const users = r.used_by.length
        ? el("ul", {className: "plain used-by"}, ...r.used_by.map((u) => el("li", {dataset: {module: u.module}},
          moduleLink(u.module), " ", statusTag(u.status), " ", symbols(u.symbols))))
        : muted("no module uses it");
      return row({module: r.module, library: r.library}, moduleLink(r.module), licenceTag(r.licence, r.class),
        moduleLink(r.library), licenceTag(r.library_licence, r.library_class), users);
    }));
}

// (d)
function lgplUsed(rows) {
  return table(["module", "its licence", "link", "symbols"], rows.map((u) => row({module: u.module},
    moduleLink(u.module), licenceTag(u.licence, u.class), statusTag(u.status), symbols(u.symbols))));
}

function kernelProvider(path) {
  return path === "vmlinux" ? el("span", {className: "kernel-target"}, el("code", {}, path), " (the kernel)")
    : moduleLink(path);
}

// (e), one row per module and provider, exactly the GPL-only symbols it binds there
function kernelGplOnly(rows) {
  const marked = (list) => new Map(list.map((s) => [s, GPL_ONLY]));
  return table(["kernel module", "its license=", "GPL-only exports of", "GPL-only symbols it uses"], rows.map((r) =>
    row({module: r.module, provider: r.provider}, moduleLink(r.module), licenceTag(r.licence, r.class),
      kernelProvider(r.provider), symbolDetails(r.symbols, {open: r.symbols.length <= 8, marked: marked(r.symbols)}))));
}

// (f), (g): one row per component found inside a module, with the evidence of its identification
function contained(rows) {
  return table(["module", "its licence", "component inside", "its licence", "evidence"], rows.map((r) =>
    row({module: r.module, component: r.component}, moduleLink(r.module), licenceTag(r.licence, r.class),
      el("span", {}, el("strong", {}, componentLabel(r)), " ", muted(`(${r.certainty})`)),
      licenceTag(r.component_licence), evidenceTable(r.evidence))));
}

// (f) and (g) alike: grouped by the component, each row with what matched and where in the file
function containedFinding(key, letter, title, help, unit, cls) {
  return {key, letter, title, help: `${help} Grouped by the component, each with what matched and where in the file.`,
    render: contained, unit, groupUnit: ["component", "components"], keyOf: (r) => componentLabel(r),
    head: (label, rows) => [el("strong", {}, label), " ", licenceTag(rows[0].component_licence, cls)]};
}

// the GPL side of a declared-only link: the declaring module or the library it declares
const gplSide = (r) => (r.class === "gpl" ? {path: r.module, licence: r.licence}
  : {path: r.library, licence: r.library_licence});

/**
 * The findings in their letters' order. group: how the rows are grouped (keyOf, head of a group),
 * unit: what a row is, groupUnit: what a group is.
 */
export const FINDINGS = [
  {key: "gpl_used_by", letter: "a", title: "Modules under an incompatible or unknown licence that use GPL code",
    help: "Directly or through up to three other modules, grouped by the GPL library reached. Every hop of a path " +
      "holds in the process of each program listed with it (interposition is never a hop); each hop is shown once " +
      "per group with the symbols that bind across it.", render: gplUsedBy, unit: ["path", "paths"],
    groupUnit: ["GPL library", "GPL libraries"], keyOf: (r) => r.gpl_module,
    head: (key, rows) => [moduleLink(key), " ", licenceTag(rows[0].gpl_licence, "gpl"), " ",
      muted(`reached by ${plural(new Set(rows.map((r) => r.module)).size, "module")}`)]},
  {key: "gpl_uses", letter: "b", title: "GPL programs and libraries that use code under an incompatible or unknown licence",
    help: "A GPL module whose references bind to a module under a GPL-incompatible or unknown licence (used or " +
      "hidden links), with the symbols that bind; grouped by the GPL module.", render: gplUses,
    unit: ["link", "links"], groupUnit: ["GPL module", "GPL modules"], keyOf: (r) => r.module,
    head: (key, rows) => [moduleLink(key), " ", licenceTag(rows[0].licence, "gpl")]},
  {key: "declared_only", letter: "c",
    title: "Declared-only links between GPL code and code under an incompatible or unknown licence",
    help: "DT_NEEDED names the library, so it is still loaded and its initialisation code runs, but no symbol of " +
      "the declaring module binds to it; grouped by the GPL side. \"Still used by\" lists the modules whose " +
      "references do bind to that library, and with which symbols.", render: declaredOnly,
    unit: ["link", "links"], groupUnit: ["GPL module", "GPL modules"], keyOf: (r) => gplSide(r).path,
    head: (key, rows) => [moduleLink(key), " ", licenceTag(gplSide(rows[0]).licence, "gpl")]},
  {key: "lgpl_used", letter: "d", title: "LGPL libraries used dynamically",
    help: "LGPL libraries, and GPL ones with a linking exception (the GCC runtime), each with the modules that bind " +
      "to it (used or hidden links). Open a library to see them.", render: lgplUsed,
    unit: ["use", "uses"], groupUnit: ["library", "libraries"], keyOf: (r) => r.library,
    head: (key, rows) => [moduleLink(key), " ", licenceTag(rows[0].library_licence, "lgpl")]},
  {key: "kernel_gpl_only", letter: "e", title: "Kernel modules the kernel treats as GPL-incompatible that use GPL-only exports",
    help: "Kernel modules whose MODULE_LICENSE is not in the kernel's list of GPL-compatible licences, bound by the " +
      "kernel's own rules to symbols exported with EXPORT_SYMBOL_GPL (by the kernel or by another module), " +
      "grouped by that provider. The kernel refuses such a module these symbols when it is loaded, and the " +
      "kernel's build refuses to build it.", render: kernelGplOnly,
    unit: ["use", "uses"], groupUnit: ["provider", "providers"], keyOf: (r) => r.provider,
    head: (key) => [kernelProvider(key)]},
  containedFinding("gpl_contained", "f", "GPL code inside modules under an incompatible or unknown licence",
    "Modules under a GPL-incompatible or unknown licence that carry a copy of a GPL component inside them, " +
      "compiled or linked in rather than loaded, found by the component's signature (docs/identify.md).",
    ["module", "modules"], "gpl"),
  containedFinding("lgpl_static", "g", "LGPL components linked statically",
    "Statically linked programs that carry an LGPL component (or GPL with a linking exception) inside " +
      "them, such as the C library: the LGPL asks that users can relink the program with a changed library.",
    ["program", "programs"], "lgpl"),
];
