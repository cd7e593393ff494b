// chunkviz stage player: the controls every stepped lesson shares (first / prev / play / next / last, speed in
// steps per second, a scrub bar, bookmarks), the keys (← → Home End Space, and a clicker's PageDown / PageUp, B, F),
// the play loop and the cursor in the URL. A stage module is this file followed by its own code (ui/paging/stage.js,
// ui/attention_stage.js, ui/kv_stage.js): it builds a StagePlayer (or, the KV stage, its own controls) and draws in
// `draw(cursor)`. Nothing here talks to the server.
// Invariant: the cursor is an integer in [0, positions - 1]; play shows every position (at most one per frame),
// so a step is never skipped; the URL parameter is rewritten only while not playing.

const STAGE_STATE = (window.__cvStageState = window.__cvStageState || {});  // per key: survives re-mounts

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function fill(template, fields) {
  return String(template).replace(/\{(\w+)\}/g, (_, k) => (k in fields && fields[k] !== null ? fields[k] : "{" + k + "}"));
}

function fmtNum(v, digits) {
  return Number(v).toLocaleString("en-US", { minimumFractionDigits: digits || 0, maximumFractionDigits: digits || 0 });
}


// A presentation clicker (what the timeline does, ui/comparison.js): PageDown / PageUp go to the next / previous
// bookmark wherever the focus is, except in a field the learner types in; so do B (blank the stage: a black cover,
// B again shows it) and F (the whole page full screen, the slide as laid out for 1280×720; F again leaves).
function typingIn(target) {
  const tag = target && target.tagName;
  return tag === "TEXTAREA" || !!(target && target.isContentEditable) ||
    (tag === "INPUT" && !["radio", "checkbox", "range", "button"].includes(target.type));
}

function toggleFullscreen() {
  const page = document.documentElement;
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  else if (page.requestFullscreen) page.requestFullscreen().catch(() => {});
}

function toggleBlank(box) {
  const on = box.dataset.blank !== "1";
  box.classList.toggle("cv-blank", on); box.dataset.blank = on ? "1" : "0";
}

// The stop after (n > 0) or before (n < 0) `cursor` among `stops`; past the last one the end, before the first 0.
function stopFrom(stops, cursor, n, last) {
  const sorted = [...new Set(stops)].sort((a, b) => a - b);
  const next = n > 0 ? sorted.find((v) => v > cursor) : sorted.reverse().find((v) => v < cursor);
  return next !== undefined ? next : n > 0 ? last : 0;
}

// Handles a clicker key for a stage whose box is `box` (`stopBy(n)` moves between its bookmarks); true if it did.
function clickerKey(ev, box, stopBy) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || typingIn(ev.composedPath()[0])) return false;
  const fn = { PageDown: () => stopBy(1), PageUp: () => stopBy(-1), b: () => toggleBlank(box), B: () => toggleBlank(box),
               f: toggleFullscreen, F: toggleFullscreen }[ev.key];
  if (!fn) return false;
  ev.preventDefault(); ev.stopPropagation(); fn(); return true;
}

function otherStageActive(key) {  // another stage or timeline on the page was clicked last: it takes the keys
  const active = window.__cvTimelineActive;
  return active !== undefined && active !== key && !!document.querySelector(".st-key-" + active);
}

// A stage's cursor and speed survive a re-mount (STAGE_STATE); when it is not playing, the cursor also goes into the
// URL a quarter second after the last move, so a shared link opens at the same step. Shared by StagePlayer and the KV
// stage, which keeps its own controls (`stage` has key, cursor, speed, playing and urlTimer).
function saveStage(stage, version) {
  STAGE_STATE[stage.key] = { version, cursor: stage.cursor, speed: stage.speed };
}

function saveStageUrlSoon(stage, version, urlParam) {
  saveStage(stage, version);
  clearTimeout(stage.urlTimer);
  if (stage.playing) return;
  stage.urlTimer = setTimeout(() => {
    const u = new URL(window.location.href);
    u.searchParams.set(urlParam, String(stage.cursor));
    window.history.replaceState(window.history.state, "", u.toString());
  }, 250);
}

class StagePlayer {
  // opts: key, version, positions, start, url_param, speeds (steps/s), default_speed (index), text {first, prev,
  // next, last, play, pause, speed, scrub, keys}, draw(cursor) -> readout text.
  constructor(root, opts) {
    this.o = opts; this.key = opts.key; this.root = root;
    const saved = STAGE_STATE[this.key] || {};
    const start = saved.cursor !== undefined ? saved.cursor : opts.start;
    this.cursor = this.clamp(start);
    this.speed = saved.speed ?? opts.default_speed;
    this.playing = false; this.acc = 0; this.last = 0;
    this.draws = 0; this.stepsShown = 0; this.dropped = 0; this.lastShown = null;
    this.box = el("div", "cv stage"); this.box.tabIndex = 0;
    this.box.addEventListener("pointerdown", () => { window.__cvTimelineActive = this.key; });
    this.box.appendChild(this.controls());
    this.marks = el("div", "marks"); this.box.appendChild(this.marks);
    this.body = el("div", "body"); this.box.appendChild(this.body);
    this.stops = [];  // the bookmarks' positions, where PageDown / PageUp go (none: they step by one)
    this.box.appendChild(el("div", "cv-cover", this.o.text.blank || ""));
    root.appendChild(this.box);
    // Never shrink: a step with a shorter text must not pull the page up (the buttons would move under the
    // pointer, and Streamlit would re-lay out the page on every step). Observed after layout, so a draw forces none.
    this.minHeight = 0;
    // The width is read here too (never in a draw, where reading it would force a layout on every step); a new
    // width redraws, since the stage fits its columns to it.
    this.width = 0;
    this.sizer = new ResizeObserver((entries) => {
      const box = entries[0].borderBoxSize?.[0], h = Math.ceil(box?.blockSize ?? this.box.offsetHeight);
      const w = Math.floor(box?.inlineSize ?? this.box.clientWidth);
      if (h > this.minHeight) { this.minHeight = h; this.box.style.minHeight = h + "px"; }
      if (w !== this.width) { this.width = w; this.draw(); }
    });
    this.sizer.observe(this.box);
  }

  t(name) { return this.o.text[name] || name; }

  resetHeight() { this.minHeight = 0; this.box.style.minHeight = ""; }  // a new layout (not a step) may shrink

  clamp(c) { return Math.min(Math.max(Math.round(Number(c) || 0), 0), this.o.positions - 1); }

  controls() {
    const bar = el("div", "bar");
    const btn = (label, title, fn, cls) => {
      const b = el("button", cls || "", label); b.title = title; b.setAttribute("aria-label", title);
      b.onclick = fn; bar.appendChild(b); return b;
    };
    btn("|◀", this.t("first"), () => this.jumpTo(0), "first");
    btn("◀", this.t("prev"), () => this.stepBy(-1), "prev");
    this.playBtn = btn(this.t("play"), this.t("play"), () => this.toggle(), "play");
    btn("▶", this.t("next"), () => this.stepBy(1), "next");
    btn("▶|", this.t("last"), () => this.jumpTo(this.o.positions - 1), "last");
    this.speedSel = el("select", "speed"); this.speedSel.title = this.t("speed");
    this.o.speeds.forEach((s, i) => { const o = el("option", "", fill(this.t("speed"), { n: s })); o.value = i; this.speedSel.appendChild(o); });
    this.speedSel.value = this.speed;
    this.speedSel.onchange = () => { this.speed = +this.speedSel.value; this.save(); };
    bar.appendChild(this.speedSel);
    this.readout = el("span", "readout"); bar.appendChild(this.readout);
    const wrap = el("div", "controls"); wrap.appendChild(bar);
    this.scrub = el("input", "scrub"); this.scrub.type = "range"; this.scrub.min = 0;
    this.scrub.max = this.o.positions - 1; this.scrub.step = 1; this.scrub.setAttribute("aria-label", this.t("scrub"));
    this.scrub.oninput = () => { this.pause(); this.cursor = this.clamp(this.scrub.value); this.draw(); this.saveUrlSoon(); };
    wrap.appendChild(this.scrub);
    return wrap;
  }

  // A bookmark: a button that runs `fn` (usually a jump); `cls` marks special ones for tests and styles.
  addMark(label, title, fn, cls) {
    const b = el("button", "mark" + (cls ? " " + cls : ""), label); b.title = title || label;
    b.onclick = () => { this.pause(); fn(); };
    this.marks.appendChild(b); return b;
  }

  save() { saveStage(this, this.o.version); }

  saveUrlSoon() { saveStageUrlSoon(this, this.o.version, this.o.url_param); }

  stopBy(n) {
    if (!this.stops.length) { this.stepBy(n); return; }
    this.jumpTo(stopFrom(this.stops, this.cursor, n, this.o.positions - 1));
  }

  get version() { return this.o.version; }

  resized() { this.draw(); }

  stepBy(n) { this.pause(); this.cursor = this.clamp(this.cursor + n); this.draw(); this.saveUrlSoon(); }

  jumpTo(c) { this.pause(); this.cursor = this.clamp(c); this.draw(); this.saveUrlSoon(); }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.cursor >= this.o.positions - 1) this.cursor = 0;
    this.playing = true; this.acc = 0; this.last = performance.now();
    this.playBtn.textContent = this.t("pause"); this.playBtn.classList.add("on");
    this.draw();
    const tick = (now) => {
      if (!this.playing) return;
      // At most one position per frame, so none is skipped; the remainder carries over, up to half a second of
      // steps, so after a slow frame the next frames catch up one step each and the rate stays the one chosen.
      const rate = this.o.speeds[this.speed];
      this.acc = Math.min(this.acc + (Math.min(now - this.last, 250) * rate) / 1000, Math.max(1.999, rate / 2));
      this.last = now;
      if (this.acc >= 1) { this.acc -= 1; this.cursor = this.clamp(this.cursor + 1); this.draw(); }
      if (this.cursor >= this.o.positions - 1) { this.pause(); return; }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  pause() {
    if (!this.playing) return;
    this.playing = false; cancelAnimationFrame(this.raf);
    this.playBtn.textContent = this.t("play"); this.playBtn.classList.remove("on");
    this.box.dataset.playing = "0";
    this.saveUrlSoon();
  }

  draw() {
    const text = this.o.draw(this.cursor);
    this.draws++;
    if (this.cursor !== this.lastShown) {
      if (this.playing && this.lastShown !== null && this.cursor > this.lastShown + 1) this.dropped += this.cursor - this.lastShown - 1;
      this.stepsShown++; this.lastShown = this.cursor;
    }
    this.scrub.value = this.cursor;
    this.readout.textContent = text;
    const ds = this.box.dataset;
    ds.cursor = this.cursor; ds.draws = this.draws; ds.stepsShown = this.stepsShown; ds.dropped = this.dropped;
    ds.playing = this.playing ? "1" : "0";
  }

  onKey(ev) {
    if (otherStageActive(this.key) || clickerKey(ev, this.box, (n) => this.stopBy(n))) return;
    const target = ev.composedPath()[0];
    const tag = target && target.tagName;
    const ours = this.box.contains(target);
    const role = target && target.getAttribute && target.getAttribute("role");
    if (tag === "SELECT") return;  // a speed menu keeps its arrow keys
    const widget = ["slider", "spinbutton", "listbox", "combobox", "option", "radio", "textbox", "tab"].includes(role);
    if (!ours && (widget || tag === "INPUT" || tag === "TEXTAREA" || (target && target.isContentEditable))) return;
    if (ours && tag === "INPUT" && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) { ev.preventDefault(); }
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.o.positions - 1), " ": () => this.toggle() };
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  destroy() { this.pause(); clearTimeout(this.urlTimer); this.sizer.disconnect(); this.save(); this.box.remove(); }
}

// Rooms (ui/components/room/room.js): each drawn cursor is announced as cv:cursor (a teacher's page posts it); a
// follower's stage obeys cv:room-cursor for its key. Wraps the stage's draw, so StagePlayer and KvStage alike.
// The element's own key (its container's class st-key-<key>, the same on every student's page; Streamlit's
// component key is per session). Bounded by the DOM's depth.
function elementKey(node, fallback) {
  for (let n = node, depth = 0; n && depth < 64; depth++) {
    const cls = n.classList && [...n.classList].find((c) => c.startsWith("st-key-"));
    if (cls) return cls.slice(7);
    n = n.parentElement || (n.getRootNode && n.getRootNode().host) || null;
  }
  return fallback;
}

function stageRoomHook(player, host, fallback) {
  const key = elementKey(host, fallback);
  const drawn = player.draw.bind(player);
  const announce = () => window.dispatchEvent(new CustomEvent("cv:cursor", { detail: {
    key, cursor: player.cursor, playing: !!player.playing, revealed: false } }));
  player.draw = (...args) => { const out = drawn(...args); announce(); return out; };
  const obey = (m) => { if (m && m.key === key && m.cursor != null && m.cursor !== player.cursor) player.jumpTo(m.cursor); };
  const onRoom = (ev) => obey(ev.detail);
  window.addEventListener("cv:room-cursor", onRoom);
  if (window.__cvRoom && window.__cvRoom.lastCursor) obey(window.__cvRoom.lastCursor);
  return () => window.removeEventListener("cv:room-cursor", onRoom);
}

// Mount a stage: keep it on reruns that send the same data (same version), else rebuild; wire keys and resize.
// `build` returns a StagePlayer, or a stage with the same surface (version, draw, resized, onKey, saveUrlSoon,
// destroy), as ui/kv_stage.js's KvStage.
function mountStage(component, defaultKey, build) {
  const { data, parentElement, key } = component;
  const host = parentElement, k = key || defaultKey;
  // A rerun that changed nothing drawn: keep everything, but write the cursor into the URL again, because the
  // server rewrites the query string from the values it read when the session started.
  if (host.__cvStage && host.__cvStage.version === data.version) { host.__cvStage.saveUrlSoon(); return () => {}; }
  if (host.__cvStage) host.__cvStage.destroy();
  const saved = STAGE_STATE[k];  // a new setting keeps the cursor where the user left it (clamped), as the timeline
  const player = build(host, data, k, component);
  host.__cvStage = player;
  player.draw();
  if (saved && saved.cursor !== undefined) player.saveUrlSoon();
  const onKey = (ev) => player.onKey(ev);
  const onResize = () => player.resized();
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", onResize);
  const unroom = stageRoomHook(player, host, k);
  player.unlisten = () => { window.removeEventListener("keydown", onKey, true); window.removeEventListener("resize", onResize); unroom(); };
  return () => { if (host.__cvStage === player) { player.unlisten(); player.destroy(); host.__cvStage = null; } };
}
