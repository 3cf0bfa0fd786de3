// The Licences page: the licence findings (a)-(g) of docs/licences.md from GET /api/firmware/<id>/licences,
// in the order of their letters, then the summary (no letter). Each finding is grouped by library
// (finding-groups.js), one text filter narrows all of them, and the page says how far loading has got.
import {apiUrl, clear, el, errorBox, getJson, plural} from "./common.js";
import {FindingGroups} from "./finding-groups.js";
import {CERTAINTY_HELP, LICENCE_CLASSES, LICENCE_STYLE, classTag} from "./licence.js";
import {FINDINGS} from "./licence-findings.js";
import {coverageLine, noFinding, toReview} from "./licence-review.js";

const box = document.getElementById("licences");
const filterBox = document.getElementById("licences-filter");
const shownLine = document.getElementById("licences-shown");
// a narrow screen opens on the findings, the explanation a tap away
if (matchMedia("(max-width: 699px)").matches) document.getElementById("licences-explain").open = false;
const ORDINARY = "lgpl_used";  // (d): no finding in itself

/** "Loading…" with the time it has taken so far, until stop() is called. */
function progress(message) {
  const bar = el("progress", {className: "loading-progress", "aria-label": "loading"});
  const text = el("span", {className: "loading-text"}, message);
  const line = el("p", {className: "loading muted", role: "status"}, bar, " ", text);
  clear(box).appendChild(line);
  box.dataset.state = "loading";
  const started = performance.now();
  let phase = message;
  const tick = () => {
    text.textContent = `${phase} ${((performance.now() - started) / 1000).toFixed(1)} s`;
  };
  const timer = setInterval(tick, 100);
  return {
    phase(next) {
      phase = next;
      tick();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

function summary(data) {
  const certainties = ["declared", "identified", "inferred", null];
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
  const heads = ["licence class", "declared", "identified", "inferred", "no licence fact", "modules"].map((h, i) =>
    el("th", {className: i ? "num" : null, title: CERTAINTY_HELP[h] || null}, h));
  const findings = el("ul", {className: "plain finding-counts"}, ...FINDINGS.map((f) =>
    el("li", {dataset: {finding: f.key}}, `(${f.letter}) `, el("a", {href: `#finding-${f.key}`}, f.title), ": ",
      String(data.summary.findings[f.key] ?? data[f.key].length))));
  return el("section", {className: "finding", id: "finding-summary", dataset: {finding: "summary"}},
    el("h2", {}, "Summary"),
    el("p", {className: "help muted"}, "Modules per licence class, and how certain the licence facts are: declared " +
      "(stated by the firmware, the file itself or your overrides), identified (found by a signature in the file) " +
      "or inferred (recognised by linkgraph by its name)."),
    el("table", {className: "data summary-table"}, el("thead", {}, el("tr", {}, ...heads)), el("tbody", {}, ...rows)),
    coverageLine(data.coverage), findings);
}

function countText(f, kept, rows, groups) {
  if (!rows.length) return "(0)";
  const all = `${plural(rows.length, ...f.unit)} in ${plural(groups, ...f.groupUnit)}`;
  return kept === rows.length ? `(${all})` : `(${kept} of ${all})`;
}

function render(data) {
  const sections = [];
  const index = el("ul", {className: "plain"});
  const body = [];
  for (const f of FINDINGS) {
    const rows = data[f.key];
    const count = el("span", {className: "count"});
    const indexCount = el("span", {className: "count"});
    const section = el("section", {className: "finding", id: `finding-${f.key}`, dataset: {finding: f.key}},
      el("h2", {}, `(${f.letter}) ${f.title} `, count), el("p", {className: "help muted"}, f.help));
    const groups = rows.length ? new FindingGroups(rows, {kind: f.key, keyOf: f.keyOf, head: f.head, body: f.render,
      unit: f.unit}) : null;
    section.appendChild(groups ? groups.node : noFinding(data.coverage, f.letter, f.key === "kernel_gpl_only"));
    sections.push({f, rows, groups, section, count, indexCount});
    index.appendChild(el("li", {}, el("a", {href: `#finding-${f.key}`}, `(${f.letter}) ${f.title}`), " ", indexCount));
    body.push(section);
  }
  index.appendChild(el("li", {}, el("a", {href: "#finding-to-review"}, "To review"), " ",
    el("span", {className: "count"}, `(${data.coverage.to_review.length})`)));
  index.appendChild(el("li", {}, el("a", {href: "#finding-summary"}, "Summary")));
  clear(box).append(coverageLine(data.coverage), el("nav", {className: "finding-index", "aria-label": "findings"}, index),
    ...body, toReview(data.coverage), summary(data));
  const apply = (query) => {
    // (d) is ordinary dynamic use of an LGPL library, counted apart (the PDF puts it in an appendix)
    const counts = {finding: [0, 0], ordinary: [0, 0]};
    for (const s of sections) {
      const n = s.groups ? s.groups.filter(query) : 0;
      const text = countText(s.f, n, s.rows, s.groups ? s.groups.groups.length : 0);
      s.count.textContent = text;
      s.indexCount.textContent = text;
      const sum = counts[s.f.key === ORDINARY ? "ordinary" : "finding"];
      sum[0] += n;
      sum[1] += s.rows.length;
    }
    const said = (words, [kept, total]) => (query ? `${kept} of ${plural(total, ...words)}` : plural(total, ...words));
    shownLine.textContent = said(["finding"], counts.finding) + (query ? " match" : "") + (counts.ordinary[1]
      ? `; besides, ${said(["ordinary dynamic use", "ordinary dynamic uses"], counts.ordinary)} of LGPL libraries (d)` : "");
    box.dataset.filter = query;  // what is applied (tests wait on it)
  };
  let timer = null;
  filterBox.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => apply(filterBox.value.trim().toLowerCase()), 120);
  });
  filterBox.disabled = false;
  apply(filterBox.value.trim().toLowerCase());
  box.dataset.state = "ready";
}

async function main() {
  const loading = progress("Asking the store for the findings (a)–(e)…");
  let data;
  try {
    data = await getJson(apiUrl("licences"));
    const n = FINDINGS.reduce((sum, f) => sum + data[f.key].length, 0);
    loading.phase(`Drawing ${plural(n, "entry", "entries")}…`);
    await new Promise((resolve) => setTimeout(resolve, 0));  // let the phase show
    loading.stop();
    render(data);
  } catch (err) {
    loading.stop();
    clear(box).appendChild(errorBox(`Cannot load the licence findings: ${err.message}`));
    box.dataset.state = "error";
    document.body.dataset.ready = "error";
    return;
  }
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  document.body.dataset.ready = "1";
}

main();
