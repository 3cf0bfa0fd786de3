// Shared helpers of the viewer's pages. Everything that comes from the firmware (paths, sonames,
// symbols) is text: it goes into the page with textContent / createTextNode, never as markup.

export const STATUSES = ["used", "declared-unused", "hidden", "missing"];

// The drawing conventions of docs/viewer.md (the same as the Graphviz diagrams).
export const STATUS_STYLE = {
  "used": {color: "#1a1a1a", dash: [], label: "used", help: "declared, and symbols bind to it"},
  "declared-unused": {color: "#1f4fbf", dash: [6, 4], label: "declared-unused",
    help: "declared in DT_NEEDED, nothing binds to it"},
  "hidden": {color: "#c8201e", dash: [], label: "hidden", help: "not declared, yet symbols bind to it"},
  "missing": {color: "#8c8c8c", dash: [2, 3], label: "missing", help: "declared, no file in the image satisfies it"},
};

export const KIND_LABEL = {
  "executable": "exe", "library": "lib", "kernel-module": "ko", "other-elf": "elf", "symlink": "link",
  "missing": "missing",
};

/** The firmware id the page is about (set by the template on <body>). */
export function firmwareId() {
  return document.body.dataset.firmware;
}

/** A control character made visible (U+2400 control pictures); the rest of the text stays as it is. */
export function printable(text) {
  if (text === null || text === undefined) return "";
  return String(text).replace(/[\u0000-\u001f\u007f]/g,
    (c) => String.fromCharCode(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0)));
}

/**
 * Create an element. attrs: {className, title, href, dataset: {...}, on: {click: fn}, other attributes};
 * children: strings (become text nodes) or nodes; null/undefined/false are skipped.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (key === "text") node.textContent = printable(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(node, ...children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(printable(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** The URL of an API call: /api/firmware/<id>/<what>?k=v (values URL-encoded). */
export function apiUrl(what, params = {}) {
  const base = `/api/firmware/${encodeURIComponent(firmwareId())}${what ? "/" + what : ""}`;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) query.set(k, v);
  const qs = query.toString();
  return qs ? `${base}?${qs}` : base;
}

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** GET a JSON answer; an error answer becomes an ApiError with the server's message. */
export async function getJson(url) {
  const response = await fetch(url, {headers: {"Accept": "application/json"}});
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && typeof body.error === "string" ? body.error : `${response.status} ${response.statusText}`;
    throw new ApiError(message, response.status);
  }
  return body;
}

export function errorBox(message) {
  return el("p", {className: "error", role: "alert"}, message);
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

export function basename(path) {
  if (!path) return "";
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut < 0 ? path : path.slice(cut + 1);
}

/** A status word styled like its edges. */
export function statusTag(status) {
  const style = STATUS_STYLE[status];
  return el("span", {className: `status status-${status}`, title: style ? style.help : null}, status);
}

/** The legend of the graph views: one line sample per status. */
export function legend(extra = []) {
  const box = el("div", {className: "status-legend", role: "note", "aria-label": "legend"});
  for (const status of STATUSES) {
    const style = STATUS_STYLE[status];
    const sample = el("span", {className: `legend-line line-${status}`});
    box.appendChild(el("span", {className: "legend-item", title: style.help}, sample, style.label));
  }
  for (const item of extra) box.appendChild(item);
  return box;
}

/**
 * The symbols behind an edge as an expandable list: <details><summary>N symbols</summary>...</details>.
 * Long lists get their own filter box.
 */
export function symbolDetails(symbols, {open = false} = {}) {
  const list = symbols || [];
  if (!list.length) return el("span", {className: "muted"}, "no symbols");
  const details = el("details", {className: "symbols"});
  details.open = open;
  const summary = el("summary", {}, plural(list.length, "symbol"));
  details.appendChild(summary);
  const ul = el("ul", {className: "symbol-list"});
  let filled = false;
  const fill = () => {  // big lists (libc) are built when first opened
    if (filled) return;
    filled = true;
    for (const name of list) ul.appendChild(el("li", {}, el("code", {}, name)));
  };
  if (list.length > 30) {
    const box = el("input", {type: "search", placeholder: "filter symbols", className: "symbol-filter",
      "aria-label": "filter symbols"});
    box.addEventListener("input", () => {
      const q = box.value.toLowerCase();
      for (const li of ul.children) li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q);
    });
    details.appendChild(box);
  }
  details.appendChild(ul);
  if (open) fill();
  else {
    summary.addEventListener("click", fill);  // before it opens (a click, Enter or Space)
    details.addEventListener("toggle", fill); // opened from script
  }
  return details;
}

/** A link to a file of this firmware in the tree page (a real link: it can be opened in a new tab). */
export function fileHref(path) {
  return `/fw/${encodeURIComponent(firmwareId())}/?path=${encodeURIComponent(path)}`;
}

export function formatSize(bytes) {
  if (bytes === null || bytes === undefined) return "";
  const n = Number(bytes);
  if (n < 1024) return `${n} bytes`;
  const units = ["KiB", "MiB", "GiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]} (${n.toLocaleString("en")} bytes)`;
}
