// chunkviz class room (ui/components/room/): one EventSource per page on /_room/stream follows the room; the bar
// (teacher: the students' link; student: follow / explore on my own), a student's vote, the teacher's live tally.
// Window events, so the steppers need no knowledge of rooms (comparison.js, stage_player.js hook them):
//   cv:cursor       {key, cursor, playing, revealed}  a stepper drew its cursor (the teacher's page posts it)
//   cv:room-cursor  {key, cursor, revealed}           a follower's stepper moves there (cursor null: reveal only)
// Invariant: a student's page never posts the cursor or the reveal (the server would refuse: 403); it applies the
// teacher's position only while attached; the teacher's page posts at most ~16 moves a second, 4 while playing.

const ROOM = (window.__cvRoom = window.__cvRoom || { es: null, id: "", state: null, subs: new Set(), d: null,
  attached: true, lastPost: 0, inflight: false, pending: null, sent: "", revealSent: "", lastCursor: null,
  navigatedTo: "", retries: 0 });

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function fill(template, fields) {
  return String(template).replace(/\{(\w+)\}/g, (_, k) => (k in fields ? fields[k] : "{" + k + "}"));
}

const endpoint = (path) => new URL(path, window.location.origin).toString();

function post(path, body) {
  return fetch(endpoint(path), { method: "POST", headers: { "Content-Type": "application/json" },
                                 body: JSON.stringify(body) })
    .then((r) => r.json().then((j) => ({ status: r.status, body: j })))
    .catch(() => ({ status: 0, body: {} }));
}

function notify() { ROOM.subs.forEach((fn) => fn(ROOM.state)); }

function slugHere() { return window.location.pathname.split("/").filter(Boolean).pop() || ""; }

function connect(d) {
  const id = d.room + "|" + (d.key || "");
  ROOM.d = d;
  if (ROOM.id === id && ROOM.es) return;
  if (ROOM.es) ROOM.es.close();
  ROOM.id = id; ROOM.state = null;
  ROOM.attached = d.role === "teacher" || sessionStorage.getItem("cvRoomDetached:" + d.room) !== "1";
  const q = "room=" + encodeURIComponent(d.room) + (d.key ? "&key=" + encodeURIComponent(d.key) : "");
  const es = new EventSource(endpoint("/_room/stream?" + q));
  ROOM.es = es;
  es.onmessage = (ev) => { ROOM.lost = false; ROOM.retries = 0; ROOM.state = JSON.parse(ev.data); follow(); notify(); };
  es.onerror = () => {
    ROOM.lost = true; notify();
    // Closed for good (an HTTP refusal, e.g. no such room yet): try again a little later, at most 120 times.
    if (es.readyState === 2 && ROOM.es === es && ROOM.retries++ < 120) {
      setTimeout(() => { if (ROOM.es === es) { ROOM.es = null; connect(ROOM.d); } }, 5000);
    }
  };
}

// What a follower does with the room's state: the teacher's chapter, then its cursor and the reveal.
function follow() {
  const s = ROOM.state, d = ROOM.d;
  if (!s || !d) return;
  const q = s.question, revealed = !!(q && q.revealed);
  if (d.role === "student" && ROOM.attached && s.chapter && s.chapter !== slugHere() && ROOM.navigatedTo !== s.chapter) {
    ROOM.navigatedTo = s.chapter;  // once per chapter: a page that cannot load it does not loop
    const u = new URL(window.location.href), keep = new URLSearchParams();
    keep.set("room", d.room);
    ["lang", "present"].forEach((p) => { if (u.searchParams.has(p)) keep.set(p, u.searchParams.get(p)); });
    u.pathname = u.pathname.replace(/[^/]*$/, s.chapter); u.search = "?" + keep.toString();
    window.location.assign(u.toString());
    return;
  }
  const detail = { key: s.element, revealed,
                   cursor: d.role === "student" && ROOM.attached && s.cursor != null ? s.cursor : null };
  ROOM.lastCursor = detail;
  window.dispatchEvent(new CustomEvent("cv:room-cursor", { detail }));
}

// The teacher's page: every drawn cursor, coalesced (the latest wins), posted when the last post has returned.
function onCursor(ev) {
  const d = ROOM.d;
  if (!d || d.role !== "teacher") return;
  ROOM.pending = ev.detail; flush();
}

function flush() {
  const d = ROOM.d, p = ROOM.pending;
  if (!d || !p || ROOM.inflight) return;
  const wait = ROOM.lastPost + (p.playing ? 250 : 60) - performance.now();
  if (wait > 0) { clearTimeout(ROOM.timer); ROOM.timer = setTimeout(flush, wait); return; }
  ROOM.pending = null;
  const q = ROOM.state && ROOM.state.question;
  if (p.revealed && q && !q.revealed && ROOM.revealSent !== q.qid) {  // a clicker's PageDown at the question
    ROOM.revealSent = q.qid; post("/_room/reveal", { room: d.room, key: d.key, question: q.qid });
  }
  const sig = `${p.key}|${Math.round(p.cursor * 1000)}|${p.playing}`;
  if (sig === ROOM.sent) return;
  ROOM.sent = sig; ROOM.inflight = true; ROOM.lastPost = performance.now();
  post("/_room/teacher", { room: d.room, key: d.key, element: p.key, cursor: Math.max(0, +p.cursor || 0), playing: !!p.playing })
    .finally(() => { ROOM.inflight = false; flush(); });
}

if (!window.__cvRoomWired) {
  window.__cvRoomWired = true;
  window.addEventListener("cv:cursor", onCursor);
  window.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || !document.querySelector(".cv-room .qr")) return;
    const hide = ROOM.hideQr; ROOM.hideQr = null; if (hide) hide();
  });
}

function setAttached(on) {
  const d = ROOM.d;
  ROOM.attached = on;
  if (on) { sessionStorage.removeItem("cvRoomDetached:" + d.room); ROOM.navigatedTo = ""; follow(); }
  else sessionStorage.setItem("cvRoomDetached:" + d.room, "1");
  notify();
}

// The teacher's QR code of the students' link (an SVG drawn by qr.py from the server's own encoder, no user text),
// large enough to scan from the back of a classroom. It floats over the slide's top right corner instead of taking
// the bar's height (a 264 px code in the bar pushed the slide ~270 px down a 720 px screen), so the slide's layout is
// the same with it shown or hidden; a click on it, its button or Escape hides it (kept per tab and room).
function qrFigure(d, parts) {
  const T = d.text, k = "cvRoomQrHidden:" + d.room, hidden = sessionStorage.getItem(k) === "1";
  if (d.qr_note) parts.push(el("span", "muted", d.qr_note));
  if (!d.qr) return null;
  const b = el("button", "qr-toggle", hidden ? T.qr_show : T.qr_hide);
  b.onclick = () => { if (hidden) sessionStorage.removeItem(k); else sessionStorage.setItem(k, "1"); notify(); };
  parts.push(b);
  if (hidden) return null;
  // One node per code, kept across the bar's redraws (each room message redraws the bar): the code never flickers
  // and a pointer on it stays on the same element.
  if (!ROOM.qrFig || ROOM.qrSvg !== d.qr) {
    ROOM.qrFig = el("div", "qr"); ROOM.qrFig.title = T.qr_alt; ROOM.qrFig.innerHTML = d.qr; ROOM.qrSvg = d.qr;
  }
  const fig = ROOM.qrFig;
  const hide = () => { sessionStorage.setItem(k, "1"); notify(); };
  fig.onclick = hide;
  ROOM.hideQr = hide;  // Escape (wired once below) hides the code shown now; other keys keep driving the slide
  return fig;
}

function bar(d, box) {
  const T = d.text;
  return () => {
    const s = ROOM.state, parts = [];
    let fig = null;
    box.dataset.role = d.role; box.dataset.attached = ROOM.attached ? "1" : "0";
    box.dataset.seq = s ? String(s.seq) : "";
    if (d.role === "teacher") {
      parts.push(el("b", "", fill(T.teacher, { code: d.room })));
      const link = d.link || endpoint("/?room=" + d.room);  // the server's link is the one its QR code encodes
      const big = el("span", "link"); big.appendChild(el("span", "muted", T.students_open + " "));
      big.appendChild(el("b", "url", link)); parts.push(big);
      fig = qrFigure(d, parts);
    } else {
      parts.push(el("b", "", fill(ROOM.attached ? T.following : T.detached, { code: d.room })));
      const b = el("button", ROOM.attached ? "detach" : "rejoin", ROOM.attached ? T.detach : T.rejoin);
      b.onclick = () => setAttached(!ROOM.attached); parts.push(b);
    }
    if (ROOM.lost) parts.push(el("span", "muted", T.lost));
    box.replaceChildren(...parts);
    if (fig) box.appendChild(fig);
  };
}

function optionButtons(d, box, choose, mine, enabled) {
  const row = el("div", "options");
  d.options.forEach((o) => {
    const b = el("button", "opt" + (mine === o ? " mine" : ""), d.labels[o] || o);
    b.dataset.option = o; b.disabled = !enabled; b.onclick = () => choose(o); row.appendChild(b);
  });
  return row;
}

// The class's tally, one row per option (the teacher's), or `compact`: all options on one line (a student's screen
// after the reveal, under its own verdict: three rows there squeezed the slide's stage to its smallest).
function tallyBars(d, q, T, compact = false) {
  const total = Object.values(q.tally || {}).reduce((a, b) => a + b, 0);
  const list = el("div", compact ? "bars compact" : "bars");
  d.options.forEach((o) => {
    const n = (q.tally || {})[o] || 0, share = total ? Math.round((100 * n) / total) : 0;
    const row = el("div", "bar-row" + (q.correct === o ? " correct" : ""));
    row.dataset.option = o; row.dataset.count = String(n); row.dataset.share = String(share);
    row.appendChild(el("span", "label", d.labels[o] || o));
    const track = el("span", "track"), fillBar = el("span", "fill"); fillBar.style.width = share + "%";
    track.appendChild(fillBar); row.appendChild(track);
    row.appendChild(el("span", "num", fill(T.share, { count: n, share })));
    list.appendChild(row);
  });
  return list;
}

// This tab's voter in a room: the first signed token it was given, kept in sessionStorage, so a page that comes
// back on another replica (a new session, a new token) still votes as itself — its vote is replaced, never doubled.
// A token the server no longer accepts (403: another teacher key) gives way to the page's own.
function voterOf(d) {
  const k = "cvVoter:" + d.room, kept = sessionStorage.getItem(k);
  if (kept) return kept;
  sessionStorage.setItem(k, d.voter);
  return d.voter;
}

function vote(d, box) {
  const T = d.text;
  let voter = voterOf(d);
  let mine = sessionStorage.getItem(`cvVote:${d.room}:${d.question}:${voter}`) || "", note = "";
  const choose = (o, again = true) => {
    post("/_room/vote", { room: d.room, voter, question: d.question, option: o }).then((r) => {
      if (r.status === 403 && again && voter !== d.voter) {
        voter = d.voter; sessionStorage.setItem("cvVoter:" + d.room, voter); choose(o, false); return;
      }
      if (r.status === 200) { mine = o; note = ""; sessionStorage.setItem(`cvVote:${d.room}:${d.question}:${voter}`, o); }
      else note = r.body.error || T.closed;
      render();
    });
  };
  const render = () => {
    const q = ROOM.state && ROOM.state.question, ours = q && q.qid === d.question;
    const revealed = ours && q.revealed;
    box.dataset.mine = mine; box.dataset.revealed = revealed ? "1" : "0";
    const parts = [optionButtons(d, box, choose, mine, ours && !revealed)];
    if (!ours) parts.push(el("div", "muted", ROOM.state ? T.other_question : ""));
    else if (!revealed) {
      parts.push(el("div", "muted", (mine ? fill(T.your_vote, { option: d.labels[mine] || mine }) + " · " : "") +
                    T.vote_help + " · " + fill(T.votes, { n: q.votes })));
    } else {
      const right = mine && mine === q.correct;
      const verdict = el("div", "verdict " + (right ? "right" : "wrong"),
                         right ? T.right : fill(T.wrong, { answer: d.labels[q.correct] || q.correct }));
      verdict.appendChild(el("div", "answer", (q.answer || {})[d.lang] || ""));
      parts.push(verdict, tallyBars(d, q, T, true));
    }
    if (note) parts.push(el("div", "muted", note));
    box.replaceChildren(...parts);
  };
  return render;
}

function tally(d, box, setTriggerValue) {
  const T = d.text;
  return () => {
    const q = ROOM.state && ROOM.state.question;
    if (!q || q.qid !== d.question) { box.replaceChildren(el("div", "muted", T.nobody)); return; }
    box.dataset.votes = String(q.votes); box.dataset.revealed = q.revealed ? "1" : "0";
    const head = el("div", "head");
    head.appendChild(el("b", "", T.tally_title + " · " + fill(T.votes, { n: q.votes })));
    if (!q.revealed) {
      const b = el("button", "reveal", T.reveal);
      b.onclick = () => { b.disabled = true; post("/_room/reveal", { room: d.room, key: d.key, question: q.qid }); };
      head.appendChild(b);
    } else head.appendChild(el("span", "done", fill(T.revealed, { answer: d.labels[q.correct] || q.correct })));
    box.replaceChildren(head, tallyBars(d, q, T));
    // Revealed: one rerun of the teacher's page, which then shows the simulator's answer under the question.
    // (once per question and page: d.revealed says the server has drawn it already)
    const told = `${d.room}:${q.qid}`;
    if (q.revealed && !d.revealed && ROOM.told !== told) { ROOM.told = told; if (setTriggerValue) setTriggerValue("revealed", q.qid); }
  };
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  connect(data);
  const box = el("div", "cv-room " + data.mode);
  // (Streamlit puts the component's stylesheet in parentElement: replace our own box only, never the whole content)
  parentElement.querySelectorAll(":scope > .cv-room").forEach((old) => old.remove());
  parentElement.appendChild(box);
  const render = data.mode === "bar" ? bar(data, box) : data.mode === "vote" ? vote(data, box)
    : tally(data, box, setTriggerValue);
  ROOM.subs.add(render);
  render();
  return () => { ROOM.subs.delete(render); box.remove(); };
}
