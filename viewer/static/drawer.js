// A drawer on the right below the header (the search results, the "why is it loaded" panel): made on
// first use, closed with its × button or Escape; show() fills it from one JSON call, the newest wins.
import {clear, el, errorBox} from "./common.js";

export class Drawer {
  constructor(id, label, {className = "", role = "region"} = {}) {
    this.id = id;
    this.label = label;
    this.className = className;
    this.role = role;
    this.box = null;
    this.request = 0;
  }

  element() {
    if (this.box) return this.box;
    const close = el("button", {type: "button", className: "drawer-close", "aria-label": `close: ${this.label}`}, "×");
    this.body = el("div", {className: "drawer-body"});
    this.box = el("aside", {id: this.id, className: `lg-drawer ${this.className}`, role: this.role,
      "aria-label": this.label, dataset: {state: "empty"}}, close, this.body);
    this.box.hidden = true;
    close.addEventListener("click", () => this.close());
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") this.close(); });
    document.body.appendChild(this.box);
    return this.box;
  }

  close() {
    if (this.box) this.box.hidden = true;
  }

  /** Open the drawer, wait for load() (a promise of the data), then fill it with render(body, data). */
  async show(waiting, load, render) {
    const box = this.element();
    const mine = ++this.request;
    box.hidden = false;
    box.dataset.state = "loading";
    clear(this.body).appendChild(el("p", {className: "muted"}, waiting));
    let data;
    try {
      data = await load();
    } catch (err) {
      if (mine !== this.request) return;
      clear(this.body).appendChild(errorBox(err.message));
      box.dataset.state = "error";
      return;
    }
    if (mine !== this.request) return;
    clear(this.body);
    render(this.body, data);
    box.dataset.state = "ready";
  }
}
