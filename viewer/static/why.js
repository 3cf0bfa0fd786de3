// "Why is library X loaded in program P" (docs/viewer.md "Search"): a drawer on the right with the
// chain of DT_NEEDED edges the loader follows from P to X (breadth-first, in load order), every object
// of P's link map that declares X, and which references of P's objects bind to which of X's symbols.
// Opened from a library in a program's panel (whyButton) or from the search results.
import {apiUrl, basename, el, fileHref, getJson, plural, statusTag, symbolDetails} from "./common.js";
import {Drawer} from "./drawer.js";

const UNUSED_HELP = "declared-unused: the library is still loaded, and its initialisation code runs, " +
  "but no symbol of the declaring object binds to it.";

const drawer = new Drawer("lg-why", "why is it loaded", {role: "dialog"});

function fileLink(path) {
  return el("a", {href: fileHref(path), className: "file-link", dataset: {path}}, basename(path));
}

/** A small button that opens the panel for (program, library). */
export function whyButton(program, library, label = "why?") {
  const button = el("button", {type: "button", className: "small why-button",
    title: `Why is ${basename(library)} loaded in ${basename(program)}?`, dataset: {program, library}}, label);
  button.addEventListener("click", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    openWhy(program, library);
  });
  return button;
}

function chainList(data) {
  const ol = el("ol", {className: "why-chain"});
  ol.appendChild(el("li", {className: "why-step why-start", dataset: {path: data.program}}, fileLink(data.program),
    el("span", {className: "muted"}, " (the program)")));
  for (const step of data.chain) {
    ol.appendChild(el("li", {className: "why-step", dataset: {from: step.from, to: step.to, status: step.status}},
      el("span", {className: "why-arrow", "aria-hidden": "true"}, "→ "), fileLink(step.to), " ",
      el("span", {className: "muted"}, "DT_NEEDED ", el("code", {}, step.soname), ` #${step.position} of `,
        basename(step.from), " "), statusTag(step.status)));
  }
  return ol;
}

function table(headers, rows) {
  return el("table", {className: "data"}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows));
}

function render(box, data) {
  const name = basename(data.library);
  box.append(el("h1", {}, "Why is ", el("code", {}, name), " loaded in ", el("code", {}, basename(data.program)), "?"),
    el("p", {className: "muted"}, el("code", {}, data.library), " in the link map of ", fileLink(data.program)));
  if (!data.loaded) {
    box.appendChild(el("p", {className: "why-not-loaded"}, el("code", {}, name), " is not in this program's link map."));
    return;
  }
  box.appendChild(el("h2", {}, "Load chain"));
  box.appendChild(el("p", {className: "help muted"}, `Object ${data.load_index + 1} of ${data.objects} in load order. ` +
    "The loader loads breadth-first: each file is loaded by the first object (in load order) whose DT_NEEDED names it."));
  if (data.chain.length) box.appendChild(chainList(data));
  else box.appendChild(el("p", {className: "why-no-chain"}, "No DT_NEEDED edge loads it: it is the program itself, " +
    "or the interpreter the kernel loads (PT_INTERP)."));

  box.appendChild(el("h2", {}, `Declared by (${data.declared_by.length})`));
  if (data.declared_by.some((e) => e.status === "declared-unused")) box.appendChild(el("p", {className: "help muted"}, UNUSED_HELP));
  box.appendChild(data.declared_by.length
    ? table(["object", "#", "soname", "status", "symbols"], data.declared_by.map((e) =>
      el("tr", {className: "why-declared", dataset: {from: e.from, status: e.status}},
        el("td", {}, fileLink(e.from)), el("td", {}, String(e.position)), el("td", {}, el("code", {}, e.soname)),
        el("td", {}, statusTag(e.status)), el("td", {}, symbolDetails(e.symbols)))))
    : el("p", {className: "muted"}, "none"));

  const count = data.bindings.reduce((n, b) => n + b.symbols.length, 0);
  box.appendChild(el("h2", {}, `Bindings to it (${plural(count, "symbol")})`));
  box.appendChild(el("p", {className: "help muted"}, "The references of this program's other objects that the loader binds to ",
    el("code", {}, name), ", by object; a hidden edge means the object does not declare it."));
  box.appendChild(data.bindings.length
    ? table(["object", "edge", "symbols"], data.bindings.map((b) =>
      el("tr", {className: "why-binding", dataset: {module: b.module, status: b.status || "none"}},
        el("td", {}, fileLink(b.module)), el("td", {}, b.status ? statusTag(b.status) : el("span", {className: "muted"}, "none")),
        el("td", {}, symbolDetails(b.symbols.map((s) => (s.version ? `${s.name}@${s.version}` : s.name)),
          {open: b.symbols.length <= 8})))))
    : el("p", {className: "muted why-no-bindings"}, "No reference of this program binds to it."));
}

/** Open the drawer for (program, library): both paths (or a symlink's), the library may be a soname. */
export async function openWhy(program, library) {
  await drawer.show("Loading…", () => getJson(apiUrl("why", {program, library})), render);
  drawer.element().querySelector(".drawer-close").focus();
}
