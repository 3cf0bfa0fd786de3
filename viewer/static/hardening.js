// A module's hardening facts (docs/graph.md, "Hardening"): the Overview's table and the tree's filters.
import {el} from "./common.js";

// The tree's hardening filters: the value of the status select is "hardening:KEY"; test(h, kind) is given a
// module's facts (never null) and its kind (a symlink: its target's).
export const HARDENING_FILTERS = [
  {key: "no-nx", label: "executable stack (no NX)", test: (h) => !h.nx},
  {key: "relro-not-full", label: "RELRO not full (partial or none)", test: (h) => h.relro !== "full"},
  {key: "relro-none", label: "no RELRO", test: (h) => h.relro === "none"},
  {key: "no-stack-protector", label: "no stack protector", test: (h) => !h.stack_protector},
  {key: "no-fortify", label: "no FORTIFY functions", test: (h) => !h.fortify},
  {key: "textrel", label: "with TEXTREL", test: (h) => h.textrel},
  {key: "no-pie", label: "programs that are not PIE", test: (h, kind) => kind === "executable" && !h.pie},
  {key: "search-path", label: "with RPATH or RUNPATH", test: (h) => Boolean(h.rpath || h.runpath)},
  {key: "risky-path", label: "with a risky RPATH/RUNPATH entry", test: (h) => h.risky_paths.length > 0},
];
export const HARDENING_PREFIX = "hardening:";

/** The hardening choices of the tree's filter, as an optgroup of its select. */
export function hardeningOptions() {
  return el("optgroup", {label: "hardening"},
    ...HARDENING_FILTERS.map((f) => el("option", {value: HARDENING_PREFIX + f.key}, f.label)));
}

/** Whether a module's facts (null: a kernel module, a missing soname) pass the filter "hardening:KEY". */
export function hardeningMatch(value, facts, kind) {
  const filter = HARDENING_FILTERS.find((f) => HARDENING_PREFIX + f.key === value);
  return Boolean(filter && facts && filter.test(facts, kind));
}

/** The tree's badges for the two worst facts: an executable stack and text relocations. */
export function hardeningBadges(facts) {
  if (!facts) return [];
  const badge = (text, title) => el("span", {className: "hardening-badge", title}, text);
  return [
    facts.nx ? null : badge("exec stack", "no NX: the stack is executable"),
    facts.textrel ? badge("TEXTREL", "text relocations: the loader makes the code writable while it relocates") : null,
  ].filter((b) => b);
}

const yesNo = (flag, yes, no) => (flag ? `yes: ${yes}` : `no: ${no}`);
const RELRO = {
  full: "full: the relocated data and the GOT are read-only after start-up (immediate binding)",
  partial: "partial: the relocated data is read-only, the PLT's GOT slots stay writable (lazy binding)",
  none: "none: no PT_GNU_RELRO, the relocated data stays writable",
};

function searchPath(value) {
  return value ? el("code", {}, value) : "none";
}

/** The Overview's hardening section for the file API's ``hardening`` (null: no facts). */
export function hardeningSection(h, kind) {
  const box = el("section", {className: "hardening-box", dataset: {section: "hardening"}},
    el("h2", {id: "hardening-title"}, "Hardening"));
  if (!h) {
    box.append(el("p", {className: "muted"}, kind === "kernel-module"
      ? "A kernel module has no hardening facts (they are those of programs and libraries)."
      : "No hardening facts: the store was written before linkgraph kept them."));
    return box;
  }
  const pie = kind === "executable" || h.pie
    ? yesNo(h.pie, "the kernel loads it at a random base", "it is loaded at a fixed address")
    : "no: a library is not a PIE (it is loaded where the loader chooses)";
  const fortified = h.fortified.length ? ` (${h.fortified.join(", ")})` : "";
  const rows = [
    ["pie", "PIE", pie],
    ["nx", "NX (non-executable stack)", yesNo(h.nx, "the stack is not executable", "the stack is executable")],
    ["relro", "RELRO", RELRO[h.relro] || h.relro],
    ["stack_protector", "Stack protector", yesNo(h.stack_protector, "it references __stack_chk_fail or __stack_chk_guard",
      "no __stack_chk_fail or __stack_chk_guard (a statically linked program shows none)")],
    ["fortify", "FORTIFY", yesNo(h.fortify, `it calls checking functions __NAME_chk${fortified}`,
      "no checking function __NAME_chk")],
    ["textrel", "TEXTREL", yesNo(h.textrel, "relocations write into the text (made writable meanwhile)",
      "no relocation writes into the text")],
    ["rpath", "DT_RPATH", searchPath(h.rpath)],
    ["runpath", "DT_RUNPATH", searchPath(h.runpath)],
  ];
  const table = el("table", {className: "data hardening", "aria-labelledby": "hardening-title"},
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "check"), el("th", {scope: "col"}, "this file"))),
    el("tbody", {}, ...rows.map(([key, label, value]) => el("tr", {dataset: {fact: key}},
      el("th", {scope: "row"}, label), el("td", {className: "value"}, value)))));
  box.append(table);
  const warnings = h.warnings || [];
  if (warnings.length) {
    box.append(el("h3", {}, `Risky search-path entries (${warnings.length})`),
      el("ul", {className: "risky-paths"}, ...warnings.map((w) => el("li", {dataset: {code: w.code}},
        el("span", {className: "warning-word"}, "warning "), el("code", {}, w.code), ": ", w.message))));
  } else if (h.rpath || h.runpath) {
    box.append(el("p", {className: "muted risky-paths-none"}, "No risky entry in its search path."));
  }
  return box;
}
