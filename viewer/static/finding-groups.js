// Collapsible groups of licence findings (one group per GPL or LGPL library, its findings inside),
// each with its count, an "Open all" / "Close all" pair per section and a text filter over all of
// them. A group's body is built when it is first shown, with the rows the filter keeps.
import {clear, el, plural} from "./common.js";

// A section with at most this many groups, and this many rows in all, opens them all at first.
const OPEN_AT_MOST = {groups: 3, rows: 30};

/** rows grouped by keyOf(row), in the order the keys first appear. */
export function groupBy(rows, keyOf) {
  const groups = new Map();
  for (const r of rows) {
    const key = keyOf(r);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return groups;
}

/** Everything of a row a filter looks at (paths, licences, symbols), lowercased. */
export function rowText(value) {
  const parts = [];
  const walk = (v) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object") Object.values(v).forEach(walk);
    else parts.push(String(v));
  };
  walk(value);
  return parts.join("\n").toLowerCase();
}

export class FindingGroups {
  /**
   * rows: the finding's rows; keyOf(row): its group; head(key, rows): the summary's nodes;
   * body(rows): the group's content for these rows; unit: [one, many] words for the count.
   */
  constructor(rows, {kind, keyOf, head, body, unit}) {
    this.body = body;
    this.unit = unit;
    this.query = "";
    this.groups = [];
    const groups = groupBy(rows, keyOf);
    const all = (open) => () => this.groups.forEach((g) => {
      if (!g.details.hidden) g.details.open = open;
    });
    this.node = el("div", {className: `finding-groups groups-${kind}`}, el("p", {className: "toggles"},
      el("button", {type: "button", className: "small", on: {click: all(true)}}, "Open all"), " ",
      el("button", {type: "button", className: "small", on: {click: all(false)}}, "Close all")));
    for (const [key, members] of groups) {
      const count = el("span", {className: "count group-count"});
      const content = el("div", {className: "group-body"});
      // a summary is a button: the links of its head go below it, the summary keeps their words
      const nodes = head(key, members);
      const links = nodes.filter((n) => n instanceof HTMLAnchorElement);
      const words = nodes.map((n) => (links.includes(n) ? el("code", {className: "group-name"}, n.textContent) : n));
      const details = el("details", {className: "finding-group", dataset: {group: key}},
        el("summary", {}, ...words, " ", count),
        links.length ? el("p", {className: "group-links"}, "Open: ", ...links) : null, content);
      const group = {key, details, count, content, members, texts: members.map(rowText), built: null};
      details.addEventListener("toggle", () => this.build(group));
      this.groups.push(group);
      this.node.appendChild(details);
    }
    this.filter("");
    if (this.groups.length <= OPEN_AT_MOST.groups && rows.length <= OPEN_AT_MOST.rows) {
      for (const g of this.groups) {
        g.details.open = true;
        this.build(g);
      }
    }
  }

  /** Keep the rows whose text holds the query (all rows of a group whose key holds it); returns rows kept. */
  filter(query) {
    this.query = query;
    let kept = 0;
    for (const g of this.groups) {
      const whole = query !== "" && g.key.toLowerCase().includes(query);
      g.shown = g.members.filter((_, i) => !query || whole || g.texts[i].includes(query));
      kept += g.shown.length;
      g.details.hidden = g.shown.length === 0;
      const [one, many] = this.unit;
      g.count.textContent = g.shown.length === g.members.length ? `(${plural(g.members.length, one, many)})`
        : `(${g.shown.length} of ${plural(g.members.length, one, many)})`;
      g.built = null;  // rebuilt with the rows kept when shown
      delete g.details.dataset.built;
      this.build(g);
    }
    return kept;
  }

  build(group) {
    if (!group.details.open || group.built === this.query) return;
    group.built = this.query;
    clear(group.content).appendChild(this.body(group.shown));
    group.details.dataset.built = "1";  // its rows are there (tests wait on it)
  }
}
