// What is under the pointer on the whole-firmware canvas: a module (its dot or its label) or an edge.
import {LABEL_MIN_ROW, NODE_RADIUS, curve, curvePoint, state} from "./whole-state.js";

export function nodeAt(sx, sy) {
  const labels = state.scale * state.rowGap >= LABEL_MIN_ROW;
  let best = -1;
  let bestDist = (NODE_RADIUS + 5) ** 2;
  for (let i = 0; i < state.nodes.length; i++) {
    if (!state.nodeVisible[i]) continue;
    const n = state.nodes[i];
    const x = n.x * state.scale + state.tx;
    const y = n.y * state.scale + state.ty;
    const d = (x - sx) ** 2 + (y - sy) ** 2;
    if (d <= bestDist) {
      best = i;
      bestDist = d;
    } else if (best < 0 && labels && sx >= x && sx <= x + NODE_RADIUS + 4 + n.width && Math.abs(sy - y) <= 6) {
      best = i;  // on its label
    }
  }
  return best;
}

function distToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  const t = len ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

export function edgeAt(sx, sy) {
  let best = -1;
  let bestDist = 5;
  for (let k = 0; k < state.edges.length; k++) {
    if (!state.edgeVisible[k]) continue;
    const c = curve(state.edges[k]);
    if (sx < Math.min(c[0], c[6]) - 6 || sx > Math.max(c[0], c[6]) + 6 ||
        sy < Math.min(c[1], c[7]) - 6 || sy > Math.max(c[1], c[7]) + 6) continue;
    let [px, py] = [c[0], c[1]];
    for (let s = 1; s <= 16; s++) {
      const [qx, qy] = curvePoint(state.edges[k], s / 16);
      const d = distToSegment(sx, sy, px, py, qx, qy);
      if (d < bestDist) {
        bestDist = d;
        best = k;
      }
      [px, py] = [qx, qy];
    }
  }
  return best;
}
