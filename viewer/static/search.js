// The search box in the header of every firmware page (docs/viewer.md "Search"): a path, a soname
// or a symbol name. Matching modules (path, soname, symlink) and, for a symbol, who provides it and
// who binds it over which edge, in a drawer below the header; long lists come a page at a time ("more").
import {apiUrl, append, el, errorBox, fileHref, getJson, plural, statusTag} from "./common.js";
import {Drawer} from "./drawer.js";
import {whyButton} from "./why.js";

const PAGE = 50;
const form = document.getElementById("lg-search");
const input = document.getElementById("lg-search-q");
const drawer = new Drawer("lg-search-results", "search results", {className: "lg-search-drawer"});

function fileLink(path) {
  return el("a", {href: fileHref(path), className: "file-link", title: path, dataset: {path}}, path);
}

function code(text) {
  return text === null || text === undefined ? "" : el("code", {}, text);
}

function table(className, headers) {
  const body = el("tbody", {});
  return [el("table", {className: `data ${className}`},
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))), body), body];
}

/** A "more" button that fetches the next page (fetchPage(offset)) and appends its rows. */
function moreButton(page, fetchPage, addRows) {
  if (!page.more) return null;
  const button = el("button", {type: "button", className: "small more-button"}, `more (from ${page.offset + page.limit + 1})`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const next = await fetchPage(page.offset + page.limit);
      addRows(next.items);
      const again = moreButton(next, fetchPage, addRows);
      if (again) button.replaceWith(again);
      else button.remove();
    } catch (err) {
      button.replaceWith(errorBox(err.message));
    }
  });
  return button;
}

function moduleSection(text, page) {
  const box = el("section", {className: "search-modules"},
    el("h2", {}, "Modules ", el("span", {className: "count muted"}, page.more ? `(${page.items.length}+)` : `(${page.items.length})`)));
  if (!page.items.length) {
    box.appendChild(el("p", {className: "muted none"}, "No module's path, soname or symlink contains it."));
    return box;
  }
  const ul = el("ul", {className: "plain search-module-list"});
  const add = (items) => {
    for (const m of items) {
      ul.appendChild(el("li", {dataset: {path: m.path}}, fileLink(m.path), " ", el("span", {className: "muted"}, m.kind),
        m.soname ? [" ", code(m.soname)] : null,
        m.aliases && m.aliases.length ? el("span", {className: "muted"}, ` · ${plural(m.aliases.length, "symlink")}`) : null));
    }
  };
  add(page.items);
  append(box, ul, moreButton(page, (offset) => getJson(apiUrl("search", {q: text, offset, limit: PAGE})).then((d) => d.modules), add));
  return box;
}

function programsCell(b) {
  const list = el("ul", {className: "plain programs"});
  for (const program of b.programs) {
    list.appendChild(el("li", {}, fileLink(program), " ", whyButton(program, b.provider)));
  }
  if (b.program_count > b.programs.length) {
    list.appendChild(el("li", {className: "muted"}, `and ${b.program_count - b.programs.length} more`));
  }
  return list;
}

/** A line of symbol names, each a button that searches for it. */
function nameLine(className, lead, names, more) {
  const line = el("p", {className}, lead);
  names.forEach((name, i) => {
    const button = el("button", {type: "button", className: "link-button", dataset: {name}}, name);
    button.addEventListener("click", () => {
      input.value = name;
      search(name);
    });
    append(line, i ? " · " : "", button);
  });
  return append(line, more ? " …" : "");
}

/** The link maps where several objects define the symbol: each its providers in load order (the first wins). */
function duplicatesList(duplicates) {
  const ul = el("ul", {className: "plain search-duplicates"});
  for (const d of duplicates) {
    const order = el("ol", {className: "duplicate-providers"},
      ...d.providers.map((p, i) => el("li", {dataset: {provider: p}}, fileLink(p),
        i === 0 ? el("span", {className: "muted"}, " (wins)") : null)));
    ul.appendChild(el("li", {}, order, el("span", {className: "muted"},
      `load order in ${plural(d.program_count, "link map")}`)));
  }
  return ul;
}

function symbolSection(data) {
  const box = el("section", {className: "search-symbol", dataset: {symbol: data.symbol}},
    el("h2", {}, "Symbol ", code(data.symbol)));
  const others = data.names.items.filter((n) => n !== data.symbol);
  if (others.length) box.appendChild(nameLine("search-names", "Symbols starting with it: ", others, data.names.more));
  if (!data.providers.length) {
    box.appendChild(el("p", {className: "muted none"}, "No reference in this firmware binds a symbol of this name."));
    const offered = data.suggestions || [];
    if (offered.length) box.appendChild(nameLine("search-suggestions", "Did you mean: ", offered, false));
    return box;
  }
  box.appendChild(el("h3", {}, `Provided by (${data.providers.length})`));
  const [providers, providerRows] = table("search-providers", ["provider", "soname", "version", "references bound"]);
  for (const p of data.providers) {
    providerRows.appendChild(el("tr", {dataset: {provider: p.provider}}, el("td", {}, fileLink(p.provider)),
      el("td", {}, code(p.soname)), el("td", {}, code(p.version)), el("td", {}, String(p.references))));
  }
  box.appendChild(providers);
  if (data.duplicates.length) {
    box.appendChild(el("h3", {}, "Defined by several objects of one link map"));
    box.appendChild(duplicatesList(data.duplicates));
  }
  const page = data.bindings;
  box.appendChild(el("h3", {}, "Bound by ", el("span", {className: "count muted"},
    page.more ? `(${page.items.length}+)` : `(${page.items.length})`)));
  box.appendChild(el("p", {className: "help muted"}, "Each reference that binds it: the object whose reference binds, " +
    "the provider, the dependency edge between them and the programs whose link maps hold it (why? explains how " +
    "the program loads the provider)."));
  const [bindings, rows] = table("search-bindings", ["object", "version", "provider", "edge", "in the link maps of"]);
  const add = (items) => {
    for (const b of items) {
      rows.appendChild(el("tr", {dataset: {module: b.module, provider: b.provider, status: b.status || "own"}},
        el("td", {}, fileLink(b.module)), el("td", {}, code(b.version)), el("td", {}, fileLink(b.provider)),
        el("td", {}, b.status ? statusTag(b.status) : el("span", {className: "muted"}, "its own"), b.copy ? " (copy)" : ""),
        el("td", {}, programsCell(b))));
    }
  };
  add(page.items);
  append(box, bindings, moreButton(page,
    (offset) => getJson(apiUrl("symbol", {name: data.symbol, offset, limit: PAGE})).then((d) => d.bindings), add));
  return box;
}

function render(body, [text, modules, symbol]) {
  body.append(el("p", {className: "search-for muted"}, "Results for ", code(text), " in ",
    modules.firmware.name || modules.firmware.id));
  // a symbol answer first when there is one: a name like "malloc" is rarely also a path
  const sections = [moduleSection(text, modules.modules), symbolSection(symbol)];
  const offered = symbol.names.items.length || (symbol.suggestions || []).length;
  if (symbol.providers.length || (offered && !modules.modules.items.length)) sections.reverse();
  body.append(...sections);
}

function search(text) {
  return drawer.show("Searching…", () => Promise.all([
    text,
    getJson(apiUrl("search", {q: text, limit: PAGE})),
    getJson(apiUrl("symbol", {name: text, limit: PAGE})),
  ]), render);
}

if (form && input) {
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (text) search(text);
  });
}
