// The identification stage's answers in the viewer (docs/identify.md): what a file is (component,
// version, certainty, evidence with offsets), which components it carries inside, and the
// firmware's counts. Everything here comes from the firmware (strings matched in its files): text only.
import {el, plural} from "./common.js";
import {CERTAINTY_HELP, licenceTag} from "./licence.js";

const EVIDENCE_KINDS = {
  string: "a string of the component in the file",
  symbols: "exported symbols of the component's API",
  name: "the file's name is one the component installs",
  statement: "a licence statement the file makes about itself",
  root: "the version of the root's own copy of the component",
};

function muted(text) {
  return el("span", {className: "muted"}, text);
}

function offsetText(offset) {
  return offset === null || offset === undefined ? "" : `0x${Number(offset).toString(16)}`;
}

/** The evidence as a table: kind, what matched, and where in the file (hexadecimal offset). */
export function evidenceTable(evidence) {
  return el("table", {className: "data evidence"},
    el("thead", {}, el("tr", {}, el("th", {}, "evidence"), el("th", {}, "matched"), el("th", {}, "at offset"))),
    el("tbody", {}, ...(evidence || []).map((e) => el("tr", {dataset: {kind: e.kind}},
      el("td", {title: EVIDENCE_KINDS[e.kind] || null}, e.kind), el("td", {}, el("code", {}, e.text)),
      el("td", {className: "num"}, offsetText(e.offset))))));
}

/** "busybox 1.14.1" */
export function componentLabel(c) {
  return c.version ? `${c.component} ${c.version}` : c.component;
}

function certaintyTag(certainty) {
  return el("span", {className: "certainty", title: CERTAINTY_HELP[certainty] || null,
    dataset: {certainty: certainty || ""}}, certainty || "none");
}

/** One module's identification (the file API's ``identification``): its own, then what it contains. */
export function identitySection(found) {
  const own = found && found.identity;
  const inside = (found && found.contains) || [];
  const box = el("section", {className: "identity-box", dataset: {section: "identity"}}, el("h2", {}, "Identification"));
  if (own) {
    const dl = el("dl", {className: "facts identity-facts"});
    const row = (term, key, ...value) => dl.append(el("dt", {}, term), el("dd", {dataset: {fact: key}}, ...value));
    row("Component", "component", el("strong", {}, componentLabel(own)));
    row("Certainty", "identity-certainty", certaintyTag(own.certainty),
      el("div", {className: "muted fact-help"}, CERTAINTY_HELP[own.certainty] || ""));
    row("Its licence", "identity-licence", licenceTag(own.licence, own.licence_class));
    if (own.purl) row("Package URL", "purl", el("code", {}, own.purl));
    if (own.cpe) row("CPE", "cpe", el("code", {}, own.cpe));
    box.append(dl, evidenceTable(own.evidence));
  } else {
    box.append(el("p", {className: "muted"}, "No signature of a known component matched this file."));
  }
  if (inside.length) box.append(el("h3", {}, "Components inside this file"), containsTable(inside));
  return box;
}

export const CONTAINED_HEADERS = ["component", "licence", "certainty", "evidence"];

/** The cells of one component found inside a module: what it is, its licence, certainty and evidence. */
export function containedCells(c) {
  return [[el("strong", {}, componentLabel(c)), c.purl ? el("div", {}, el("code", {}, c.purl)) : null],
    licenceTag(c.licence, c.licence_class), certaintyTag(c.certainty), evidenceTable(c.evidence)];
}

/** The components a module carries inside it, each with its licence, certainty and evidence. */
export function containsTable(rows) {
  return el("table", {className: "data contains"},
    el("thead", {}, el("tr", {}, ...CONTAINED_HEADERS.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows.map((c) => el("tr", {dataset: {component: c.component}},
      ...containedCells(c).map((cell) => el("td", {}, cell))))));
}

/**
 * The firmware's identification overview (GET /api/firmware/<id>/components): modules per certainty
 * of their own identification, and every component found inside a module, with those modules.
 */
export function componentsOverview(data, fileLink) {
  const counts = el("table", {className: "data identity-counts"},
    el("thead", {}, el("tr", {}, el("th", {}, "identified as a component"), el("th", {className: "num"}, "modules"))),
    el("tbody", {}, ...data.certainties.map((c) => el("tr", {dataset: {certainty: c.certainty || "none"}},
      el("td", {title: CERTAINTY_HELP[c.certainty] || null}, c.certainty || "not identified"),
      el("td", {className: "num"}, String(c.modules))))));
  const inside = data.contained.length
    ? el("ul", {className: "plain contained-components"}, ...data.contained.map((c) =>
      el("li", {dataset: {component: c.component}}, el("strong", {}, componentLabel(c)), " ",
        licenceTag(c.licence, c.licence_class), " ", muted(`inside ${plural(c.modules.length, "module")}: `),
        ...c.modules.flatMap((p, i) => (i ? [", ", fileLink(p)] : [fileLink(p)])))))
    : el("p", {className: "muted"}, "No component was found inside another module.");
  return el("section", {className: "identity-overview", dataset: {section: "components"}},
    el("h2", {}, "Identified components"), counts, el("h3", {}, "Components found inside modules"), inside);
}
