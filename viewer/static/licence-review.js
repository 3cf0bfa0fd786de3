// The Licences page's coverage (docs/licences.md, "Coverage"): the statement of how many modules
// have no licence fact, and the "To review" list of them, each linked to its file page with what
// was found. The wording comes from the server (loader/report/licence_coverage.py), the same in
// every surface of the findings.
import {el} from "./common.js";
import {moduleLink} from "./licence-findings.js";

/** The coverage statement as a paragraph ("104 of 147 modules have no licence fact ..."). */
export function coverageLine(coverage) {
  return el("p", {className: "coverage", dataset: {toReview: String(coverage.to_review.length)}},
    `${coverage.statement}.`, coverage.to_review.length ? " " : "",
    coverage.to_review.length ? el("a", {href: "#finding-to-review"}, "To review") : "");
}

/** What a finding with no rows says: never a bare "none" while modules have no licence fact. */
export function noFinding(coverage, letter, kernel) {
  return el("p", {className: "none no-finding muted"}, `(${letter}) ${kernel ? coverage.no_finding_kernel : coverage.no_finding}.`);
}

/** The "To review" section: every module without a licence fact (or with one linkgraph does not classify). */
export function toReview(coverage) {
  const rows = coverage.to_review.map((m) => el("tr", {dataset: {path: m.path}},
    el("td", {}, moduleLink(m.path), m.static ? el("span", {className: "static-badge"}, "static") : ""),
    el("td", {}, m.kind),
    el("td", {className: "muted"}, m.licence ? `${m.licence} (not classified); ${m.licence_source}` : m.licence_source),
    el("td", {}, m.package || "—")));
  const list = rows.length ? el("table", {className: "data to-review-table"},
    el("thead", {}, el("tr", {}, ...["module", "kind", "what was found", "package"].map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows)) : el("p", {className: "muted"}, "Nothing to review.");
  return el("section", {className: "finding", id: "finding-to-review", dataset: {finding: "to-review"}},
    el("h2", {}, "To review"), coverageLine(coverage),
    el("p", {className: "help muted"}, "Nothing in the firmware's package data, the modules themselves or linkgraph's " +
      "knowledge base gives these modules a licence linkgraph can classify. Each may be GPL code, or code under an " +
      "incompatible licence that uses it: the findings above cannot speak for them. Give them a licence with " +
      "linkgraph scan --licences FILE, or judge them by hand."), list);
}
