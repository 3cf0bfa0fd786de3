// Licence facts in the viewer: the classes of docs/licences.md, how a licence is shown, and what a
// licence source and a certainty mean in plain words. Licences come from the firmware: text only.
import {el} from "./common.js";
import {VOCABULARY} from "./vocabulary.js";

export const LICENCE_CLASSES = VOCABULARY.licenceClasses.map((c) => c.name);

// color: the dot on the whole-firmware canvas; the marks (vocabulary.css, .lclass-*) use the outline
// and fill colours of the Graphviz diagrams, so a class looks alike everywhere.
export const LICENCE_STYLE = Object.fromEntries(VOCABULARY.licenceClasses.map((c) => [c.name, c]));

export function licenceClass(cls) {
  return LICENCE_STYLE[cls] ? cls : "unknown";
}

/** The class as a small coloured mark: <span class="lclass lclass-gpl">GPL</span>. */
export function classTag(cls) {
  const key = licenceClass(cls);
  return el("span", {className: `lclass lclass-${key}`, title: LICENCE_STYLE[key].help, dataset: {licenceClass: key}},
    LICENCE_STYLE[key].label);
}

/** A licence expression (or "no licence known") with its class mark; no mark when the class is not given. */
export function licenceTag(licence, cls = null) {
  const text = licence ? el("code", {className: "licence-expr"}, licence)
    : el("span", {className: "muted licence-none"}, "no licence known");
  const span = el("span", {className: "licence", dataset: {licence: licence || ""}}, text);
  if (cls !== null && cls !== undefined) {
    span.dataset.licenceClass = licenceClass(cls);
    span.append(" ", classTag(cls));
  }
  return span;
}

export const CERTAINTY_HELP = {
  "declared": "stated by the firmware's package data, by the module itself or by your overrides",
  "identified": "a signature of the component (its strings or exported API) matched the file's own bytes",
  "inferred": "recognised by linkgraph, not stated by the firmware: worth checking against the sources",
};

/** What a licence_source string (docs/licences.md, "Sources and precedence") means, in words. */
export function sourceExplanation(source) {
  if (!source) return "";
  const after = (prefix) => source.slice(prefix.length);
  if (source.startsWith("override:")) {
    return "your own overrides, given to linkgraph scan with --licences (file and rule after the colons); " +
      "they win over every other source";
  }
  if (source.startsWith("dpkg-copyright:")) {
    return source.includes("(free text)")
      ? "the package's Debian copyright file, free text that plainly states one licence"
      : "the package's machine-readable Debian copyright file (the Files paragraph that matches this file)";
  }
  if (source.startsWith("dpkg:")) return "the License field of the file's dpkg package";
  if (source.startsWith("opkg:")) return "the License field of the file's opkg package (OpenWrt's PKG_LICENSE)";
  if (source.startsWith("buildroot:")) return "the Buildroot legal-info manifest shipped in the firmware";
  if (source.startsWith("yocto:")) return "the Yocto license manifest shipped in the firmware";
  if (source === "modinfo") return "the kernel module's own MODULE_LICENSE() (its .modinfo license= entry)";
  if (source.startsWith("knowledge-base:")) {
    return `linkgraph's knowledge base recognised the file as ${after("knowledge-base:")}, a well-known component ` +
      "(by its soname or file name)";
  }
  if (source.startsWith("no licence fact found")) {
    return "no source named a licence for this file: the firmware's package data, the module itself and " +
      "linkgraph's knowledge base were all asked";
  }
  return "";
}

/** The Licences page of this firmware. */
export function licencesHref() {
  return `/fw/${encodeURIComponent(document.body.dataset.firmware)}/licences`;
}

/** The licence facts of one module (the file API's module) as a definition list with explanations. */
export function licenceFacts(m) {
  const dl = el("dl", {className: "facts licence-facts"});
  const help = (text) => (text ? el("div", {className: "muted fact-help"}, text) : null);
  const none = (text) => el("span", {className: "muted"}, text);
  const row = (term, key, ...value) => dl.append(el("dt", {}, term), el("dd", {dataset: {fact: key}}, ...value));
  const cls = licenceClass(m.licence_class);
  row("Licence", "licence", licenceTag(m.licence, cls), help(`${LICENCE_STYLE[cls].label}: ${LICENCE_STYLE[cls].help}`));
  row("Source", "source", m.licence_source ? el("code", {}, m.licence_source) : none("none"),
    help(sourceExplanation(m.licence_source)));
  row("Certainty", "certainty", m.licence_certainty || none("none"), help(CERTAINTY_HELP[m.licence_certainty]));
  row("Package", "package", m.package ? el("code", {}, m.package) : none("none known"));
  return dl;
}
