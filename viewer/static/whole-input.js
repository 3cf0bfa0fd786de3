// Mouse and keyboard on the whole-firmware canvas: drag to pan, wheel to zoom, hover to highlight a
// module's neighbourhood, click to select a module or an edge; arrows, +/-, 0 and Escape.
import {fit, requestDraw, resize, zoomAt} from "./whole-canvas.js";
import {edgeAt, nodeAt} from "./whole-hit.js";
import {selectEdge, selectNode} from "./whole-info.js";
import {canvas, state} from "./whole-state.js";

export function wireCanvas() {
  let drag = null;
  canvas.addEventListener("mousedown", (ev) => {
    drag = {x: ev.clientX, y: ev.clientY, tx: state.tx, ty: state.ty, moved: false};
  });
  window.addEventListener("mousemove", (ev) => {
    if (drag) {
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        state.tx = drag.tx + dx;
        state.ty = drag.ty + dy;
        canvas.classList.add("dragging");
        requestDraw();
      }
      return;
    }
    if (ev.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const i = nodeAt(ev.clientX - r.left, ev.clientY - r.top);
    if (i !== state.hover) {
      state.hover = i;
      canvas.style.cursor = i >= 0 ? "pointer" : "";
      requestDraw();
    }
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const wasDrag = drag.moved;
    drag = null;
    canvas.classList.remove("dragging");
    if (wasDrag || ev.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const sx = ev.clientX - r.left;
    const sy = ev.clientY - r.top;
    const i = nodeAt(sx, sy);
    if (i >= 0) {
      selectNode(i);
      return;
    }
    const k = edgeAt(sx, sy);
    if (k >= 0) selectEdge(k);
    else selectNode(-1);
  });
  canvas.addEventListener("mouseleave", () => {
    if (state.hover >= 0) {
      state.hover = -1;
      requestDraw();
    }
  });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
  }, {passive: false});
  canvas.addEventListener("keydown", (ev) => {
    const step = 60;
    const keys = {
      "ArrowLeft": () => { state.tx += step; }, "ArrowRight": () => { state.tx -= step; },
      "ArrowUp": () => { state.ty += step; }, "ArrowDown": () => { state.ty -= step; },
      "+": () => zoomAt(state.width / 2, state.height / 2, 1.25), "=": () => zoomAt(state.width / 2, state.height / 2, 1.25),
      "-": () => zoomAt(state.width / 2, state.height / 2, 0.8), "0": fit, "Escape": () => selectNode(-1),
    };
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
      requestDraw();
    }
  });
  new ResizeObserver(() => resize()).observe(canvas.parentElement);
}
