// Kernel modules' links (docs/kernel.md) as the pages show them: symbols with their GPL-only mark,
// and the file panel's sections of a kernel module's links, both ways.
import {el, plural, statusTag, symbolDetails} from "./common.js";

export const GPL_ONLY = {label: "GPL-only",
  help: "exported with EXPORT_SYMBOL_GPL: the kernel offers it only to modules with a GPL-compatible licence"};

/** [{name, gpl_only}] as an expandable list, the GPL-only ones marked. */
export function kernelSymbols(symbols, {open = false} = {}) {
  const marked = new Map(symbols.filter((s) => s.gpl_only).map((s) => [s.name, GPL_ONLY]));
  return symbolDetails(symbols.map((s) => s.name), {open, marked});
}

/** The kernel's own exports, a missing module, or a module of the firmware (fileLink(path)). */
function target(link, path, fileLink) {
  if (link.kernel) return el("span", {className: "kernel-target"}, el("code", {}, path), " (the kernel)");
  if (link.missing) return el("span", {className: "missing-target"}, el("code", {}, path), " (not in the image)");
  return fileLink(path);
}

function gplCount(link) {
  return link.gpl_only.length ? el("span", {className: "gpl-only-count"}, String(link.gpl_only.length))
    : el("span", {className: "muted"}, "0");
}

/** The file panel's sections for a kernel module: section(key, title, help, rows, headers, cells). */
export function kernelSections(data, section, fileLink) {
  const open = (link) => link.symbols.length <= 8;
  return [
    section("kernel_links", "Kernel links", "What this module's undefined symbols bind to by the kernel's own " +
      "rules: another module (used when its depends= names it, hidden when not), the kernel itself, or a module " +
      "depends= names that binds nothing (declared-unused) or is not in the image (missing). GPL-only symbols are " +
      "marked.", data.kernel_links || [], ["to", "state", "GPL-only", "symbols"],
    (r) => [target(r, r.to, fileLink), statusTag(r.state), gplCount(r), kernelSymbols(r.symbols, {open: open(r)})]),
    section("kernel_used_by", "Kernel links to this module", "Modules whose symbols bind to this module's exports.",
      data.kernel_used_by || [], ["module", "state", "GPL-only", "symbols"],
      (r) => [fileLink(r.module), statusTag(r.state), gplCount(r), kernelSymbols(r.symbols, {open: open(r)})]),
  ];
}

/** One line of the Overview: how many kernel links, by state, and GPL-only symbols. */
export function kernelSummary(data) {
  const links = data.kernel_links || [];
  const byState = new Map();
  for (const l of links) byState.set(l.state, (byState.get(l.state) || 0) + 1);
  const states = [...byState].map(([s, n]) => `${n} ${s}`).join(", ");
  const gpl = links.reduce((sum, l) => sum + l.gpl_only.length, 0);
  return el("p", {className: "summary kernel-summary"}, `${plural(links.length, "kernel link")}`,
    states ? ` (${states})` : "", `, ${plural(gpl, "GPL-only symbol")} bound; `,
    `${plural((data.kernel_used_by || []).length, "module")} bind to it.`);
}
