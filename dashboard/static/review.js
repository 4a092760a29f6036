// mjref review page: step or scrub through a recorded session. The board at each event comes
// from the server (the log replayed up to it); the still and the clip from the contract's URL.
// Keys: ←/→ step, space play/pause, J next hand, K previous hand.
(function () {
  "use strict";
  const root = document.querySelector(".review");
  if (!root) return;
  const line = JSON.parse(document.getElementById("timeline-data").textContent);
  const seqs = line.events.map((e) => e.seq);
  const starts = line.hands.map((h) => seqs.indexOf(h.first)).filter((i) => i >= 0);
  const base = `/review/${encodeURIComponent(root.dataset.table)}/${encodeURIComponent(root.dataset.session)}`;
  const scrub = document.getElementById("scrub");
  const board = document.getElementById("board");
  const where = document.getElementById("where");
  const still = document.getElementById("still");
  const clip = document.getElementById("clip");
  const playButton = root.querySelector('[data-go="play"]');
  const indexOf = (seq) => {
    let best = 0;
    seqs.forEach((s, i) => { if (s <= seq) best = i; });
    return best;
  };
  let index = indexOf(parseInt(root.dataset.seq, 10) || 0);
  let wanted = 0;
  let timer = null;

  function evidence(fragment) {
    const b = fragment.querySelector(".review-board");
    if (!b) return;
    if (still.getAttribute("src") !== b.dataset.still) {
      document.getElementById("no-still").hidden = true;
      still.hidden = false;
      still.src = b.dataset.still;
    }
    if (clip.getAttribute("src") !== b.dataset.video && clip.paused) {
      document.getElementById("no-clip").hidden = true;
      clip.hidden = false;
      clip.src = b.dataset.video;
    }
  }
  async function go(i) {
    index = Math.max(0, Math.min(seqs.length - 1, i));
    const seq = seqs[index];
    scrub.value = String(index);
    where.textContent = `#${seq} · ${line.events[index].ts.toFixed(1)} s · ${line.events[index].label}`;
    const ticket = ++wanted;
    const r = await fetch(`${base}/board?seq=${seq}`, { credentials: "same-origin" });
    if (ticket !== wanted) return; // a later step was asked for meanwhile
    if (!r.ok) { where.textContent += ` (${r.status})`; return; }
    board.innerHTML = await r.text();
    root.dataset.seq = String(seq);
    evidence(board);
    history.replaceState(null, "", `${base}?seq=${seq}`);
  }
  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) timer = setInterval(() => { if (index >= seqs.length - 1) play(false); else go(index + 1); }, 700);
    playButton.setAttribute("aria-pressed", on ? "true" : "false");
    root.classList.toggle("playing", on);
  }
  function hand(step) {
    const current = starts.filter((s) => s <= index).pop();
    let target;
    if (step > 0) target = starts.find((s) => s > index);
    else target = current !== undefined && current < index ? current : starts.filter((s) => s < index).pop();
    if (target !== undefined) go(target);
  }
  function place() {
    const span = Math.max(seqs.length - 1, 1);
    document.querySelectorAll("#marks .mark").forEach((m) => {
      m.style.left = `${(indexOf(parseInt(m.dataset.seq, 10)) / span) * 100}%`;
    });
  }
  still.addEventListener("error", () => { still.hidden = true; document.getElementById("no-still").hidden = false; });
  clip.addEventListener("error", () => { clip.hidden = true; document.getElementById("no-clip").hidden = false; });
  scrub.addEventListener("input", () => go(parseInt(scrub.value, 10)));
  root.addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b) return;
    if (b.dataset.seq !== undefined) { play(false); go(indexOf(parseInt(b.dataset.seq, 10))); return; }
    const action = b.dataset.go;
    if (action === "prev") go(index - 1);
    else if (action === "next") go(index + 1);
    else if (action === "play") play(!timer);
    else if (action === "hand-prev") hand(-1);
    else if (action === "hand-next") hand(1);
    else if (action === "clip") clip.play().catch(() => {});
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.matches && ev.target.matches("input:not([type=range]), textarea, select")) return;
    const key = ev.key;
    if (key === "ArrowLeft") go(index - 1);
    else if (key === "ArrowRight") go(index + 1);
    else if (key === " ") play(!timer);
    else if (key === "j" || key === "J") hand(1);
    else if (key === "k" || key === "K") hand(-1);
    else return;
    ev.preventDefault();
  });
  place();
  scrub.value = String(index);
})();
