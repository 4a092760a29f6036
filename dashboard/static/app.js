// mjref dashboard: live updates over /ws, referee actions as JSON with the CSRF header.
// No library: every asset is served by the app.
(function () {
  "use strict";
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const view = document.body.dataset.view;
  const toast = (text, bad) => {
    const t = document.getElementById("toast");
    if (!t) return;
    t.textContent = text; t.hidden = false; t.className = "toast" + (bad ? " bad" : "");
    clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
  };
  async function api(method, url, body) {
    const r = await fetch(url, {
      method, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = r.status === 204 ? {} : await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(typeof data.detail === "string" ? data.detail : r.status + " " + r.statusText);
    return data;
  }
  let reloading = false, again = false;
  async function reload() {
    if (reloading) { again = true; return; }
    reloading = true;
    try {
      const r = await fetch(location.href, { credentials: "same-origin" });
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      const next = doc.getElementById("main");
      // what the user has open or is typing in now (not when the fetch began) is kept
      if (document.activeElement && document.activeElement.matches("#main input, #main select")) { again = true; return; }
      // an open evidence list keeps what it already loaded (no second fetch racing the first)
      const open = [...document.querySelectorAll("#main details[open]")].map((d) => [d.closest("[data-item]")?.dataset.item, d.querySelector(".ev-list")]);
      if (next) document.getElementById("main").replaceWith(next);
      open.forEach(([id, old]) => {
        const d = id && document.querySelector(`[data-item="${CSS.escape(id)}"] details`);
        if (!d) return;
        d.open = true;
        const list = d.querySelector(".ev-list");
        if (old && old.dataset.loaded && list) list.replaceWith(old);
        else loadEvidence(d).catch((e) => toast(e.message, true));
      });
    } finally {
      reloading = false;
      if (again) { again = false; setTimeout(reload, 300); }
    }
  }
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    const dot = document.getElementById("live");
    ws.onopen = () => dot && dot.classList.add("up");
    ws.onclose = () => { dot && dot.classList.remove("up"); setTimeout(connect, 1000); };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "alert") {
        const count = document.getElementById("alert-count");
        if (count) count.textContent = String((parseInt(count.textContent || "0", 10) || 0) + 1);
        if (view === "alerts" || view === "overview" || view === "standings" || view === "sheets") reload();
        else if (view === "table" && location.pathname === "/tables/" + msg.item.table_id) reload();
      } else if (msg.type === "tables" || msg.type === "rig_alert") {
        if (view === "table") {
          const id = decodeURIComponent(location.pathname.split("/")[2] || "");
          if ((msg.tables || [msg.table_id]).includes(id)) reload();
        } else if (view !== "audit" && view !== "review") reload(); // review keeps its place
      }
    };
  }
  async function loadEvidence(details) {
    const list = details.querySelector(".ev-list");
    if (!list || list.dataset.loaded) return;
    const url = `/api/tables/${encodeURIComponent(list.dataset.table)}/events?seqs=${list.dataset.evidence}`;
    const events = await api("GET", url);
    list.dataset.loaded = "1";
    list.replaceChildren(...events.map((e) => {
      const li = document.createElement("li");
      li.textContent = `#${e.seq} ${e.ts.toFixed(1)} s · ${e.source} · ${e.type} ${JSON.stringify(e.payload)}` + (e.evidence.length ? ` [${e.evidence.join(", ")}]` : "");
      return li;
    }));
  }
  document.addEventListener("toggle", (ev) => {
    if (ev.target.matches && ev.target.matches("details.evidence") && ev.target.open) loadEvidence(ev.target).catch((e) => toast(e.message, true));
  }, true);
  document.addEventListener("click", async (ev) => {
    const b = ev.target.closest("button");
    if (!b) return;
    try {
      if (b.dataset.decide) {
        const card = b.closest("[data-item]");
        const item = card.dataset.item, table = card.dataset.table;
        if (b.dataset.decide === "acknowledge") {
          await api("POST", "/api/decisions/acknowledge", { items: [[table, item]] });
        } else {
          const reason = card.querySelector('input[name="reason"]')?.value || "";
          const pts = card.querySelector('input[name="points"]')?.value;
          const body = { table_id: table, item_id: item, verdict: b.dataset.decide, reason };
          if (b.dataset.decide === "change") body.points = pts === "" || pts === undefined ? null : parseInt(pts, 10);
          await api("POST", "/api/decisions", body);
        }
        toast(document.body.dataset.lang === "zh" ? "已发送至牌桌" : "Sent to the table");
      } else if (b.hasAttribute("data-bulk-ack")) {
        const items = [...document.querySelectorAll("input.pick:checked")].map((c) => c.value.split("|"));
        if (items.length) { await api("POST", "/api/decisions/acknowledge", { items }); toast("✓ " + items.length); }
      } else if (b.dataset.control) {
        const box = b.closest("[data-table]");
        const body = { action: b.dataset.control };
        if (["extend", "late"].includes(b.dataset.control)) {
          body.seat = box.querySelector('select[name="seat"]').value;
          body.seconds = parseFloat(box.querySelector('input[name="seconds"]').value);
        }
        await api("POST", `/api/tables/${encodeURIComponent(box.dataset.table)}/controls`, body);
        toast("✓ " + b.textContent);
      } else if (b.dataset.confirm) {
        await api("POST", b.dataset.confirm);
        toast("✓ " + b.textContent);
      } else if (b.dataset.langSwitch) {
        await api("PUT", "/api/session/lang", { lang: b.dataset.langSwitch });
        location.reload();
      } else if (b.hasAttribute("data-logout")) {
        await api("DELETE", "/api/session");
        location.href = "/login";
      } else if (b.hasAttribute("data-print")) {
        window.print();
      }
    } catch (e) { toast(e.message, true); }
  });
  // a tournament's forms: the fields as JSON (numbers as numbers, empty ones left out), the
  // button pressed as its name's value
  document.addEventListener("submit", async (ev) => {
    const form = ev.target.closest("form[data-api]");
    if (!form) return;
    ev.preventDefault();
    const body = {};
    for (const el of form.elements) {
      if (!el.name || el.type === "submit" || el.value === "") continue;
      body[el.name] = el.type === "number" ? parseInt(el.value, 10) : el.value;
    }
    if (ev.submitter && ev.submitter.name) body[ev.submitter.name] = ev.submitter.value;
    try {
      await api("POST", form.dataset.api, body);
      toast("✓ " + (ev.submitter ? ev.submitter.textContent : ""));
      reload();
    } catch (e) { toast(e.message, true); }
  });
  document.addEventListener("submit", async (ev) => {
    const form = ev.target.closest("form[data-correct]");
    if (!form) return;
    ev.preventDefault();
    const f = new FormData(form);
    try {
      await api("POST", form.dataset.correct, {
        number: parseInt(f.get("number"), 10), player: f.get("player"),
        points: parseInt(f.get("points"), 10), reason: f.get("reason"),
      });
      form.reset();
      toast(document.body.dataset.lang === "zh" ? "已发送至牌桌" : "Sent to the table");
    } catch (e) { toast(e.message, true); }
  });
  if (view) connect();
})();
