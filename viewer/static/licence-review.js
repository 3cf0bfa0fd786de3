// The Licences page's coverage (docs/licences.md, "Coverage"): the statement of how many modules
// have no licence fact, and the "To review" list of them, each linked to its file page with what
// was found: first the vendor code (whose bytes show a vendor SDK or the device maker: ask the
// vendor), then the modules of unknown origin (investigate). The wording comes from the server
// (loader/report/licence_coverage.py, vendor_code.py), the same in every surface of the findings.
import {el} from "./common.js";
import {moduleLink} from "./licence-findings.js";

const SHOWN_EVIDENCE = 2;  // per module in the list; the file's Overview shows all of it

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

function reviewRow(m, ...extra) {
  return el("tr", {dataset: {path: m.path}},
    el("td", {}, moduleLink(m.path), m.static ? el("span", {className: "static-badge"}, "static") : ""),
    el("td", {}, m.kind),
    el("td", {className: "muted"}, m.licence ? `${m.licence} (not classified); ${m.licence_source}` : m.licence_source),
    el("td", {}, m.package || "—"), ...extra);
}

function reviewTable(rows, headers) {
  return el("table", {className: "data to-review-table"},
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows));
}

/** What shows a module's origin: its first pieces of evidence, each with its offset in the file. */
function originEvidence(evidence) {
  const shown = evidence.slice(0, SHOWN_EVIDENCE).map((e) => el("div", {dataset: {kind: e.kind}},
    el("code", {}, e.text), e.offset === undefined ? "" : el("span", {className: "muted"}, ` at 0x${e.offset.toString(16)}`)));
  const more = evidence.length - shown.length;
  return el("td", {className: "origin-evidence"}, ...shown, more > 0 ? el("div", {className: "muted"}, `… ${more} more`) : "");
}

/** The "To review" section: every module without a licence fact (or with one linkgraph does not
 * classify), the vendor code first (by origin), then those of unknown origin. */
export function toReview(coverage) {
  const vendor = coverage.to_review.filter((m) => m.origin)
    .sort((a, b) => a.origin.name.localeCompare(b.origin.name) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const unknown = coverage.to_review.filter((m) => !m.origin);
  const parts = [];
  if (vendor.length) {
    parts.push(el("h3", {dataset: {origin: "vendor"}}, `Vendor code: ask the vendor (${vendor.length})`),
      reviewTable(vendor.map((m) => reviewRow(m, el("td", {className: "origin"}, m.origin.name), originEvidence(m.origin.evidence))),
        ["module", "kind", "what was found", "package", "origin", "what shows it"]));
  }
  if (unknown.length) {
    if (vendor.length) parts.push(el("h3", {dataset: {origin: "unknown"}}, `Unknown origin: investigate (${unknown.length})`));
    parts.push(reviewTable(unknown.map((m) => reviewRow(m)), ["module", "kind", "what was found", "package"]));
  }
  return el("section", {className: "finding", id: "finding-to-review", dataset: {finding: "to-review"}},
    el("h2", {}, "To review"), coverageLine(coverage),
    coverage.to_review.length ? el("p", {className: "origin-split"}, `${coverage.origin_statement}.`) : "",
    el("p", {className: "help muted"}, "Nothing in the firmware's package data, the modules themselves or linkgraph's " +
      "knowledge base gives these modules a licence linkgraph can classify. Each may be GPL code, or code under an " +
      "incompatible licence that uses it: the findings above cannot speak for them. Give them a licence with " +
      "linkgraph scan --licences FILE, or judge them by hand. Vendor code is a module whose bytes show a vendor SDK " +
      "or the device maker (a copyright line, the SDK's build paths, its API): its licence is the vendor's to state."),
    ...(parts.length ? parts : [el("p", {className: "muted"}, "Nothing to review.")]));
}
