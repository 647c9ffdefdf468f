// The stream tail: polls the records endpoint every second and prepends
// what it answers. Everything else in the console works without script.
"use strict";
(function () {
  const table = document.getElementById("tail");
  if (!table) return;
  const body = table.querySelector("tbody");
  const state = document.getElementById("tail-state");
  const src = table.dataset.src;
  let cursor = "";
  function cell(tr, text) {
    const td = document.createElement("td");
    td.textContent = text || "";
    tr.appendChild(td);
  }
  async function poll() {
    try {
      const sep = src.includes("?") ? "&" : "?";
      const res = await fetch(src + sep + "cursor=" + encodeURIComponent(cursor), { credentials: "same-origin" });
      const ans = await res.json();
      cursor = ans.cursor;
      if (ans.error) {
        state.textContent = ans.error;
        state.className = "error";
      } else {
        state.textContent = "Following the stream.";
        state.className = "hint";
      }
      for (const r of ans.records) {
        const tr = document.createElement("tr");
        tr.className = "record";
        cell(tr, r.eventName);
        cell(tr, r.sequence);
        cell(tr, r.keys);
        cell(tr, r.newImage);
        cell(tr, r.oldImage);
        body.insertBefore(tr, body.firstChild);
      }
    } catch (e) {
      state.textContent = "The server did not answer: " + e;
      state.className = "error";
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
