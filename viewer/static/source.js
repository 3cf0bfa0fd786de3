// The source-release check in the viewer (docs/sources.md): a module's source status with its
// evidence (the Overview), the statuses' colours and legend (the whole view), and the key of the mark
// a module without source gets in the per-program graph. Paths, versions and evidence come from the
// release or the firmware: text only.
import {el} from "./common.js";
import {licencesHref} from "./licence.js";
import {VOCABULARY} from "./vocabulary.js";

const SOURCES = VOCABULARY.sources;
export const SOURCE_STATUSES = SOURCES.statuses.map((s) => s.name);
export const SOURCE_STYLE = Object.fromEntries(SOURCES.statuses.map((s) => [s.name, s]));
export const NOT_CHECKED = SOURCES.notChecked;
export const WITHOUT_SOURCE = new Set(SOURCES.withoutSource);
export const NOT_RUN = "No source release was checked for this firmware (linkgraph scan --source RELEASE, or " +
  "linkgraph source-check RELEASE).";

const TIER_HELP = {
  bytes: "the same bytes as a file of the release",
  strings: "its strings found in the string literals of one source folder",
  functions: "its exported functions defined in one source folder",
  name: "a binary of its file name in the release",
};
const EVIDENCE_HELP = {
  strings: "a string of the module found as a string literal of the release's sources",
  functions: "an exported function of the module defined in the release's sources",
};

document.head.appendChild(el("link", {rel: "stylesheet", href: new URL("./source.css", import.meta.url).pathname}));

/** A source status as a mark in its colour, with its explanation. */
export function sourceTag(status) {
  const look = SOURCE_STYLE[status] || NOT_CHECKED;
  const tag = el("span", {className: "source-tag", title: look.help, dataset: {sourceStatus: status || ""}},
    look.label);
  tag.style.borderColor = look.color;
  tag.style.color = look.color;
  return tag;
}

/** The colour of a whole-view module coloured by source status (the kernel and missing libraries have none). */
export function sourceColour(status) {
  return (SOURCE_STYLE[status] || NOT_CHECKED).color;
}

function where(e) {
  if (!e.file) return "";
  return e.line ? `${e.file}:${e.line}` : e.file;
}

/** The evidence that tied the module to the release: kind, what matched, where (file:line). */
export function sourceEvidence(evidence) {
  return el("table", {className: "data source-evidence"},
    el("thead", {}, el("tr", {}, el("th", {}, "evidence"), el("th", {}, "matched"), el("th", {}, "in the release at"))),
    el("tbody", {}, ...(evidence || []).map((e) => el("tr", {dataset: {kind: e.kind || ""}},
      el("td", {title: EVIDENCE_HELP[e.kind] || null}, e.kind || ""), el("td", {}, el("code", {}, e.text || "")),
      el("td", {}, el("code", {className: "source-where"}, where(e)))))));
}

/** The Overview's section: the module's source status and its evidence, or one line when no release was checked. */
export function sourceSection(source) {
  if (!source) {  // one line, no heading: most firmware is never checked
    return el("section", {className: "source-box", dataset: {section: "source"}},
      el("p", {className: "muted source-not-run"}, NOT_RUN));
  }
  const box = el("section", {className: "source-box", dataset: {section: "source"}}, el("h2", {}, "Source release"));
  const look = SOURCE_STYLE[source.status] || NOT_CHECKED;
  const dl = el("dl", {className: "facts source-facts"});
  const row = (term, key, ...value) => dl.append(el("dt", {}, term), el("dd", {dataset: {fact: key}}, ...value));
  row("Status", "source-status", sourceTag(source.status), el("div", {className: "muted fact-help"}, look.help));
  if (source.tier) row("Found by", "source-tier", source.tier, el("div", {className: "muted fact-help"}, TIER_HELP[source.tier] || ""));
  if (source.folder) row("Source folder", "source-folder", el("code", {}, source.folder));
  if (source.package) {
    row("Package", "source-package", el("strong", {}, source.version ? `${source.package} ${source.version}` : source.package));
  }
  if (source.version) row("Version", "source-version", el("code", {}, source.version));
  if ((source.release_paths || []).length) {
    row("Same bytes or name in the release", "source-release-paths", el("ul", {className: "plain release-paths"},
      ...source.release_paths.map((p) => el("li", {}, el("code", {}, p)))));
  }
  box.append(dl);
  if ((source.evidence || []).length) {
    box.append(el("p", {className: "muted evidence-caption"}, source.status === "source"
      ? "What ties it to its source folder, each match with the release file and line:"
      : "Matches in the release's sources, too few or too scattered to name a source folder of it:"),
    sourceEvidence(source.evidence));
  }
  if (WITHOUT_SOURCE.has(source.status)) {
    box.append(el("p", {className: "source-lacking"}, "The release gives no source for this module. ",
      el("a", {href: `${licencesHref()}#source-release`,
        className: "source-findings-link"}, "The source-release findings")));
  }
  return box;
}

/** The Graph tab's key entry for the mark of a module without source; null when no node has it. */
export function sourceKey(nodes) {
  if (!(nodes || []).some((n) => !n.missing && WITHOUT_SOURCE.has(n.source_status))) return null;
  return el("div", {className: "source-key"}, el("span", {className: "legend-item", dataset: {key: "no-source"}},
    el("span", {className: "key-swatch no-source-swatch"}), el("span", {}, el("em", {}, SOURCES.mark), ": ",
      SOURCES.markLegend)));
}

/** The whole view's legend when modules are coloured by source status: each status present, with its
 * colour and count (the kernel and missing libraries are coloured by kind), and "not checked" modules. */
export function sourceLegend(nodes, dot) {
  const counts = new Map();
  for (const n of nodes) {
    if (n.missing || n.kind === "kernel") continue;
    const key = SOURCE_STYLE[n.source] ? n.source : "";
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const items = SOURCE_STATUSES.filter((s) => counts.has(s)).map((s) => el("span", {className: "legend-item",
    title: SOURCE_STYLE[s].help, dataset: {sourceStatus: s}}, dot(SOURCE_STYLE[s].color),
  `${SOURCE_STYLE[s].label} (${counts.get(s)})`));
  if (counts.has("")) {
    items.push(el("span", {className: "legend-item", title: NOT_CHECKED.help, dataset: {sourceStatus: ""}},
      dot(NOT_CHECKED.color), `${NOT_CHECKED.label} (${counts.get("")})`));
  }
  if (!items.length || (items.length === 1 && counts.has(""))) items.push(el("span", {className: "legend-item muted"}, NOT_RUN));
  return items;
}
