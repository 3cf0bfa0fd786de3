// The firmware list: fill in the module counts from GET /api/firmware.
import {getJson} from "./common.js";

async function main() {
  const rows = new Map();
  for (const tr of document.querySelectorAll("tr[data-firmware]")) rows.set(tr.dataset.firmware, tr);
  if (!rows.size) return;
  try {
    for (const fw of await getJson("/api/firmware")) {
      const tr = rows.get(fw.id);
      if (tr) tr.querySelector(".modules-count").textContent = String(fw.modules);
    }
  } catch (err) {
    console.warn("module counts:", err);
  }
}

main();
