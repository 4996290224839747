// lunavect's web panel: the live list from the server's event stream, laid out, filtered and arranged.
// The server says every word of a row (the same words as the terminal panel); this file lays them out,
// ticks the timers, filters, and sends the person's arrangements back (the server checks every one).
import { bindInput } from "./input.js";

const $ = (id) => document.getElementById(id);
const list = $("sessions");
const FILTER_KEY = "lunavect.filter";
const state = {
  doc: null,          // the last list from the server
  offset: 0,          // server clock minus ours, in ms
  me: { role: "view", can_open: false, can_peek: false, host: "" },
  filter: { search: "", provider: "all", active: false, awaiting: false },
  view: "main",       // or "hidden"
  focused: null,      // id of the focused row
  drag: null,
};

// -- the token leaves the address bar at once: the cookie carries it from now on --------------------------
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname + location.hash);
}
// A push's link names a session's row (`#session=ID`, notify/push.py): focused once the list first arrives.
let wantedRow = new URLSearchParams(location.hash.slice(1)).get("session");

try {
  const saved = JSON.parse(localStorage.getItem(FILTER_KEY) || "{}");
  Object.assign(state.filter, saved);
} catch (e) { /* a damaged saved filter gives the default */ }

// -- words -----------------------------------------------------------------------------------------------
function elapsed(seconds) {
  seconds = Math.max(0, Math.floor(seconds));
  const two = (n) => String(n).padStart(2, "0");
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${two(seconds % 60)}s`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${two(Math.floor(seconds % 3600 / 60))}m`;
  return `${Math.floor(seconds / 86400)}d ${two(Math.floor(seconds % 86400 / 3600))}h`;
}
// How long ago, to the unit that matters at that distance (core/times.age): now, 3 min, 2 h, 5 d.
function age(seconds) {
  seconds = Math.max(0, Math.floor(seconds));
  if (seconds < 60) return "now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.min(Math.floor(seconds / 86400), 9999)} d`;
}
// Open or ended, and since when (frontends/rows.presence): "open · 3 min ago", "ended · 5 d ago".
function presenceText(row) {
  const word = row.open ? "open" : "ended";
  if (row.last_active == null) return word;
  const when = age((Date.now() + state.offset - row.last_active) / 1000);
  return `${word} · ${when === "now" ? "just now" : `${when} ago`}`;
}
const timerText = (row) => (row.since == null ? "" : elapsed((Date.now() + state.offset - row.since) / 1000));
// Each client's button names it, as the server wrote one per client it knows (assets.py), in the descriptors' order.
const clientButtons = [...document.querySelectorAll("[data-provider]")].filter((b) => b.dataset.provider !== "all");
const clientOrder = clientButtons.map((b) => b.dataset.provider);
// A kept filter of a client this server does not know gives All (it would hide every row with no way back).
if (!clientOrder.includes(state.filter.provider)) state.filter.provider = "all";
const clientLabels = new Map(clientButtons.map((b) => [b.dataset.provider, b.textContent]));
const clientName = (p) => clientLabels.get(p) || p;
const clientNames = (() => {
  const names = clientButtons.map((b) => b.dataset.name);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
})();
const name = (row) => `“${row.title}”`;

// -- which rows ------------------------------------------------------------------------------------------
function matches(row) {
  const f = state.filter;
  if (f.provider !== "all" && row.provider !== f.provider) return false;
  if (f.awaiting && !row.awaiting) return false;
  if (f.active && !row.active) return false;
  const words = f.search.trim().toLocaleLowerCase().split(/\s+/).filter(Boolean);
  const hay = `${row.title}\n${row.project || ""}`.toLocaleLowerCase();
  return words.every((w) => hay.includes(w));
}
const all = () => (state.doc ? state.doc.sessions : []);
const current = () => all().filter((r) => !r.hidden);
const hidden = () => all().filter((r) => r.hidden);
const visible = () => (state.view === "hidden" ? hidden() : current().filter(matches));
const byId = (id) => all().find((r) => r.id === id);
// The client filter's choices, as the terminal panel's (tui/filters.provider_choices): all, then each client
// with a row in the list (hidden ones too) and the chosen one even without, in the descriptors' order; none at
// all while one client alone has rows and All is chosen.
function clientChoices() {
  const listed = new Set(all().map((r) => r.provider));
  const chosen = state.filter.provider;
  const shown = clientOrder.filter((p) => listed.has(p) || p === chosen);
  return shown.length < 2 && chosen === "all" ? [] : ["all", ...shown];
}
const canChange = () => state.me.role === "control";

// -- messages --------------------------------------------------------------------------------------------
function say(text, undo = false) {
  $("message-text").textContent = text;
  $("message").hidden = !text;
  $("undo").hidden = !undo;
}

// -- drawing ---------------------------------------------------------------------------------------------
function button(cls, label, title) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = label;
  if (title) b.title = title;
  b.tabIndex = -1;
  return b;
}

function makeRow(id) {
  const li = document.createElement("li");
  li.className = "row";
  li.dataset.id = id;
  li.tabIndex = -1;
  li.innerHTML =
    '<span class="grip" aria-hidden="true" title="Drag to reorder">⋮⋮</span>' +
    '<div class="main"><div class="title"><span class="pin-mark" aria-label="pinned">⚑</span><span class="title-text"></span></div>' +
    '<div class="meta"><span class="where"></span> · <span class="presence"></span></div></div>' +
    '<div class="status"><span class="state"></span><span class="capsule"></span><span class="timer"></span></div>' +
    '<div class="actions"></div>';
  return li;
}

function fillRow(li, row) {
  const sig = JSON.stringify([row, state.view, state.me.role, state.me.can_open]);
  if (li.dataset.sig === sig) return;
  li.dataset.sig = sig;
  li.dataset.state = row.state;
  li.dataset.tone = row.tone;
  li.classList.toggle("pinned", row.pinned);
  li.classList.toggle("ended", !row.open);
  li.querySelector(".title-text").textContent = row.title;
  const meta = [row.project || "no project", clientName(row.provider)];
  if (row.host && row.host !== state.me.host) meta.push(row.host);
  li.querySelector(".where").textContent = meta.join(" · ");
  li.querySelector(".presence").textContent = presenceText(row);
  li.querySelector(".state").textContent = row.label;
  const capsule = li.querySelector(".capsule");
  capsule.textContent = row.background ? String(row.background) : "";
  capsule.hidden = !row.background;
  capsule.title = row.background_detail;
  li.querySelector(".timer").textContent = timerText(row);
  li.title = [
    row.label,
    row.background_detail ? `Background: ${row.background_detail}` : "",
    row.usage,
    row.cannot_report,
    row.id,
  ].filter(Boolean).join("\n");
  const actions = li.querySelector(".actions");
  actions.replaceChildren();
  if (canChange()) {
    if (state.view === "hidden") {
      actions.append(button("act-restore", "Restore", "Restore to the list"));
    } else {
      actions.append(button("act-pin", row.pinned ? "Unpin" : "Pin", "Pin (p)"));
      actions.append(button("act-hide", "Hide", "Hide (Delete)"));
    }
  }
  actions.append(button("act-menu", "⋯", "Menu (m)"));
  li.querySelector(".grip").hidden = !canChange() || state.view === "hidden";
}

// The peek, once opened (loaded on demand): each new list reaches it, so that it follows its row.
let peekView = null;

function render() {
  const doc = state.doc;
  if (!doc) return;
  if (peekView) peekView.followPeek(all());
  // The counters in every surface's words and marks (the server's: core/state_words.py).
  const counters = doc.counters || {};
  $("working").textContent = counters.working || `${doc.working} working`;
  const awaiting = $("awaiting");
  awaiting.textContent = counters.awaiting_input || `${doc.awaiting_input} awaiting input`;
  $("errors").textContent = counters.errors || "";
  $("errors").hidden = !doc.errors;
  awaiting.setAttribute("aria-pressed", String(state.filter.awaiting));
  awaiting.classList.toggle("some", doc.awaiting_input > 0);
  showClients();
  $("active").setAttribute("aria-pressed", String(state.filter.active));
  const windows = doc.limits || [];
  const limits = $("limits");
  if (limits.dataset.sig !== JSON.stringify(windows)) {
    limits.dataset.sig = JSON.stringify(windows);
    limits.replaceChildren(...windows.map((line) => { const li = document.createElement("li"); li.textContent = line; return li; }));
  }
  limits.hidden = !windows.length;
  showUsageDays(doc.usage_days || []);
  showWindowFills(doc.window_fills || [], doc.at || Date.now());
  $("usage-chart").hidden = !(doc.usage_days || []).length && !(doc.window_fills || []).length;
  const nHidden = hidden().length;
  $("hidden-view").textContent = nHidden ? `Hidden ${nHidden}` : "Hidden";
  $("hidden-view").setAttribute("aria-pressed", String(state.view === "hidden"));
  $("view-title").hidden = state.view !== "hidden";
  $("toolbar").classList.toggle("in-hidden", state.view === "hidden");

  const rows = visible();
  const existing = new Map([...list.children].map((li) => [li.dataset.id, li]));
  let cursor = list.firstElementChild;
  for (const row of rows) {
    let li = existing.get(row.id);
    existing.delete(row.id);
    if (!li) li = makeRow(row.id);
    fillRow(li, row);
    if (li !== cursor) list.insertBefore(li, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const li of existing.values()) li.remove();
  if (state.focused && !rows.some((r) => r.id === state.focused)) state.focused = null;
  markFocus();

  const empty = $("empty");
  empty.textContent = emptyText(rows);
  empty.hidden = rows.length > 0;
  list.hidden = rows.length === 0;
}

// The client buttons of the choices while they fit the bar's line beside Active and Hidden; past that, one
// compact choice (a drop-down) of the same, so that a phone's page never grows wider than its screen.
// Tokens per day of the last two weeks as bars, each client its colour (the document's usage_days: the colours are
// lunavect's own, the names the clients'); the widest day fills the track. Drawn again only when they change.
function showUsageDays(days) {
  const chart = $("usage-days");
  const sig = JSON.stringify(days);
  if (chart.dataset.sig === sig) return;
  chart.dataset.sig = sig;
  const widest = Math.max(0, ...days.map((d) => d.tokens));
  const seen = new Map();
  $("usage-days").replaceChildren(...days.map((d) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = d.day;
    const track = document.createElement("span");
    track.className = "track";
    track.setAttribute("aria-hidden", "true");
    for (const [name, colour, tokens] of d.parts) {
      seen.set(name, colour);
      const part = document.createElement("span");
      part.className = "part";
      part.style.width = `${widest ? (100 * tokens) / widest : 0}%`;
      part.style.background = colour;
      part.title = `${name}: ${tokens.toLocaleString()} tokens`;
      track.append(part);
    }
    const total = document.createElement("span");
    total.className = "total";
    total.textContent = d.total || "—";
    li.title = d.parts.map(([name, , tokens]) => `${name} ${tokens.toLocaleString()}`).join(", ");
    li.append(label, track, total);
    return li;
  }));
  $("usage-legend").replaceChildren(...[...seen].flatMap(([name, colour], i) => {
    const key = document.createElement("span");
    key.className = "key";
    key.style.background = colour;
    return [...(i ? [document.createTextNode(" ")] : []), key, document.createTextNode(name)];
  }));
}

// Each rate-limit window: its fill now as a bar, and beside it its figures of the last two hours as a line (up to
// the highest of them, as the terminal panel draws it), so how fast it fills shows at a glance; under them what
// `lunavect usage` says of it, and the lowest and highest figures of the line.
const SVG = "http://www.w3.org/2000/svg";
const SPAN_MS = 2 * 3600 * 1000;
function showWindowFills(fills, at) {
  const list = $("usage-windows");
  const sig = JSON.stringify(fills);
  if (list.dataset.sig === sig) return;
  list.dataset.sig = sig;
  list.replaceChildren(...fills.map((w) => {
    const li = document.createElement("li");
    li.classList.toggle("stale", w.stale);
    const label = document.createElement("span");
    label.textContent = w.label;
    const track = document.createElement("span");
    track.className = "track";
    const fill = document.createElement("span");
    fill.className = "fill";
    fill.style.width = `${Math.min(100, Math.max(0, w.used))}%`;
    fill.style.background = w.colour;
    fill.style.display = "block";
    track.append(fill);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("aria-hidden", "true");
    const line = document.createElementNS(SVG, "polyline");
    const start = at - SPAN_MS;
    const shown = w.points.filter(([when]) => when * 1000 >= start - SPAN_MS).map(([, used]) => used);
    const high = Math.max(...shown, 0) || 1;
    const xy = [];
    for (const [when, used] of w.points) {
      const x = Math.min(100, Math.max(0, ((when * 1000 - start) / SPAN_MS) * 100));
      if (xy.length) xy.push(`${x},${xy[xy.length - 1].split(",")[1]}`); // the figure held until this one
      xy.push(`${x},${100 - (100 * Math.min(high, Math.max(0, used))) / high}`);
    }
    if (xy.length) xy.push(`100,${xy[xy.length - 1].split(",")[1]}`);
    line.setAttribute("points", xy.join(" "));
    line.style.stroke = w.colour;
    svg.append(line);
    const words = document.createElement("span");
    words.className = "words";
    words.textContent = w.words + (shown.length > 1 ? ` · the last 2 h: ${Math.round(Math.min(...shown))} % → ${Math.round(high)} %` : "");
    li.append(label, track, svg, words);
    return li;
  }));
}

function showClients() {
  const choices = clientChoices();
  const chosen = state.filter.provider;
  const group = document.querySelector(".segmented");
  const select = $("client-choice");
  for (const b of group.querySelectorAll("[data-provider]")) {
    b.hidden = !choices.includes(b.dataset.provider);
    b.setAttribute("aria-pressed", String(b.dataset.provider === chosen));
  }
  if (select.dataset.sig !== choices.join(" ")) {
    select.dataset.sig = choices.join(" ");
    select.replaceChildren(...choices.map((p) => new Option(p === "all" ? "All clients" : clientName(p), p)));
  }
  select.value = chosen;
  select.classList.toggle("chosen", chosen !== "all");
  group.hidden = !choices.length;
  select.hidden = true;
  if (!choices.length || state.view === "hidden") return;
  const others = [$("active"), $("hidden-view")].reduce((sum, b) => sum + b.offsetWidth + 6, 0);  // 6: the bar's gap
  if (group.offsetWidth + others > $("toolbar").clientWidth) {
    group.hidden = true;
    select.hidden = false;
  }
}

function emptyText(rows) {
  if (rows.length) return "";
  if (state.view === "hidden") return "No hidden sessions.";
  if (!all().length) {
    return `No sessions yet. Install the hooks on this machine (lunavect hooks install), then use ${clientNames} as usual.`;
  }
  const f = state.filter;
  const what = [];
  if (f.awaiting) what.push("awaiting input");
  if (f.active) what.push("active");
  if (f.provider !== "all") what.push(clientName(f.provider));
  if (f.search.trim()) what.push(`matching “${f.search.trim()}”`);
  const shown = current().length;
  if (what.length && shown) return `No session is ${what.join(", ")}. ${shown} in the list without this filter.`;
  return `No sessions in the list. ${hidden().length} hidden: press h to review them.`;
}

function tick() {
  for (const li of list.children) {
    const row = byId(li.dataset.id);
    if (!row) continue;
    if (row.since != null) li.querySelector(".timer").textContent = timerText(row);
    const presence = li.querySelector(".presence");
    const words = presenceText(row);
    if (presence.textContent !== words) presence.textContent = words;
  }
}

// -- focus -----------------------------------------------------------------------------------------------
function markFocus() {
  for (const li of list.children) {
    const on = li.dataset.id === state.focused;
    li.classList.toggle("focused", on);
    li.setAttribute("aria-selected", String(on));
  }
}
function focusRow(id) {
  state.focused = id;
  markFocus();
  const li = id && list.querySelector(`li[data-id="${CSS.escape(id)}"]`);
  if (li) { li.focus({ preventScroll: true }); li.scrollIntoView({ block: "nearest" }); }
}
function stepFocus(step) {
  const rows = visible();
  if (!rows.length) return;
  const i = rows.findIndex((r) => r.id === state.focused);
  if (i < 0) { focusRow(rows[step > 0 ? 0 : rows.length - 1].id); return; }
  if (i + step < 0) { state.focused = null; markFocus(); if (state.view === "main") $("search").focus(); return; }
  focusRow(rows[Math.min(rows.length - 1, i + step)].id);
}

// -- talking to the server -------------------------------------------------------------------------------
async function post(path, body = {}) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch (e) {
    say("The panel's server cannot be reached.");
    return null;
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    say(answer.error || `The server refused (${response.status}).`);
    return null;
  }
  return answer;
}
const rowPath = (id, action) => `/api/sessions/${encodeURIComponent(id)}/${action}`;

async function act(action, row) {
  if (!row) return;
  if (action === "copy") { copy(row.resume); return; }
  if (!canChange()) { say("This link is view-only: it cannot change the list."); return; }
  if (action === "pin") {
    const unpin = row.pinned;
    if (await post(rowPath(row.id, unpin ? "unpin" : "pin"))) say(`${unpin ? "Unpinned" : "Pinned"} ${name(row)}.`);
  } else if (action === "hide") {
    const answer = await post(rowPath(row.id, "hide"));
    if (answer && answer.changed) say(`Hid ${name(row)}. Its work goes on.`, true);
  } else if (action === "dismiss" || action === "undismiss") {
    const answer = await post(rowPath(row.id, action));
    if (answer) say(action === "dismiss" ? `Dismissed ${name(row)}: it needs you again at its next reply or error.` : `${name(row)} needs you again.`);
  } else if (action === "restore") {
    if (await post(rowPath(row.id, "unhide"))) say(`Restored ${name(row)} to the list.`);
  } else if (action === "open") {
    if (!state.me.can_open) { copy(row.resume, "Open works in a browser on the session's own machine."); return; }
    say(`Opening ${name(row)}…`);
    const answer = await post(rowPath(row.id, "open"));
    if (answer) say(answer.message ? answer.message[0].toUpperCase() + answer.message.slice(1) : "Done.");
  } else if (action === "up" || action === "down") {
    moveBy(row, action === "up" ? -1 : 1);
  } else if (action === "peek") {
    import("./peek.js").then((peek) => { peekView = peek; peek.openPeek(row, post, say); });
  }
}

// The session that needs the person most, opened as "open" opens it (the server chooses, as `lunavect next`).
async function openNext() {
  if (!canChange()) { say("This link is view-only: it cannot open a session."); return; }
  say("Opening the session that needs you most…");
  const answer = await post("/api/next");
  if (!answer) return;
  const words = answer.message ? answer.message[0].toUpperCase() + answer.message.slice(1) : "Done.";
  say(`“${answer.title || answer.id}”: ${words}`);
  if (byId(answer.id)) focusRow(answer.id);
}

async function moveBy(row, step) {
  const rows = visible();
  const i = rows.findIndex((r) => r.id === row.id);
  const other = rows[i + step];
  if (i < 0 || !other || other.pinned !== row.pinned) return;
  await move(row.id, other.id, step < 0 ? "before" : "after");
}
async function move(id, target, where) {
  if (id === target) return;
  const answer = await post(rowPath(id, "move"), { [where]: target });
  if (answer && answer.message) say(answer.message);  // and when the row will move again
}

async function undo() {
  if (!canChange()) return;
  const answer = await post("/api/undo");
  if (answer && answer.restored) {
    const row = byId(answer.restored);
    say(`Restored ${row ? name(row) : answer.restored}.`);
    state.focused = answer.restored;
  } else if (answer) {
    say("Nothing to undo.");
  }
}

function copy(text, prefix = "") {
  const lead = prefix ? `${prefix} ` : "";
  if (!text) { say(`${lead}No resume command is known for this session.`); return; }
  const done = () => say(`${lead}Copied: ${text}`);
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => say(`${lead}Resume command: ${text}`));
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  area.remove();
  if (ok) done(); else say(`${lead}Resume command: ${text}`);
}

// -- the row menu ----------------------------------------------------------------------------------------
function openMenu(row, anchor) {
  const menu = $("menu");
  menu.replaceChildren();
  const items = [];
  if (state.view === "hidden") {
    if (canChange()) items.push(["restore", "Restore to the list"]);
  } else {
    items.push(["open", state.me.can_open ? "Open" : "Open (copies the resume command)"]);
    if (state.me.can_peek) items.push(["peek", "Peek and reply"]);
    if (canChange()) {
      items.push(["pin", row.pinned ? "Unpin" : "Pin"], ["hide", "Hide"]);
      if (row.dismissable) items.push([row.dismissed ? "undismiss" : "dismiss", row.dismissed ? "Needs me again" : "Dismiss (seen)"]);
      items.push(["up", "Move up"], ["down", "Move down"]);
    }
  }
  items.push(["copy", "Copy the resume command"]);
  for (const [action, label] of items) {
    const b = button("menu-item", label);
    b.setAttribute("role", "menuitem");
    b.dataset.action = action;
    b.addEventListener("click", () => { closeMenu(); act(action, row); });
    menu.append(b);
  }
  menu.dataset.id = row.id;
  menu.hidden = false;
  const rect = anchor.getBoundingClientRect();
  const top = Math.min(rect.bottom + window.scrollY, window.scrollY + window.innerHeight - menu.offsetHeight - 8);
  menu.style.top = `${Math.max(window.scrollY + 8, top)}px`;
  menu.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - menu.offsetWidth - 8))}px`;
  menu.firstElementChild.focus();
}
function closeMenu() {
  const menu = $("menu");
  if (menu.hidden) return false;
  menu.hidden = true;
  focusRow(state.focused);
  return true;
}

// -- the person's input ----------------------------------------------------------------------------------
function setFilter(change) {
  Object.assign(state.filter, change);
  localStorage.setItem(FILTER_KEY, JSON.stringify(state.filter));
  render();
}
function toggleHidden() {
  state.view = state.view === "hidden" ? "main" : "hidden";
  state.focused = null;
  render();
}

bindInput({
  $, list, state, byId, visible, act, moveBy, move, undo, stepFocus, focusRow, markFocus, openMenu, closeMenu,
  setFilter, toggleHidden, canChange, openNext, clientChoices,
});
window.addEventListener("resize", showClients);

// -- the live list ---------------------------------------------------------------------------------------
function live(on, text) {
  const dot = $("live");
  dot.classList.toggle("on", on);
  dot.title = text;
  dot.setAttribute("aria-label", text);
}
function receive(text) {
  state.doc = JSON.parse(text);
  state.offset = state.doc.at - Date.now();
  document.body.dataset.loaded = "1";
  render();
  if (wantedRow) {
    focusRow(wantedRow);
    wantedRow = null;
  }
}
function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => live(true, "Live"));
  source.addEventListener("sessions", (e) => receive(e.data));
  source.addEventListener("revoked", () => {
    source.close();
    live(false, "Revoked");
    say("This link's token was revoked: open a new link from `lunavect web tokens new`.");
  });
  source.addEventListener("replaced", () => {
    // Newer pages opened with this link took its place (a link keeps a few live pages at once).
    source.close();
    live(false, "Paused");
    say("This link is live in newer pages now; reload this one to follow the list here.");
  });
  source.addEventListener("error", () => {
    live(false, "Reconnecting…");
    if (source.readyState === EventSource.CLOSED) {
      say("The panel lost its server or its token; reload the page or open a new link.");
    }
  });
}

fetch("/api/me", { credentials: "same-origin" })
  .then((r) => (r.ok ? r.json() : Promise.reject(r)))
  .then((me) => {
    state.me = me;
    document.body.dataset.role = me.role;
    $("next").hidden = me.role !== "control";
    if (me.role !== "control") say("View only: this link shows the list but cannot change it.");
    render();
  })
  .catch(() => say("This page needs a valid link: run `lunavect web tokens new` on the machine that serves it."));
connect();
setInterval(tick, 1000);
