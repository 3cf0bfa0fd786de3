// Which edge a click on the Graph tab's drawing meant: each edge has an invisible twin of its line,
// 14 screen pixels wide at every zoom (diagram.css), and where the twins of close edges overlap the
// click goes to the edge whose drawn line passes nearest.

const NEAR = 2;  // px: lines this close to the nearest one pass through the click too (a hovered line is 3 px wide)

/** The edges whose lines pass nearest a click, nearest first: the one clicked, and any other within NEAR
 * pixels of it (the wide click targets of close edges overlap; bundled lines may coincide). */
export function nearestEdges(ev, group) {
  const groups = new Set(document.elementsFromPoint(ev.clientX, ev.clientY)
    .filter((e) => e.classList.contains("hit")).map((e) => e.closest("g.edge")));
  if (groups.size < 2) return [group.id];
  const found = [];
  for (const g of groups) {
    const d = Math.min(...[...g.querySelectorAll("path:not(.hit)")].map((p) => distance(p, ev.clientX, ev.clientY)));
    found.push({id: g.id, d});
  }
  found.sort((a, b) => a.d - b.d);
  return found.filter((f) => f.d <= found[0].d + NEAR).map((f) => f.id);
}

/** Screen distance from (x, y) to a path: sampled every 2 px, then refined near the closest sample. */
function distance(path, x, y) {
  const m = path.getScreenCTM();
  const total = path.getTotalLength();
  const at = (t) => {
    const p = path.getPointAtLength(Math.min(total, Math.max(0, t)));
    return Math.hypot(p.x * m.a + p.y * m.c + m.e - x, p.x * m.b + p.y * m.d + m.f - y);
  };
  let step = 2 / Math.max(Math.hypot(m.a, m.b), 1e-3);
  let best = {t: 0, d: Infinity};
  for (let t = 0; t <= total + step; t += step) {
    const d = at(t);
    if (d < best.d) best = {t, d};
  }
  for (let round = 0; round < 3; round += 1) {  // 2 px, 0.2 px, 0.02 px, 0.002 px
    const from = best.t - step;
    step /= 10;
    for (let t = from; t <= from + 20 * step; t += step) {
      const d = at(t);
      if (d < best.d) best = {t, d};
    }
  }
  return best.d;
}
