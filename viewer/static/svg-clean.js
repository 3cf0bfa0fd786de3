// The server's Graphviz SVG made safe to put into the page, by DOMPurify (vendored, SVG profile):
// no scripts, no foreign content, no event handlers, no styles, no links leaving the document.
import DOMPurify from "./vendor/purify-3.5.0.es.mjs";

const purifier = DOMPurify(window);
// a link may only point inside the drawing (Graphviz writes none; a hostile SVG might)
purifier.addHook("uponSanitizeAttribute", (node, data) => {
  if ((data.attrName === "href" || data.attrName === "xlink:href") && !String(data.attrValue).startsWith("#")) {
    data.keepAttr = false;
  }
});

const CONFIG = {
  USE_PROFILES: {svg: true},
  FORBID_TAGS: ["style", "image", "foreignObject", "animate", "set", "animateMotion", "animateTransform"],
  FORBID_ATTR: ["style"],
  RETURN_DOM_FRAGMENT: true,
};

/** Parse SVG text and return a clean <svg> element of this document (throws on anything else). */
export function sanitizeSvg(text) {
  const fragment = purifier.sanitize(String(text), CONFIG);
  const root = fragment.firstElementChild;
  if (!root || root.localName !== "svg" || fragment.children.length !== 1) {
    throw new Error("the diagram is not a valid SVG document");
  }
  return document.adoptNode(root);
}
