// The Licences page's "Source release" part (docs/sources.md): the release checked, the modules per
// source status, then each finding of the check from GET /api/firmware/<id>/sources: GPL and LGPL
// modules without source, copyleft programs using modules with no source (with their symbols and the
// build-file lines that link them), version mismatches, and what the release lacks to be built.
// Everything shown comes from the firmware or the release: text only.
import {apiUrl, clear, el, errorBox, getJson, plural, statusTag, symbolDetails} from "./common.js";
import {moduleLink} from "./licence-findings.js";
import {licenceTag} from "./licence.js";
import {NOT_RUN, SOURCE_STATUSES, sourceTag} from "./source.js";

const box = document.getElementById("source-release");

function table(className, headers, rows) {
  return el("table", {className: `data ${className}`},
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows));
}

function part(key, title, help, rows, content) {
  return el("section", {className: "source-finding", id: `source-${key}`, dataset: {finding: key}},
    el("h3", {}, `${title} `, el("span", {className: "count"}, `(${rows.length})`)),
    el("p", {className: "help muted"}, help),
    rows.length ? content() : el("p", {className: "muted no-finding"}, "No finding."));
}

function pathList(paths) {
  return (paths || []).length ? el("ul", {className: "plain release-paths"}, ...paths.map((p) => el("li", {}, el("code", {}, p))))
    : el("span", {className: "muted"}, "none");
}

function missing(rows) {
  return table("source-missing", ["module", "licence", "source status", "in the release as"], rows.map((r) =>
    el("tr", {dataset: {module: r.module}}, el("td", {}, moduleLink(r.module)), el("td", {}, licenceTag(r.licence, r.class)),
      el("td", {}, sourceTag(r.status)), el("td", {}, pathList(r.release_paths)))));
}

/** One row per program and module used, with every build-file line of the program's folder that links it. */
function usesMissing(rows) {
  const groups = new Map();
  for (const r of rows) {
    const key = `${r.program}\n${r.uses}`;
    if (!groups.has(key)) groups.set(key, {...r, lines: []});
    if (r.file) groups.get(key).lines.push(r);
  }
  return table("source-uses-missing", ["program", "uses", "symbols", "build-file lines that link it"],
    [...groups.values()].map((g) => el("tr", {dataset: {program: g.program, uses: g.uses}},
      el("td", {}, moduleLink(g.program), " ", licenceTag(g.licence, "gpl"),
        g.program_folder ? el("div", {className: "muted"}, "built from ", el("code", {}, g.program_folder)) : null),
      el("td", {}, statusTag(g.status), " ", moduleLink(g.uses), " ", sourceTag(g.uses_source)),
      el("td", {}, symbolDetails(g.symbols || [], {open: (g.symbols || []).length <= 8})),
      el("td", {}, g.lines.length ? el("ul", {className: "plain build-lines"}, ...g.lines.map((l) =>
        el("li", {dataset: {file: l.file, line: String(l.line)}}, el("code", {className: "source-where"}, `${l.file}:${l.line}`),
          " ", el("code", {}, l.text || ""))))
        : el("span", {className: "muted"}, "no build-file line of its folder names it")))));
}

function mismatches(rows) {
  return table("source-version-mismatch", ["module", "identified as", "source folder", "release version"], rows.map((r) =>
    el("tr", {dataset: {module: r.module}}, el("td", {}, moduleLink(r.module)),
      el("td", {}, `${r.component || "?"} ${r.identified_version || ""}`), el("td", {}, el("code", {}, r.folder || "")),
      el("td", {}, `${r.package || ""} ${r.release_version || ""}`))));
}

function gaps(rows) {
  const ordered = [...rows.filter((g) => !g.present), ...rows.filter((g) => g.present)];
  return table("source-release-gaps", ["what", "in the release", "detail"], ordered.map((g) =>
    el("tr", {dataset: {kind: g.kind, present: String(Boolean(g.present))}, className: g.present ? null : "gap-missing"},
      el("td", {}, g.kind), el("td", {}, g.present ? "yes" : "missing"), el("td", {}, el("code", {}, g.detail || "")))));
}

function counts(data) {
  const rows = SOURCE_STATUSES.map((s) => el("tr", {dataset: {sourceStatus: s}}, el("td", {}, sourceTag(s)),
    el("td", {className: "num"}, String(data.statuses[s] || 0))));
  return table("source-counts", ["source status", "modules"], rows);
}

function render(data) {
  const heading = el("h2", {}, "Source release");
  if (!data.checked) {
    clear(box).append(heading, el("p", {className: "muted source-not-run"}, NOT_RUN));
    return;
  }
  const total = Object.values(data.statuses).reduce((a, b) => a + b, 0);
  clear(box).append(heading,
    el("p", {className: "source-release-name"}, "Checked against the release ", el("strong", {}, data.release || "(no name)"),
      `: ${plural(total, "module")} by source status.`),
    counts(data),
    part("missing", "GPL and LGPL modules without source", "Copyleft modules whose source the release does not give: " +
      "prebuilt (the release holds the binary only) or absent (nothing of it).", data.missing, () => missing(data.missing)),
    part("uses-missing", "Copyleft programs using modules with no source", "GPL and LGPL programs whose own process " +
      "uses (a used or hidden link) a module the release gives no source for, with the symbols and the lines of the " +
      "program's build files that link it.", data.uses_missing, () => usesMissing(data.uses_missing)),
    part("version-mismatch", "Version mismatches", "Modules identified at one version and built from a source folder " +
      "of the release at another.", data.version_mismatches, () => mismatches(data.version_mismatches)),
    part("release-gaps", "What the release lacks to be built", "Build instructions, build files, the kernel's " +
      "configuration, the toolchain, and what the vendor's own list says ships without source; what is missing first.",
    data.release_gaps.filter((g) => !g.present), () => gaps(data.release_gaps)));
}

async function main() {
  if (!box) return;
  box.dataset.state = "loading";
  try {
    render(await getJson(apiUrl("sources")));
  } catch (err) {
    clear(box).appendChild(errorBox(`Cannot load the source-release check: ${err.message}`));
    box.dataset.state = "error";
    return;
  }
  box.dataset.state = "ready";
}

main();
