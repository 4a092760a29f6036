// mjref dashboard: live pages updated in place (no library; app.js calls mjrefLive.update()
// when the live channel says something this page shows has changed).
//
// The page is fetched again and each part the server marks with data-key is compared with the
// HTML it had when it was rendered, its own keyed parts set aside: only a part whose own HTML
// changed is replaced, and keyed lists gain, lose and reorder their items in place; a part that
// did not change is never touched. Whatever the user holds waits until it is let go: a part
// with the focus in a field (typing, a dropdown open), a control pressed, a <details> open, or
// a form whose values are not those it was rendered with is not replaced or removed; an
// insertion, removal or move that would shift the control under the pointer (or the one
// focused or pressed) waits too. Any element with a stable data-key gets this: new markup in a
// template needs nothing more. Fetches are coalesced to one per GAP_MS.
(function () {
  "use strict";
  const KEYED = "[data-key]";
  const CONTROL = "a, button, input, select, textarea, summary, label";
  const FIELD = "input, select, textarea";
  const GAP_MS = 500; // at most two fetches a second, however busy the venue
  const RETRY_MS = 400; // a part held by the user is tried again this often
  const rendered = new WeakMap(); // live part → its own HTML as the server last rendered it
  const fetchedOwn = new WeakMap(); // part of a fetched page → its own HTML
  let latest = null; // the page last fetched
  let pressed = null; // the element a pointer is down on
  let waiting = false; // something could not be applied yet
  let timer = null, running = false, again = false, last = 0, retry = null;

  // a part's own HTML: its keyed parts cut out, whitespace folded
  function own(el) {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(KEYED).forEach((k) => k.remove());
    return copy.outerHTML.replace(/>\s+</g, "><").replace(/\s+/g, " ");
  }
  function ownFetched(el) {
    let s = fetchedOwn.get(el);
    if (s === undefined) { s = own(el); fetchedOwn.set(el, s); }
    return s;
  }
  function remember(el) {
    if (el.matches(KEYED)) rendered.set(el, own(el));
    el.querySelectorAll(KEYED).forEach((k) => rendered.set(k, own(k)));
  }
  // the keyed parts nearest inside el
  function parts(el) {
    const self = el.matches(KEYED) ? el : null;
    return [...el.querySelectorAll(KEYED)].filter((k) => k.parentElement.closest(KEYED) === self);
  }

  // ---- what the user holds ------------------------------------------------------------------
  function hot() {
    const out = [];
    const focused = document.activeElement;
    if (focused && focused.matches(FIELD)) out.push(focused);
    if (pressed && pressed.isConnected) out.push(pressed);
    const over = document.querySelectorAll(":hover");
    const under = over.length ? over[over.length - 1].closest(CONTROL) : null;
    if (under) out.push(under);
    return out;
  }
  function changed(f) {
    if (f.type === "checkbox" || f.type === "radio") return f.checked !== f.defaultChecked;
    if (f.tagName === "SELECT") {
      const opts = [...f.options];
      if (f.multiple) return opts.some((o) => o.selected !== o.defaultSelected);
      const first = opts.findIndex((o) => o.defaultSelected);
      return f.selectedIndex !== (opts.length ? Math.max(first, 0) : -1);
    }
    return f.value !== f.defaultValue;
  }
  // the user is in it: it must not be replaced or removed now
  function held(el) {
    const focused = document.activeElement;
    if (focused && focused.matches(FIELD) && el.contains(focused)) return true;
    if (pressed && el.contains(pressed)) return true;
    if (el.matches("details[open]") || el.querySelector("details[open]")) return true;
    return [...(el.matches(FIELD) ? [el] : []), ...el.querySelectorAll(FIELD)].some(changed);
  }
  const FOLLOWS = Node.DOCUMENT_POSITION_FOLLOWING;
  // would taking el away move a control the user is on (one after it, or one in it)?
  function shiftsOut(el, hots) {
    return hots.some((h) => h.isConnected && (el.contains(h) || el.compareDocumentPosition(h) & FOLLOWS));
  }
  // would putting something after `after` (or first in `parent`) move a control the user is on?
  function shiftsIn(parent, after, hots) {
    return hots.some((h) => {
      if (!h.isConnected) return false;
      if (after) return !after.contains(h) && Boolean(after.compareDocumentPosition(h) & FOLLOWS);
      return parent.contains(h) || Boolean(parent.compareDocumentPosition(h) & FOLLOWS);
    });
  }

  // ---- the patch ----------------------------------------------------------------------------
  const plain = (el) => [...el.children].filter((c) => !c.matches(KEYED));
  function byKey(key) {
    return document.querySelector(`[data-key="${CSS.escape(key)}"]`);
  }
  // the live element for x of the fetched page (root: the live counterpart of nextRoot)
  function counterpart(x, root, nextRoot) {
    if (x === nextRoot) return root;
    if (x.matches(KEYED)) return byKey(x.dataset.key);
    const parent = counterpart(x.parentElement, root, nextRoot);
    if (!parent) return null;
    return plain(parent)[plain(x.parentElement).indexOf(x)] || null;
  }
  // where a part of the fetched page goes in the live one: [parent, the element it follows]
  function spot(n, root, nextRoot) {
    const prev = n.previousElementSibling;
    if (prev) {
      const after = counterpart(prev, root, nextRoot);
      return after ? [after.parentElement, after] : null;
    }
    const parent = counterpart(n.parentElement, root, nextRoot);
    return parent ? [parent, null] : null;
  }
  function put(el, parent, after) {
    if (after) after.after(el);
    else parent.prepend(el);
  }
  function sync(el, next, hots) {
    if (rendered.get(el) !== ownFetched(next)) {
      if (!held(el)) {
        const fresh = document.importNode(next, true);
        el.replaceWith(fresh);
        remember(fresh);
        return;
      }
      waiting = true;
    }
    syncParts(el, next, hots);
  }
  function syncParts(root, nextRoot, hots) {
    const have = new Map(parts(root).map((k) => [k.dataset.key, k]));
    const want = parts(nextRoot);
    const keys = new Set(want.map((n) => n.dataset.key));
    for (const [key, el] of have) {
      if (keys.has(key)) continue;
      if (held(el) || shiftsOut(el, hots)) waiting = true;
      else el.remove();
    }
    for (const n of want) {
      const el = have.get(n.dataset.key);
      const where = spot(n, root, nextRoot);
      if (!where) { waiting = true; continue; }
      const [parent, after] = where;
      if (el) {
        const there = after ? after.nextElementSibling === el : parent.firstElementChild === el;
        if (!there) {
          if (held(el) || shiftsOut(el, hots) || shiftsIn(parent, after, hots)) waiting = true;
          else put(el, parent, after);
        }
        sync(el, n, hots);
      } else if (shiftsIn(parent, after, hots)) {
        waiting = true;
      } else {
        const fresh = document.importNode(n, true);
        put(fresh, parent, after);
        remember(fresh);
      }
    }
  }
  function apply() {
    clearTimeout(retry);
    if (!latest) return;
    waiting = false;
    syncParts(document.body, latest.body, hot());
    if (waiting) retry = setTimeout(apply, RETRY_MS);
  }

  // ---- fetching -----------------------------------------------------------------------------
  async function run() {
    timer = null;
    running = true;
    last = Date.now();
    try {
      const r = await fetch(location.href, { credentials: "same-origin" });
      if (!r.ok || r.redirected) return; // logged out, or gone: keep what is shown
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      if (doc.body.dataset.view !== document.body.dataset.view) return;
      latest = doc;
      apply();
    } catch (e) {
      // the dashboard away for a moment: the next message asks again
    } finally {
      running = false;
      if (again) { again = false; update(); }
    }
  }
  // something this page shows changed: fetch it again (at once, or GAP_MS after the last)
  function update() {
    if (running) { again = true; return; }
    if (timer) return;
    timer = setTimeout(run, Math.max(0, last + GAP_MS - Date.now()));
  }
  // the open alerts' count, as the server gave it (the live channel's messages carry it)
  function badge(count) {
    const b = document.getElementById("alert-count");
    if (b) b.textContent = count ? String(count) : "";
  }

  document.addEventListener("pointerdown", (ev) => { pressed = ev.target; }, true);
  const release = () => setTimeout(() => { pressed = null; }, 0); // after the click it makes
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  remember(document.body);
  window.mjrefLive = { update, badge };
})();
