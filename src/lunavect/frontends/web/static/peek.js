// The web panel's peek: a session's latest messages, a reply box and the permission answers, offered only when
// the server was started with --allow-peek and the link is a control one (the server checks both). Messages
// are drawn with textContent only: what a session says is never markup here.
const SIGNS = { prompt: "›", text: "●", tool: "⏺", error: "✗", compaction: "⟳", task: "◆" };
const POLL_MS = 1500;
let open = null; // { row, timer, marks: Map(place -> mark), start, older }

const $ = (id) => document.getElementById(id);
const path = (id, what) => `/api/sessions/${encodeURIComponent(id)}/${what}`;

function line(message) {
  const li = document.createElement("li");
  li.className = `peek-msg peek-${message.kind}`;
  li.dataset.place = message.place;
  fill(li, message);
  return li;
}

function fill(li, message) {
  const head = message.kind === "tool" ? `${message.tool || "tool"}  ${message.text || ""}` : message.text || "";
  const lines = [`${SIGNS[message.kind] || "·"} ${head}`];
  if (message.result != null) lines.push(`  ⎿ ${message.failed ? "error: " : ""}${message.result.split("\n")[0]}`);
  li.textContent = lines.join("\n");
}

async function load(post, before) {
  const body = before ? { last: 50, before } : { last: 50 };
  return post(path(open.row.id, "messages"), body);
}

function draw(answer, before) {
  const list = $("peek-list");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  const first = list.firstElementChild;
  for (const message of answer.messages) {
    const known = open.marks.get(message.place);
    if (known === message.mark) continue; // only a changed or new message is drawn again
    open.marks.set(message.place, message.mark);
    const there = list.querySelector(`li[data-place="${CSS.escape(message.place)}"]`);
    if (there) fill(there, message);
    else if (before && first) list.insertBefore(line(message), first);
    else list.append(line(message));
  }
  if (before) { open.older = answer.older ? answer.start : null; }
  else if (open.start == null) { open.start = answer.start; open.older = answer.older ? answer.start : null; }
  if (atEnd && !before) list.scrollTop = list.scrollHeight;
  $("peek-older").disabled = !open.older;
}

export async function openPeek(row, post, say) {
  closePeek();
  const pane = $("peek");
  open = { row, timer: null, marks: new Map(), start: null, older: null };
  $("peek-list").replaceChildren();
  showRow(row);
  pane.hidden = false;
  const first = await load(post);
  if (!first || !open) { closePeek(); return; }
  draw(first, false);
  open.timer = setInterval(async () => {
    if (!open) return;
    const answer = await load(post);
    if (answer && open) draw(answer, false);
  }, POLL_MS);
  $("peek-reply").focus();
  pane.onsubmit = async (event) => {
    event.preventDefault();
    const text = $("peek-reply").value;
    if (!text.trim() || !open) return;
    const answer = await post(path(open.row.id, "reply"), { text });
    if (answer) { say(answer.message); $("peek-reply").value = ""; }
  };
  $("peek-older").onclick = async () => {
    if (!open || !open.older) return;
    const answer = await load(post, open.older);
    if (answer && open) draw(answer, true);
  };
  for (const b of pane.querySelectorAll("[data-answer]")) {
    b.onclick = async () => {
      if (!open) return;
      const answer = await post(path(open.row.id, "answer"), { choice: b.dataset.answer });
      if (answer) say(answer.message);
    };
  }
  $("peek-close").onclick = closePeek;
}

// What the peek says of its row, from the live row: the answers only while a permission waits.
function showRow(row) {
  $("peek-title").textContent = `${row.title} · ${row.label}`;
  $("peek-answers").hidden = row.state !== "permission";
}

// The list changed: the peek follows its row (a prompt answered in the pane, the session moved on), and a row
// that left the list waits for nothing here.
export function followPeek(rows) {
  if (!open) return;
  const row = rows.find((r) => r.id === open.row.id);
  if (row) open.row = row;
  showRow(row || { ...open.row, state: "gone", label: "no longer listed" });
}

export function closePeek() {
  if (open && open.timer) clearInterval(open.timer);
  open = null;
  const pane = $("peek");
  if (pane) pane.hidden = true;
}
