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
  // how the command a referee just sent stands, in the user's language (the API's label):
  // waiting for the table (its rig is offline), delivered, applied, failed: why
  const stands = (r) => ((r && (r.commands || [r.sent])) || []).map((c) => c && c.label).filter(Boolean).join(" · ") || "✓";
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
  // something this page shows changed: its parts are updated in place (static/live.js)
  const reload = () => window.mjrefLive && window.mjrefLive.update();
  // a card's fields back to what the server rendered once what they held was sent: the card
  // then takes its updates again (live.js leaves a card with changed fields alone)
  const sent = (box) => box.querySelectorAll("input, select, textarea").forEach((f) => {
    if (f.type === "checkbox" || f.type === "radio") f.checked = f.defaultChecked;
    else if (f.tagName === "SELECT") [...f.options].forEach((o) => { o.selected = o.defaultSelected; });
    else f.value = f.defaultValue;
  });
  let reconnecting = false; // after a drop the page is fetched again: messages were missed
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    const dot = document.getElementById("live");
    ws.onopen = () => { dot && dot.classList.add("up"); if (reconnecting) reload(); };
    ws.onclose = () => { dot && dot.classList.remove("up"); reconnecting = true; setTimeout(connect, 1000); };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (typeof msg.open_alerts === "number" && window.mjrefLive) window.mjrefLive.badge(msg.open_alerts);
      if (msg.type === "alert") {
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
        let r;
        if (b.dataset.decide === "acknowledge") {
          r = await api("POST", "/api/decisions/acknowledge", { items: [[table, item]] });
        } else {
          const reason = card.querySelector('input[name="reason"]')?.value || "";
          const pts = card.querySelector('input[name="points"]')?.value;
          const body = { table_id: table, item_id: item, verdict: b.dataset.decide, reason };
          if (b.dataset.decide === "change") body.points = pts === "" || pts === undefined ? null : parseInt(pts, 10);
          r = await api("POST", "/api/decisions", body);
        }
        sent(card);
        toast(stands(r));
      } else if (b.hasAttribute("data-bulk-ack")) {
        const items = [...document.querySelectorAll("input.pick:checked")].map((c) => c.value.split("|"));
        if (items.length) {
          await api("POST", "/api/decisions/acknowledge", { items });
          document.querySelectorAll("input.pick:checked").forEach((c) => { c.checked = false; });
          toast("✓ " + items.length);
        }
      } else if (b.dataset.control) {
        const box = b.closest("[data-table]");
        const body = { action: b.dataset.control };
        if (["extend", "late"].includes(b.dataset.control)) {
          body.seat = box.querySelector('select[name="seat"]').value;
          body.seconds = parseFloat(box.querySelector('input[name="seconds"]').value);
        }
        const r = await api("POST", `/api/tables/${encodeURIComponent(box.dataset.table)}/controls`, body);
        toast(b.textContent + ": " + stands(r));
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
      form.reset(); // sent: the form takes the page's updates again
      reload();
    } catch (e) { toast(e.message, true); }
  });
  document.addEventListener("submit", async (ev) => {
    const form = ev.target.closest("form[data-correct]");
    if (!form) return;
    ev.preventDefault();
    const f = new FormData(form);
    try {
      const r = await api("POST", form.dataset.correct, {
        number: parseInt(f.get("number"), 10), player: f.get("player"),
        points: parseInt(f.get("points"), 10), reason: f.get("reason"),
      });
      form.reset();
      toast(stands(r));
    } catch (e) { toast(e.message, true); }
  });
  // an alert's clip or still neither the dashboard nor the rig has: the player or the image
  // gives way to "evidence not available: why" (the clip API's reason)
  document.addEventListener("error", async (ev) => {
    const el = ev.target;
    if (!(el instanceof HTMLElement) || !el.matches(".clips video, .clips audio, .clips img")) return;
    let why;
    try {
      const r = await fetch(el.getAttribute("src"), { credentials: "same-origin" });
      const data = r.ok ? {} : await r.json().catch(() => ({}));
      why = r.ok ? `${r.headers.get("Content-Type")}: this browser cannot play it`
        : typeof data.detail === "string" ? data.detail : `${r.status} ${r.statusText}`;
    } catch (e) { why = e.message; }
    const p = document.createElement("p");
    p.className = "no-evidence";
    p.textContent = `${el.closest(".clips").dataset.unavailable}: ${why}`;
    el.replaceWith(p);
  }, true);
  if (view) connect();
})();
