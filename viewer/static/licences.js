// The Licences page: the licence findings (a)-(e) of docs/licences.md from GET /api/firmware/<id>/licences,
// in the order of the compliance report: (b), (a), (c), (d), (e) kernel modules using GPL-only exports,
// then the summary. Every module name links to its file page; everything from the firmware is text.
import {apiUrl, clear, el, errorBox, fileHref, getJson, plural, statusTag, symbolDetails} from "./common.js";
import {GPL_ONLY} from "./kernel.js";
import {CERTAINTY_HELP, LICENCE_CLASSES, LICENCE_STYLE, classTag, licenceTag} from "./licence.js";

const box = document.getElementById("licences");

const FINDINGS = [
  {key: "gpl_uses", letter: "b", title: "GPL programs and libraries that use code under an incompatible or unknown licence",
    help: "A GPL module whose references bind to a module under a GPL-incompatible or unknown licence (used or " +
      "hidden links), with the symbols that bind.", render: gplUses},
  {key: "gpl_used_by", letter: "a", title: "Modules under an incompatible or unknown licence that use GPL code",
    help: "Directly or through up to three other modules. Each path holds in the link map of at least one program " +
      "(listed with it); every hop shows the symbols that bind across it.", render: gplUsedBy},
  {key: "declared_only", letter: "c",
    title: "Declared-only links between GPL code and code under an incompatible or unknown licence",
    help: "DT_NEEDED names the library, but nothing of the module binds to it. \"Still used by\" lists the modules " +
      "whose references do bind to that library, and with which symbols.", render: declaredOnly},
  {key: "lgpl_used", letter: "d", title: "LGPL libraries used dynamically",
    help: "LGPL libraries, and GPL ones with a linking exception (the GCC runtime), each with the modules that bind " +
      "to it (used or hidden links). Open a library to see them.", render: lgplUsed,
    count: (rows) => `${plural(rows.length, "use")} of ${plural(new Set(rows.map((r) => r.library)).size, "library",
      "libraries")}`},
  {key: "kernel_gpl_only", letter: "e", title: "Kernel modules the kernel treats as GPL-incompatible that use GPL-only exports",
    help: "Kernel modules whose MODULE_LICENSE is not in the kernel's list of GPL-compatible licences, bound by the " +
      "kernel's own rules to symbols exported with EXPORT_SYMBOL_GPL (by the kernel or by another module). The " +
      "kernel refuses such a module these symbols when it is loaded, and the kernel's build refuses to build it.",
    render: kernelGplOnly},
];

function moduleLink(path) {
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

// (b)
function gplUses(rows) {
  return table(["GPL module", "its licence", "uses", "that module's licence", "link", "symbols"], rows.map((r) =>
    row({module: r.module, uses: r.uses}, moduleLink(r.module), licenceTag(r.licence, "gpl"), moduleLink(r.uses),
      licenceTag(r.uses_licence, r.uses_class), statusTag(r.status), symbols(r.symbols))));
}

// (a)
function gplUsedBy(rows) {
  return el("div", {className: "paths"}, ...rows.map((r) => el("article", {className: "finding-path",
    dataset: {module: r.module, gpl: r.gpl_module}},
  el("p", {className: "path-head"}, moduleLink(r.module), " ", licenceTag(r.licence), " uses GPL code of ",
    moduleLink(r.gpl_module), " ", licenceTag(r.gpl_licence, "gpl"), ` (${plural(r.hops.length, "hop")})`),
  el("ol", {className: "hops"}, ...r.hops.map((h) => el("li", {dataset: {from: h.from, to: h.to}},
    moduleLink(h.from), " → ", moduleLink(h.to), " ", statusTag(h.status), " ", symbols(h.symbols)))),
  el("div", {className: "held-by"}, el("span", {className: "muted"}, "in the link maps of "), programList(r.programs)))));
}

// (c)
function declaredOnly(rows) {
  return table(["module", "its licence", "declares, does not use", "that library's licence", "still used by"],
    rows.map((r) => {
      const users = r.used_by.length
        ? el("ul", {className: "plain used-by"}, ...r.used_by.map((u) => el("li", {dataset: {module: u.module}},
          moduleLink(u.module), " ", statusTag(u.status), " ", symbols(u.symbols))))
        : el("span", {className: "muted"}, "no module uses it");
      return row({module: r.module, library: r.library}, moduleLink(r.module), licenceTag(r.licence, r.class),
        moduleLink(r.library), licenceTag(r.library_licence, r.library_class), users);
    }));
}

// (d), grouped per library
function lgplUsed(rows) {
  const groups = new Map();
  for (const r of rows) {
    if (!groups.has(r.library)) groups.set(r.library, []);
    groups.get(r.library).push(r);
  }
  const all = [];
  const toggle = (open) => () => all.forEach((d) => { d.open = open; });
  const out = el("div", {className: "lgpl-libraries"}, el("p", {className: "toggles"},
    el("button", {type: "button", className: "small", on: {click: toggle(true)}}, "Open all"), " ",
    el("button", {type: "button", className: "small", on: {click: toggle(false)}}, "Close all")));
  for (const [library, users] of groups) {
    const details = el("details", {className: "lgpl-library", dataset: {library}},
      el("summary", {}, moduleLink(library), " ", licenceTag(users[0].library_licence, "lgpl"), " ",
        el("span", {className: "muted"}, `used by ${plural(users.length, "module")}`)),
      table(["module", "its licence", "link", "symbols"], users.map((u) => row({module: u.module},
        moduleLink(u.module), licenceTag(u.licence, u.class), statusTag(u.status), symbols(u.symbols)))));
    all.push(details);
    out.appendChild(details);
  }
  return out;
}

// (e), one row per module and provider, exactly the GPL-only symbols it binds there
function kernelGplOnly(rows) {
  const provider = (r) => (r.provider === "vmlinux"
    ? el("span", {className: "kernel-target"}, el("code", {}, r.provider), " (the kernel)") : moduleLink(r.provider));
  const marked = (list) => new Map(list.map((s) => [s, GPL_ONLY]));
  return table(["kernel module", "its license=", "GPL-only exports of", "GPL-only symbols it uses"], rows.map((r) =>
    row({module: r.module, provider: r.provider}, moduleLink(r.module), licenceTag(r.licence, r.class), provider(r),
      symbolDetails(r.symbols, {open: r.symbols.length <= 8, marked: marked(r.symbols)}))));
}

// the summary
function summary(data) {
  const certainties = ["declared", "inferred", null];
  const counts = new Map(LICENCE_CLASSES.map((c) => [c, new Map()]));
  for (const m of data.summary.modules) {
    const cls = counts.has(m.class) ? m.class : "unknown";
    const per = counts.get(cls);
    per.set(m.certainty, (per.get(m.certainty) || 0) + m.modules);
  }
  const rows = LICENCE_CLASSES.map((cls) => {
    const per = counts.get(cls);
    const total = [...per.values()].reduce((a, b) => a + b, 0);
    return el("tr", {dataset: {licenceClass: cls}}, el("td", {}, classTag(cls), " ",
      el("span", {className: "muted"}, LICENCE_STYLE[cls].help)),
    ...certainties.map((c) => el("td", {className: "num"}, String(per.get(c) || 0))),
    el("td", {className: "num total"}, String(total)));
  });
  const heads = ["licence class", "declared", "inferred", "no licence fact", "modules"].map((h, i) =>
    el("th", {className: i ? "num" : null, title: CERTAINTY_HELP[h] || null}, h));
  const findings = el("ul", {className: "plain finding-counts"}, ...FINDINGS.map((f) =>
    el("li", {dataset: {finding: f.key}}, `(${f.letter}) `, el("a", {href: `#finding-${f.key}`}, f.title), ": ",
      String(data.summary.findings[f.key] ?? data[f.key].length))));
  return el("section", {className: "finding", id: "finding-summary", dataset: {finding: "summary"}},
    el("h2", {}, "Summary"),
    el("p", {className: "help muted"}, "Modules per licence class, and how certain the licence facts are: declared " +
      "(stated by the firmware or your overrides) or inferred (recognised by linkgraph)."),
    el("table", {className: "data summary-table"}, el("thead", {}, el("tr", {}, ...heads)), el("tbody", {}, ...rows)),
    findings);
}

function countText(finding, rows) {
  return `(${finding.count ? finding.count(rows) : rows.length})`;
}

function render(data) {
  clear(box);
  box.appendChild(el("nav", {className: "finding-index", "aria-label": "findings"}, el("ul", {className: "plain"},
    ...FINDINGS.map((f) => el("li", {}, el("a", {href: `#finding-${f.key}`}, `(${f.letter}) ${f.title}`), " ",
      el("span", {className: "count"}, countText(f, data[f.key])))),
    el("li", {}, el("a", {href: "#finding-summary"}, "Summary")))));
  for (const f of FINDINGS) {
    const rows = data[f.key];
    const section = el("section", {className: "finding", id: `finding-${f.key}`, dataset: {finding: f.key}},
      el("h2", {}, `(${f.letter}) ${f.title} `, el("span", {className: "count"}, countText(f, rows))),
      el("p", {className: "help muted"}, f.help));
    section.appendChild(rows.length ? f.render(rows) : el("p", {className: "none muted"}, "none"));
    box.appendChild(section);
  }
  box.appendChild(summary(data));
}

async function main() {
  try {
    render(await getJson(apiUrl("licences")));
  } catch (err) {
    clear(box).appendChild(errorBox(`Cannot load the licence findings: ${err.message}`));
    document.body.dataset.ready = "error";
    return;
  }
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  document.body.dataset.ready = "1";
}

main();
