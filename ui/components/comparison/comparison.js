// chunkviz comparison element (`/` and the lecture chapters): the engines on one canvas with a shared time axis; the
// cursor (a time in ms) moves in the browser (arrow keys, buttons, scrub, play by simulated time or by steps, and a
// presentation clicker's PageDown / PageUp between the moments that teach), so no step waits for a server rerun.
// Invariant: nothing after the cursor is drawn (bars, notes, chat text), but for the 200 ms after a move, when the
// canvas draws a time gliding from the old cursor to the new one; while a question is open (data.hold_ms) neither
// the cursor nor the drawn time passes it; data arrives once per scenario (data.version) and is read-only.

// The free column after a chapter's cursor, where its labels sit (window): 240 px, widened in 60 px steps up to
// 360 while a label finds no free place (draw), so a narrow plot's labels take two lines rather than four.
const LABEL_COLUMN_PX = 240, LABEL_COLUMN_MAX_PX = 360;
const KINDS = ["waiting", "prefill", "decode", "stall", "preempted"];
const DIM = 0.22;  // linked highlighting: the opacity of everything not about the focused request
const STATE = (window.__cvTimelineState = window.__cvTimelineState || {});  // per key: survives re-mounts
// Motion (issue 35, "transitions, not jumps"): a cursor move (a key's step, PageDown's moment, a button, play by
// steps) glides the drawn time from what is on screen to the new cursor in MOTION_MS, and a switch between a
// handle's runs fades the old frame out while the axes tween; none under prefers-reduced-motion (one draw).
const MOTION_MS = 200;
const REDUCED_MOTION = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
const ease = (p) => (p < 0.5 ? 4 * p * p * p : 1 - Math.pow(2 - 2 * p, 3) / 2);  // cubic in-out: no jerk at either end
// The element live for each key: a re-mount in a new React instance may build the new element before the old one's
// clean-up runs, and the old one's last save must not overwrite the new one's state (the question's hold again).
const LIVE = (window.__cvLive = window.__cvLive || {});

function fmt(v, digits) {
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (k in fields ? fields[k] : "{" + k + "}"));
}

// Index of the last element of a sorted array strictly below x (-1 if none).
function lastBelow(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] < x) lo = mid + 1; else hi = mid; }
  return lo - 1;
}

// The non-colour cue of stall, preempted and mixed (palette.PATTERNS, the same shapes as the Plotly charts'
// marker.pattern): a small tile repeated over the bar, drawn in translucent black so it reads on every fill.
const HATCH_TILES = {};
function hatchTile(shape) {
  if (!shape) return null;
  if (HATCH_TILES[shape]) return HATCH_TILES[shape];
  const c = document.createElement("canvas"); c.width = c.height = 8;
  const g = c.getContext("2d"); g.strokeStyle = g.fillStyle = "rgba(0,0,0,0.55)"; g.lineWidth = 1.3;
  const line = (x0, y0, x1, y1) => { g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke(); };
  if (shape === ".") { g.beginPath(); g.arc(4, 4, 1.4, 0, 2 * Math.PI); g.fill(); }
  if (shape === "/" || shape === "x") { line(0, 8, 8, 0); line(-2, 2, 2, -2); line(6, 10, 10, 6); }
  if (shape === "x") { line(0, 0, 8, 8); line(-2, 6, 2, 10); line(6, -2, 10, 2); }
  return (HATCH_TILES[shape] = c);
}

function hatch(ctx, shape, x, y, w, h) {
  const tile = hatchTile(shape);
  if (!tile || w < 2) return;
  ctx.save(); ctx.fillStyle = ctx.createPattern(tile, "repeat"); ctx.fillRect(x, y, w, h); ctx.restore();
}

// A label's text broken into lines no wider than maxW: after a space, or after a CJK character (its closing
// punctuation stays on the line it closes).
function wrapText(ctx, text, maxW) {
  const words = []; let cur = "";
  for (const ch of text) {
    if ("，。；：、）》".includes(ch) && !cur && words.length) { words[words.length - 1] += ch; continue; }
    cur += ch;
    if (ch === " " || ch.charCodeAt(0) >= 0x2e80) { words.push(cur); cur = ""; }
  }
  if (cur) words.push(cur);
  const lines = []; let line = "";
  words.forEach((w) => {
    if (line.trim() && ctx.measureText((line + w).trimEnd()).width > maxW) { lines.push(line.trimEnd()); line = w.trimStart(); }
    else line += w;
  });
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

// The labels' layout rule. items: {text, px, py (the event pointed at), top, bottom (its engine's panel)}, in the
// order they appeared; obstacles: [x0, y0, x1, y1] of everything drawn (bars, steps rows, KV bands, titles).
// Each label takes the first free place, in this order: (1) the free column after the cursor (nothing is drawn
// there), wrapped to its width, as near its event's height as it can, its own panel first; (2) the free place
// nearest its event anywhere on the plot; (3) failing both, (1)'s first place, marked clash (the test fails).
// Free: inside the plot, touching no obstacle, 3 px from every label placed before it. Deterministic. A glide's
// frames between its ends (o.quick) skip (2), a search of the whole plot (up to ~160 ms on chapter 7): a frame
// shown for 16 ms must not stall the motion, and the glide's last frame is placed in full.
function placeLabels(items, obstacles, o) {
  const placed = [], gap = 3, lineH = o.size + 2;
  const box = (lines) => ({ lines, w: Math.ceil(Math.max(...lines.map((l) => o.ctx.measureText(l).width))) + 2 * o.pad,
                            h: lines.length * lineH - 2 + 2 * o.pad });
  const free = (x, y, w, h) => x >= o.left && y >= o.top && x + w <= o.right && y + h <= o.bottom &&
    obstacles.every((r) => x + w <= r[0] + 1 || x >= r[2] - 1 || y + h <= r[1] + 1 || y >= r[3] - 1) &&
    placed.every((p) => x + w + gap <= p.x || x >= p.x + p.w + gap || y + h + gap <= p.y || y >= p.y + p.h + gap);
  // y positions from the event's height outward, 2 px apart, inside [lo, hi - h]
  const ys = (py, h, lo, hi) => {
    const out = [], y0 = Math.min(Math.max(py - h / 2, lo), hi - h);
    for (let k = 0; k <= (hi - lo) / 2 + 1; k++) { for (const y of k ? [y0 - 2 * k, y0 + 2 * k] : [y0]) if (y >= lo && y <= hi - h) out.push(y); }
    return out;
  };
  items.forEach((it) => {
    const mx = it.marginX ?? o.marginX, one = box([it.text]), room = (it.right ?? o.right) - mx, first = [];
    let spot = null;
    if (room >= 80) {  // (1) the column after the cursor
      const b = one.w <= room ? one : box(wrapText(o.ctx, it.text, room - 2 * o.pad));
      for (const [lo, hi] of [[it.top, it.bottom], [o.top, o.bottom]]) {
        const y = ys(it.py, b.h, lo, hi).find((yy) => free(mx, yy, b.w, b.h));
        if (!first.length) first.push({ ...b, x: mx, y: Math.max(Math.min(it.py - b.h / 2, o.bottom - b.h), o.top) });
        if (y !== undefined) { spot = { ...b, x: mx, y }; break; }
      }
    }
    if (!spot && !o.quick) {  // (2) the nearest free place to the event, on one line or on two
      for (const b of [one, box(wrapText(o.ctx, it.text, one.w / 2 + 20))]) {
        let best = null, bestD = Infinity;
        for (let x = o.left; x + b.w <= o.right; x += 6) {
          for (let y = o.top; y + b.h <= o.bottom; y += 3) {
            const d = Math.hypot(x + b.w / 2 - it.px, (y + b.h / 2 - it.py) * 2);
            if (d < bestD && free(x, y, b.w, b.h)) { best = { ...b, x, y }; bestD = d; }
          }
        }
        if (best) { spot = best; break; }
      }
    }
    if (!spot) spot = { ...(first[0] || { ...one, x: o.left, y: o.top }), clash: true };  // (3)
    placed.push({ ...spot, text: it.text, px: it.px, py: it.py });
  });
  return placed;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

class Timeline {
  constructor(root, data, key) {
    this.base = data; this.d = data; this.key = key; this.root = root;
    const saved = STATE[key] || {};
    // A handle's runs (data.variants): the one the learner chose last survives re-mounts (the answer's rerun).
    if (data.variants) this.useVariant(saved.variant ?? data.variants.index);
    // A re-mount (rerun, new scenario) keeps the cursor where the user left it; a fresh page starts at the link's.
    // A clicker's PageDown at the question reveals it in the browser (the room answered aloud); kept across re-mounts.
    this.revealed = data.hold_ms != null && saved.revealedHold === data.hold_ms;
    let start = saved.cursor !== undefined ? saved.cursor : data.t0_ms;
    // The question was just answered: go to the moment it asked about.
    const answered = saved.held && data.hold_ms == null && data.reveal_ms != null;
    if (answered) start = data.reveal_ms;
    this.cursor = this.clamp(start);
    this.afterReveal = answered;  // PageUp right after a reveal goes back to the question's moment
    this.blank = false;
    this.speed = saved.speed ?? data.default_speed;  // index into data.speeds
    this.follow = saved.follow ?? true;
    this.playing = false; this.acc = 0; this.last = 0; this.hits = [];
    this.draws = 0; this.stepsShown = 0; this.dropped = 0; this.lastGrid = -2;
    this.hoverR = null; this.pinR = null;  // linked highlighting: the request under the pointer, the one pinned
    this.tween = null; this.shown = this.cursor;  // the time drawn (this.cursor's, but while a move glides)
    this.build();
    this.draw();
    this.save();  // a re-mount before any move (the question answered) still knows the question held the cursor
  }

  t(name) { return this.d.text[name] || name; }

  // Direct manipulation (data.variants: {label, values, index, unit, runs}): runs of the same workload for a few
  // values of one parameter (chapter 6's token budget), sent once; the handle swaps which run is drawn (its
  // engines, step grid, end, notes, stops and the verdict beside the handle) in the browser, with no rerun. The
  // payload itself stays read-only: the drawn data is a copy with the chosen run's fields over it.
  useVariant(i) {
    const v = this.base.variants, n = Math.max(0, Math.min(v.runs.length - 1, Math.round(+i) || 0));
    this.variant = n; this.d = Object.assign({}, this.base, v.runs[n]);
  }

  setVariant(i) {
    const before = this.variant, was = this.shown, view = this.view, snap = this.snapshot();
    this.useVariant(i);
    if (this.variant === before) return;
    this.cursor = this.clamp(this.cursor); this.scrub.max = this.d.end_ms;
    this.startTween(this.clamp(was), { snap, view });  // the old run's frame fades out while the axes tween to the new run's
    if (this.marksBox) { this.markBtns = []; this.marksBox.replaceChildren(); this.markButtons(this.marksBox, this.d.slide ? this.slideMarks() : this.d.bookmarks); }
    this.drawHandle(); this.draw(); this.save();
  }

  drawHandle() {
    if (!this.handle) return;
    const v = this.base.variants, run = v.runs[this.variant];
    this.handle.value = this.variant;
    this.handle.setAttribute("aria-valuetext", `${fmt(v.values[this.variant], 0)} ${v.unit || ""}`.trim());
    this.handleValue.textContent = fmt(v.values[this.variant], 0);
    this.handleVerdict.textContent = run.verdict || "";
    this.box.dataset.variant = String(v.values[this.variant]);
  }

  buildHandle(box) {
    const v = this.d.variants, row = el("div", "handle-row");
    row.appendChild(el("span", "handle-label", v.label));
    this.handle = el("input", "handle"); this.handle.type = "range"; this.handle.min = 0; this.handle.max = v.values.length - 1;
    this.handle.step = 1; this.handle.setAttribute("aria-label", v.label);
    const ticks = el("datalist"); ticks.id = `cv-handle-${this.key}`;
    v.values.forEach((_, i) => { const o = el("option"); o.value = i; ticks.appendChild(o); });
    this.handle.setAttribute("list", ticks.id);
    this.handle.oninput = () => this.setVariant(this.handle.value);
    this.handleValue = el("b", "handle-value"); this.handleVerdict = el("span", "handle-verdict");
    [this.handle, ticks, this.handleValue, this.handleVerdict].forEach((x) => row.appendChild(x));
    box.appendChild(row);
    this.drawHandle();
  }

  // Every cursor move goes through here: inside the run, and not past an unanswered question.
  clamp(ms) {
    const hi = this.held() ? Math.min(this.d.hold_ms, this.d.end_ms) : this.d.end_ms;
    return Math.min(Math.max(ms, 0), hi);
  }

  held() { return this.d.hold_ms != null && !this.revealed; }

  // Where PageDown / PageUp stop: the chapter's moments (data.stops) or the page's bookmarks, in time order.
  // The question's moment (data.question_ms) is one of them, so PageUp right after a reveal returns to it.
  stops() {
    const list = (this.d.stops || this.d.bookmarks).map((m) => m.t_ms);
    if (this.d.question_ms != null) list.push(this.d.question_ms);
    return [...new Set(list.map((ms) => this.clamp(ms)))].sort((a, b) => a - b);
  }

  stopBy(n) {
    if (n > 0 && this.held() && this.cursor >= this.d.hold_ms - 1e-6) {  // at the question: reveal its moment
      this.revealed = true; this.jumpTo(this.d.reveal_ms != null ? this.d.reveal_ms : this.d.hold_ms);
      this.afterReveal = true; return;
    }
    if (n < 0 && this.afterReveal && this.d.question_ms != null) { this.jumpTo(this.d.question_ms); return; }
    const s = this.stops(), c = this.cursor;
    const next = n > 0 ? s.find((v) => v > c + 1e-6) : [...s].reverse().find((v) => v < c - 1e-6);
    this.jumpTo(next !== undefined ? next : n > 0 ? this.clamp(this.d.end_ms) : 0);
  }

  toggleBlank() { this.blank = !this.blank; this.box.classList.toggle("blank", this.blank); this.box.dataset.blank = this.blank ? "1" : "0"; }

  // F: the whole page full screen (the slide as laid out for 1280×720, in the page's own theme), F again leaves.
  toggleFull() {
    const page = document.documentElement;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else if (page.requestFullscreen) page.requestFullscreen().catch(() => {});
  }

  build() {
    const d = this.d, box = el("div", "cv" + (d.present ? " present" : ""));
    box.tabIndex = 0; this.box = box; box.dataset.motionMs = String(this.motionMs());
    box.style.setProperty("--cv-stall", d.colours.stall); box.style.setProperty("--cv-decode", d.colours.decode);
    const bar = el("div", "bar");
    const btn = (label, title, fn) => { const b = el("button", "", label); b.title = title; b.onclick = fn; bar.appendChild(b); return b; };
    btn("|◀", this.t("first"), () => this.jumpTo(0));
    btn("◀", this.t("prev"), () => this.stepBy(-1));
    this.playBtn = btn(this.t("play"), this.t("play"), () => this.toggle());
    this.playBtn.className = "play";
    btn("▶", this.t("next"), () => this.stepBy(1));
    btn("▶|", this.t("last"), () => this.jumpTo(d.end_ms));
    this.speedSel = el("select", "speed");
    d.speeds.forEach((s, i) => { const o = el("option", "", s.label); o.value = i; this.speedSel.appendChild(o); });
    this.speedSel.value = this.speed;
    this.speedSel.onchange = () => { this.speed = +this.speedSel.value; this.save(); };
    if (!d.slide) bar.appendChild(this.speedSel);
    this.followBtn = btn(this.t("follow"), this.t("follow_help"), () => { this.follow = !this.follow; this.save(); this.draw(); });
    if (d.slide) this.followBtn.remove();
    this.readout = el("span", "readout"); bar.appendChild(this.readout);
    box.appendChild(bar);
    this.scrub = el("input", "scrub"); this.scrub.type = "range"; this.scrub.min = 0; this.scrub.max = d.end_ms;
    this.scrub.step = "any"; this.scrub.setAttribute("aria-label", this.t("time"));
    this.scrub.oninput = () => { this.pause(); this.afterReveal = false; this.cursor = this.clamp(+this.scrub.value); this.endTween(); this.draw(); this.saveUrlSoon(); };
    // (a drag follows the pointer: it cancels a running glide and starts none)
    // A slide keeps the scrub in the button row (one row less), its moments' buttons in the legend row.
    (d.slide ? bar : box).appendChild(this.scrub);
    // A slide's caption: one large line above the stage saying what happens at the cursor and why (drawCaption).
    if (d.variants) this.buildHandle(box);
    if (d.slide) { this.caption = el("div", "caption"); this.caption.setAttribute("aria-live", "polite"); box.appendChild(this.caption); }
    const stage = el("div", "stage"), plot = el("div", "plot"); this.canvas = el("canvas"); this.tip = el("div", "tip");
    plot.appendChild(this.canvas); plot.appendChild(this.tip); stage.appendChild(plot); this.plot = plot; box.appendChild(stage);
    if (d.chats) { this.chatCol = el("div", "chats"); stage.appendChild(this.chatCol); stage.classList.add("with-chats"); }
    if (d.kitchen) this.buildKitchen(stage);  // chapter 1 (drawKitchen)
    const row = el("div", "row"), legend = el("div", "legend"), marks = el("div", "marks");
    // `/` (not a slide): the legend comes before the lanes, above the fold, and (but in lecture mode, where the
    // teacher says it) the one line saying what they are.
    if (!d.slide && !d.present && d.text.guide) box.insertBefore(el("div", "guide", d.text.guide), stage);
    if (!d.slide) box.insertBefore(row, stage);
    d.legend.concat(d.legend_extra || []).forEach(([label, colour, kind]) => { const s = el("span"); const i = el("i"); i.style.background = colour; const tile = hatchTile(d.patterns[kind]); if (tile) i.style.backgroundImage = `url(${tile.toDataURL()})`; s.appendChild(i); s.appendChild(document.createTextNode(label)); legend.appendChild(s); });
    this.marksBox = marks; this.markButtons(marks, d.slide ? this.slideMarks() : d.bookmarks);
    row.appendChild(legend); row.appendChild(marks); if (d.slide) box.appendChild(row);
    if (!d.slide) box.appendChild(this.cards());
    this.why = el("div", "why"); if (!d.slide) box.appendChild(this.why);
    this.blankCover = el("div", "cover", this.t("blank")); box.appendChild(this.blankCover);
    this.canvas.onmousemove = (e) => { this.hover(e); this.setHoverR(this.requestAt(e)); };
    this.canvas.onmouseleave = () => { this.tip.style.display = "none"; this.setHoverR(null); };
    this.canvas.onclick = (e) => this.pin(this.requestAt(e));
    box.addEventListener("pointerdown", () => { window.__cvTimelineActive = this.key; });
    this.root.appendChild(box);
  }

  // A slide's buttons: every moment when they fit in a row (four), else the first engine's (PageDown visits all).
  slideMarks() {
    const s = this.d.stops || [];
    return s.length <= 4 ? s : s.filter((m) => m.label.startsWith("A:"));
  }

  markButtons(holder, marks) {
    this.markBtns = (this.markBtns || []).concat(marks.map((m) => {
      const b = el("button", "mark", m.label); b.title = m.title || m.label; b.onclick = () => this.jumpTo(m.t_ms);
      holder.appendChild(b); return [m, b];
    }));
  }

  // The moment the cursor stands on (a bookmark's or a stop's end), named in the readout and its button lit.
  moment() {
    const list = this.d.stops || this.d.bookmarks || [];
    return list.find((m) => Math.abs(m.t_ms - this.cursor) < 1e-3);
  }

  cards() {
    const d = this.d, grid = el("div", "cards");
    grid.appendChild(el("span", "h", ""));
    d.card_labels.forEach((l, i) => { const h = el("span", "h", l); h.title = (d.card_help || [])[i] || ""; grid.appendChild(h); });
    d.engines.forEach((e) => {
      grid.appendChild(el("span", "name", `${e.tag} · ${e.label}`));
      e.cards.forEach((c) => {
        const cell = el("span", "v", c.value);
        if (c.delta) { const s = el("span", "d " + (c.good === null ? "" : c.good ? "good" : "bad"), c.delta); cell.appendChild(s); }
        grid.appendChild(cell);
      });
    });
    return grid;
  }

  save() { STATE[this.key] = { version: this.d.version, cursor: this.cursor, speed: this.speed, follow: this.follow, held: this.held(), variant: this.variant,
                       revealedHold: this.revealed ? this.d.hold_ms : undefined }; }

  saveUrlSoon() {
    this.save();
    clearTimeout(this.urlTimer);
    if (this.playing) return;
    this.urlTimer = setTimeout(() => {  // the link keeps the cursor; the old step= parameter is replaced
      const u = new URL(window.location.href);
      u.searchParams.set(this.d.url_param, String(Math.round(this.cursor * 10) / 10));
      u.searchParams.delete("step");
      window.history.replaceState(window.history.state, "", u.toString());
    }, 250);
  }

  gridIndex() { return lastBelow(this.d.grid_ms, this.cursor + 1e-6); }

  // ← / →: to the previous / next step end (of any engine) at least a pixel away, so every press draws a change
  // (two engines' step ends 0.08 ms apart made the first → on `/` look dead).
  stepBy(n) {
    this.pause();
    const g = this.d.grid_ms, [x0, x1] = this.window(this.cursor), px = (x1 - x0) / Math.max(this.plot.clientWidth || 600, 100);
    let target = n > 0 ? Math.min(this.gridIndex() + n, g.length - 1) : Math.max(lastBelow(g, this.cursor - 1e-6) + 1 + n, 0);
    while (n > 0 && target < g.length - 1 && g[target] - this.cursor < px) target++;
    while (n < 0 && target > 0 && this.cursor - g[target] < px) target--;
    this.afterReveal = false; this.glideTo(g[Math.max(target, 0)]); this.saveUrlSoon();
  }

  jumpTo(ms) { this.afterReveal = false; this.pause(); this.glideTo(ms); this.saveUrlSoon(); }

  // Motion: the cursor goes to `ms` at once (what the readout, counters, chats and caption say, and data-cursor-ms);
  // the canvas glides there from the time it shows now (mid-glide too: a new target never queues behind the last).
  glideTo(ms) { const from = this.clamp(this.shown); this.cursor = this.clamp(ms); this.startTween(from); this.draw(); }

  motionMs() { return REDUCED_MOTION && REDUCED_MOTION.matches ? 0 : MOTION_MS; }

  // fade: {snap (the canvas as it was), view (its [x0, x1])} when the drawn run changed (setVariant).
  startTween(from, fade = null) {
    const dur = this.motionMs(), moved = Math.abs(from - this.cursor) > 1e-6;
    this.box.dataset.motionMs = String(dur);
    if (!dur || (!moved && !fade)) { this.endTween(); return; }
    this.tween = { from: moved ? from : this.cursor, to: this.cursor, t0: performance.now(), dur, fade, p: 0 };
    this.box.dataset.animating = "1";
    const frame = () => {  // bounded: the tween ends dur ms after it began (tweenAt), or a move replaces it
      this.tweenRaf = 0;
      if (!this.tween) return;
      if (this.playing) this.tweenAt(performance.now()); else this.draw();  // play's own loop draws its frames
      if (this.tween) this.tweenRaf = requestAnimationFrame(frame);
    };
    if (!this.tweenRaf) this.tweenRaf = requestAnimationFrame(frame);
  }

  endTween() {
    this.tween = null; delete this.box.dataset.animating;
    if (this.tweenRaf) { cancelAnimationFrame(this.tweenRaf); this.tweenRaf = 0; }
  }

  // The time to draw now: this.cursor, or the glide's eased point between the time shown before and it. A cursor
  // set without a glide (a scrub, play by simulated time) ends the glide.
  tweenAt(now) {
    const tw = this.tween;
    if (!tw) return this.cursor;
    const p = (now - tw.t0) / tw.dur;
    if (tw.to !== this.cursor || p >= 1) { this.endTween(); return this.cursor; }
    tw.p = ease(Math.max(p, 0));
    return tw.from + (tw.to - tw.from) * tw.p;
  }

  // A copy of the canvas as drawn (the frame a run switch fades out), or null before the first draw.
  snapshot() {
    const c = this.canvas;
    if (!c || !c.width || !c.height || !this.motionMs()) return null;
    const s = document.createElement("canvas"); s.width = c.width; s.height = c.height;
    s.getContext("2d").drawImage(c, 0, 0);
    return s;
  }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.cursor >= this.clamp(this.d.end_ms) - 1e-6) this.cursor = 0;
    this.playing = true; this.acc = 0; this.last = performance.now(); this.afterReveal = false;
    this.playBtn.textContent = this.t("pause"); this.playBtn.classList.add("on");
    this.box.dataset.playing = "1";
    const tick = (now) => {
      if (!this.playing) return;
      const was = this.cursor, from = this.shown;
      this.advance(Math.min(now - this.last, 250)); this.last = now;
      if (this.cursor !== was && this.d.speeds[this.speed].kind !== "sim") this.startTween(from);  // by steps: glide
      this.draw();
      if (this.cursor >= this.clamp(this.d.end_ms) - 1e-6) { this.pause(); return; }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  advance(dtMs) {
    const s = this.d.speeds[this.speed];
    if (s.kind === "sim") { this.cursor = this.clamp(this.cursor + dtMs * s.factor); return; }
    // By steps: at most one grid position per frame, so no step is skipped; the remainder carries over.
    this.acc = Math.min(this.acc + (dtMs * s.rate) / 1000, 1.999);
    if (this.acc >= 1) {
      this.acc -= 1;
      const g = this.d.grid_ms, i = this.gridIndex();
      this.cursor = this.clamp(g[Math.min(i + 1, g.length - 1)]);
    }
  }

  pause() {
    if (!this.playing) return;
    this.playing = false; cancelAnimationFrame(this.raf);
    this.playBtn.textContent = this.t("play"); this.playBtn.classList.remove("on");
    this.box.dataset.playing = "0";
    this.saveUrlSoon();
  }

  // The time window drawn around the time `at` (the drawn time; stepBy asks about the cursor's).
  window(at = this.cursor) {
    const d = this.d, w = d.window_ms;
    // A chapter zooms on the moment being taught: half as far again as the cursor (at least zoom_ms), so the third
    // after the cursor (nothing is drawn after it) is free, at the end too: there the labels sit (placeLabels). A
    // narrow plot (chat windows beside it) keeps that column at least LABEL_COLUMN_PX wide.
    if (d.zoom_ms) {
      const w = Math.max(this.colW() - d.gutter_px - 22, 1), f = Math.max(1.5, w / Math.max(w - this.labelColumnPx, w / 3));
      return [0, Math.max(d.zoom_ms, f * at, 1)];
    }
    if (!this.follow || d.end_ms <= w) return [0, Math.max(d.end_ms, 1)];
    const hi = Math.min(Math.max(at, w * 0.85) + w * 0.15, d.end_ms);
    return [hi - w, hi];
  }

  colours() {
    const css = getComputedStyle(this.box);
    return { text: css.getPropertyValue("--st-text-color").trim() || css.color || "#31333f",
             grid: "rgba(128,128,128,0.25)", cursor: css.getPropertyValue("--st-text-color").trim() || "#31333f" };
  }

  // Lanes of one engine active in [x0, min(cursor, x1)], and the step index at the cursor.
  activeLanes(e, x0, x1) {
    const hi = Math.min(this.shown, x1), seen = new Set(), s = e.segs;
    for (let i = 0; i < s.r.length; i++) if (s.s[i] < hi && s.e[i] > x0) seen.add(s.r[i]);
    return [...seen].sort((a, b) => a - b);
  }

  // Lecture mode (data.fit_to, a selector of what must stay on the slide under the stage, e.g. the question and its
  // verdict): the canvas gives up height, never below data.fit_min_px, until that element's bottom is inside the
  // window. Everything above the canvas and between it and that element keeps its size, so the result does not
  // depend on the canvas's current height (no feedback); a chat window too short for its words keeps its head and
  // status lines (class "tight").
  fit() {
    const d = this.d, target = d.fit_to && document.querySelector(d.fit_to);
    if (!target || !this.canvas.isConnected) return;
    const r = this.canvas.getBoundingClientRect(), below = target.getBoundingClientRect().bottom - r.bottom;
    const scroller = document.querySelector('[data-testid="stMain"]'), top = r.top + (scroller ? scroller.scrollTop : 0);
    const room = Math.floor(window.innerHeight - 6 - top - below);
    // Short of room, the moments' buttons go first (a clicker's PageDown still walks them), for good: were they to
    // come back whenever the room sufficed, the room would shrink again and the stage flicker between the two.
    if (room < d.height_px && !this.fitted) { this.fitted = true; this.box.classList.add("fitted"); this.fit(); return; }
    const h = Math.max(Math.min(d.height_px, room), Math.min(d.fit_min_px || d.height_px, d.height_px));
    if (h === this.fitH) return;
    this.fitH = h; this.draw();
    if (this.chatCol) this.chatCol.classList.toggle("tight", h < d.height_px);
    this.box.dataset.fitPx = String(h);
  }

  height() { return this.fitH || this.d.height_px; }

  // The window drawn: around the drawn time; while a run switch fades, tweened from the window drawn before it.
  viewAt(fade, tw) {
    const w = this.window(this.shown);
    return fade && fade.view ? w.map((v, k) => fade.view[k] + (v - fade.view[k]) * tw.p) : w;
  }

  // A grid of panels (data.grid_cols, chapter 7's four GPUs in 2 × 2): engines fill it column by column, each
  // column with its own copy of the shared time axis, so each panel gets the whole height of its row.
  cols() { return Math.max(1, Math.min(this.d.grid_cols || 1, this.d.engines.length)); }

  colW() { return (this.plot.clientWidth || this.box.clientWidth || 600) / this.cols(); }

  draw(columnPx = LABEL_COLUMN_PX) {
    this.labelColumnPx = columnPx;
    if (columnPx === LABEL_COLUMN_PX) this.shown = this.tweenAt(performance.now());  // once a frame (not per retry)
    const tw = this.tween, fade = tw && tw.fade;
    const d = this.d, c = this.canvas, dpr = window.devicePixelRatio || 1;
    // The caption's line comes out of the canvas, so a slide keeps its height (the question stays on screen).
    const width = Math.max(this.plot.clientWidth || this.box.clientWidth || 600, 300),
      height = this.height() - (this.caption ? this.caption.offsetHeight + 4 : 0);
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr); c.height = Math.round(height * dpr); c.style.height = height + "px";
    }
    const ctx = c.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, width, height);
    const col = this.colours(), font = d.font_px, tick = d.tick_px;
    const [x0, x1] = (this.view = this.viewAt(fade, tw)), axisH = tick + 12, cols = this.cols(), colW = width / cols;
    const rows = Math.ceil(d.engines.length / cols), pad = d.present ? 22 : 10;
    // One time axis per column of panels: X[c] maps a time to column c's pixels.
    const X = [...Array(cols).keys()].map((c) => {
      const left = c * colW + d.gutter_px, right = (c + 1) * colW - pad;
      const f = (ms) => left + ((ms - x0) / (x1 - x0)) * (right - left);
      f.ox = c * colW; f.left = left; f.right = right; return f;
    });
    this.hits = [];
    const panelH = (height - axisH) / rows;
    const stepIdx = [];
    this.panelH = panelH; this.noteBoxes = []; this.titleBoxes = []; this.hl = [0, 0];
    d.engines.forEach((e, k) => stepIdx.push(this.drawEngine(ctx, e, (k % rows) * panelH, panelH, X[Math.floor(k / rows)],
                                                             x0, x1, col, font, k)));
    const lanePx = (this.geo || []).filter((g) => g && g.laneH).map((g) => g.laneH);
    this.box.dataset.rowLabels = JSON.stringify(this.rowLabels.slice(0, d.engines.length));
    this.box.dataset.lanePx = lanePx.length ? String(Math.round(Math.min(...lanePx) * 10) / 10) : "";
    this.drawTransfers(ctx, x0, x1);
    // Shared time axis with ticks every "nice" interval.
    const span = x1 - x0, raw = span / (8 / cols), pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const stepMs = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= raw);
    const yAxis = height - axisH;
    X.forEach((Xc) => {
      ctx.font = `${tick}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "center";
      for (let v = Math.ceil(x0 / stepMs) * stepMs; v <= x1; v += stepMs) {
        const x = Xc(v); ctx.fillRect(x, yAxis, 1, 4); ctx.fillText(fmt(v, 0), x, yAxis + tick + 4);
      }
      ctx.textAlign = "left"; ctx.fillText(this.t("time_ms"), Xc.ox + 2, yAxis + tick + 4);
      // The grid lines and the cursor (palette.CURSOR, a colour no bar uses) pass under the panels' titles, like the
      // KV paths: a title the cursor crossed ("B · colocated · GPU 2/2 · step 97 of 152") lost a letter or two.
      ctx.save(); this.clipTitles(ctx); ctx.fillStyle = col.grid;
      for (let v = Math.ceil(x0 / stepMs) * stepMs; v <= x1; v += stepMs) ctx.fillRect(Xc(v), 0, 1, yAxis);
      ctx.fillStyle = d.colours.cursor; ctx.fillRect(Xc(this.shown) - 1.5, 0, 3, yAxis);
      ctx.restore();
    });
    this.cursorX = X[0](this.shown);
    this.box.dataset.cursorXs = JSON.stringify(X.map((Xc) => Math.round(Xc(this.shown) * 10) / 10));  // tests
    this.box.dataset.titles = JSON.stringify(this.titleBoxes.map((b) => b.map((v) => Math.round(v * 10) / 10)));
    this.drawLabels(ctx, X, rows, x1, yAxis);  // last: nothing is drawn over a label
    if (this.layout.clash && d.zoom_ms && columnPx < LABEL_COLUMN_MAX_PX && !tw) return this.draw(columnPx + 60);
    if (fade && fade.snap) {  // a run switch: the old run's frame over the new one, fading out
      ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.globalAlpha = 1 - tw.p;
      ctx.drawImage(fade.snap, 0, 0, c.width, c.height); ctx.restore();
    }
    this.afterDraw(stepIdx);
  }

  drawEngine(ctx, e, top, h, X, x0, x1, col, font, k) {
    const d = this.d, C = d.colours, hi = Math.min(this.shown, x1), st = e.steps;
    const i = lastBelow(st.s, this.cursor);  // the step running at (or just finished by) the cursor
    ctx.font = `600 ${font}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "left";
    const idle = i >= 0 && this.cursor > st.s[i] + st.d[i] + 1e-6;
    // Counted from 1 (the engine numbers its steps from 0), so the run's last step reads "step N of N".
    const stepText = i < 0 ? this.t("no_step") : fill(this.t(idle ? "step_idle" : "step_of"), { n: st.n[i] + 1, total: st.n.length });
    (this.stepTexts = this.stepTexts || [])[k] = i < 0 ? "" : stepText;  // the caption quotes it
    // The engine's name gives way (…) before its step number does, so a long name never runs off the panel.
    const ox = X.ox, room = (X.right - ox) - 12 - ctx.measureText(` · ${stepText}`).width;
    let name = `${e.tag} · ${e.label}`;
    while (name.length > 4 && ctx.measureText(name).width > room) name = name.slice(0, -2) + "…";
    ctx.fillText(`${name} · ${stepText}`, ox + 4, top + font + 2);
    this.titleBoxes.push([ox, top, ox + 8 + ctx.measureText(`${name} · ${stepText}`).width, top + font + 6]);  // labels keep off
    (this.counters = this.counters || [])[k] = stepText;  // read back as data-counters (tests)
    // A grid's panels (cols > 1) give their lanes the room: the steps row a thin strip under the title (its
    // counter names it), no "steps" word beside it.
    const grid = this.cols() > 1, laneTop = top + font + (grid ? 5 : 8), stepH = grid ? 8 : Math.max(font, 14);
    const small = d.present ? d.tick_px : d.tick_px - 2;  // lecture mode: no text under 16 px
    ctx.font = `${small}px sans-serif`; if (!grid) ctx.fillText(this.t("steps"), ox + 2, laneTop + stepH - 3);
    for (let j = Math.max(lastBelow(st.s, x0) - 1, 0); j < st.s.length && st.s[j] < hi; j++) {
      const a = Math.max(st.s[j], x0), b = Math.min(st.s[j] + st.d[j], hi);
      if (b <= a) continue;
      ctx.fillStyle = C[st.k[j]]; ctx.fillRect(X(a), laneTop, Math.max(X(b) - X(a) - 0.5, 0.8), stepH);
      hatch(ctx, d.patterns[st.k[j]], X(a), laneTop, X(b) - X(a) - 0.5, stepH);
      this.hits.push([X(a), X(b), laneTop, laneTop + stepH, e, "step", j]);
    }
    const lanes = this.activeLanes(e, x0, x1), bodyTop = laneTop + stepH + (grid ? 4 : 6), bodyH = top + h - bodyTop - 4;
    const laneH = lanes.length ? Math.min(bodyH / lanes.length, d.lane_max_px) : 0;
    const labelPx = d.present ? small : Math.max(11, Math.min(small, laneH));
    // Rows thinner than their label: the labels alternate between two places in the gutter (a row's label, the one
    // two rows down, are 2 lanes apart), so every row keeps its label while 2 lanes hold one; thinner still, every
    // n-th row is labelled.
    ctx.font = `700 ${labelPx}px sans-serif`;
    const labelW = Math.max(0, ...lanes.map((r) => ctx.measureText("R" + r).width)), shift = Math.ceil(labelW) + 3;
    const stagger = laneH < labelPx + 2 && 2 * laneH >= labelPx && 2 + shift + labelW <= d.gutter_px - 1;
    const row = new Map(lanes.map((r, n) => [r, n]));
    const every = stagger ? 1 : Math.max(1, Math.ceil((d.tick_px + 2) / Math.max(laneH, 1)));
    (this.geo = this.geo || [])[k] = { row, bodyTop, laneH, laneTop, top, bottom: top + h - 4, panelBottom: top + h, X };
    ctx.fillStyle = col.text; ctx.font = `${labelPx}px sans-serif`;
    // A label's baseline never rises into the steps row above, however thin the lanes are.
    const labelY = (n) => bodyTop + n * laneH + (stagger ? laneH / 2 + labelPx * 0.35 : Math.max(laneH * 0.8, (d.present ? small : 11) * 0.8));
    const f = this.focusR(), labelled = [];
    (this.rowLabels = this.rowLabels || [])[k] = { lanes, labelled };  // reported as data-row-labels (tests)
    lanes.forEach((r, n) => {
      // The focused request's row label is always drawn (bold), even where thin lanes draw only every other one.
      // Every `every`-th row, the first one too (labelY keeps its baseline below the steps row, however thin).
      if (!(n % every === 0 || r === f) || labelY(n) > top + h) return;
      labelled.push(r);
      ctx.globalAlpha = f !== null && r !== f ? DIM : 1;
      ctx.font = `${r === f ? "700 " : ""}${labelPx}px sans-serif`;
      ctx.fillText("R" + r, ox + 2 + (stagger && n % 2 ? shift : 0), labelY(n));
    });
    ctx.globalAlpha = 1;
    const s = e.segs;
    for (let j = 0; j < s.r.length; j++) {
      if (!(s.s[j] < hi && s.e[j] > x0)) continue;
      const a = Math.max(s.s[j], x0), b = Math.min(s.e[j], hi), y = bodyTop + row.get(s.r[j]) * laneH;
      const bh = Math.max(laneH * 0.8, 1), bw = Math.max(X(b) - X(a), 0.8), on = f === null || s.r[j] === f;
      ctx.globalAlpha = on ? 1 : DIM; this.hl[on ? 0 : 1]++;
      ctx.fillStyle = C[KINDS[s.k[j]]];
      ctx.fillRect(X(a), y + laneH * 0.1, bw, bh);
      hatch(ctx, d.patterns[KINDS[s.k[j]]], X(a), y + laneH * 0.1, X(b) - X(a), bh);
      ctx.globalAlpha = 1;
      if (f !== null && on) { ctx.strokeStyle = col.text; ctx.lineWidth = 1.5; ctx.strokeRect(X(a), y + laneH * 0.1, bw, bh); }
      this.hits.push([X(a), X(b), y, y + laneH, e, "seg", j]);
    }
    return i;  // its notes are drawn by draw(), after every engine and the transfer bands, so nothing covers them
  }

  // The KV transfers (data.transfers: {r, from, to, s_ms, e_ms, tip}): each a block in palette.TRANSFER that
  // leaves request r's lane on the prefill engine when its first byte goes and moves, as the cursor passes the
  // transfer, down to r's lane on the decode engine (the top of its lanes while it has none there), arriving when
  // the cache is whole there; its path stays drawn (a line from the source's strip to the block), so the band reads
  // after the move as before it. Drawn where both engines share a column (chapter 7: the prefill GPU over the decode GPU).
  drawTransfers(ctx, x0, x1) {
    const d = this.d, hi = Math.min(this.shown, x1), colour = d.colours.transfer, moving = [];
    (d.transfers || []).forEach((tr) => {
      const gp = this.geo[tr.from], gd = this.geo[tr.to];
      const a = Math.max(tr.s_ms, x0), b = Math.min(tr.e_ms, hi);
      if (!gp || !gd || b <= a || gp.X !== gd.X) return;
      const X = gp.X, xa = X(a), xb = X(b);
      const y0 = gp.row.has(tr.r) ? gp.bodyTop + (gp.row.get(tr.r) + 0.5) * gp.laneH : gp.bottom;
      const y1 = gd.row.has(tr.r) ? gd.bodyTop + (gd.row.get(tr.r) + 0.5) * gd.laneH : gd.bodyTop;
      const frac = Math.min(Math.max((b - tr.s_ms) / Math.max(tr.e_ms - tr.s_ms, 1e-9), 0), 1), y = y0 + (y1 - y0) * frac;
      const f = this.focusR(), dim = f !== null && tr.r !== f ? DIM : 1;
      ctx.save(); this.clipTitles(ctx); ctx.globalAlpha = dim; ctx.strokeStyle = ctx.fillStyle = colour; ctx.lineWidth = 2;
      ctx.fillRect(xa, y0 - 1.5, Math.max(xb - xa, 2), 3);  // the source lane's strip, as long as the send
      ctx.beginPath(); ctx.moveTo(xa, y0); ctx.lineTo(xb, y); ctx.stroke();  // the block's path
      ctx.restore();
      // The block: as tall as a lane (10–18 px), 14 px wide, outlined so it reads over the bars it crosses.
      const bh = Math.min(Math.max(gd.laneH || 10, 10), 18), bw = 14, bx = xb - bw / 2, by = y - bh / 2;
      moving.push({ tr, bx, by, bw, bh, dim, inFlight: tr.e_ms > hi });
      this.hits.push([bx, bx + bw, by, by + bh, tr, "kv", 0], [xa, xb, y0 - 3, y0 + 3, tr, "kv", 0]);
    });
    const text = this.colours().text;
    moving.forEach((m) => {  // after every path, so no path crosses a block
      ctx.save(); ctx.globalAlpha = m.dim; ctx.fillStyle = colour; ctx.fillRect(m.bx, m.by, m.bw, m.bh);
      ctx.strokeStyle = text; ctx.lineWidth = 1.5; ctx.strokeRect(m.bx, m.by, m.bw, m.bh); ctx.restore();
    });
    this.box.dataset.transfers = String((d.transfers || []).filter((tr) => tr.s_ms < hi).length);
    // The blocks on the wire at the cursor and where each is (0 at the prefill lane … 1 at the decode lane).
    this.box.dataset.kvMoving = moving.filter((m) => m.inFlight).map((m) => m.tr.r).join(",");
    this.box.dataset.kvBlocks = JSON.stringify(moving.map((m) => [m.tr.r, Math.round(m.by + m.bh / 2)]));
    this.box.dataset.kvRects = JSON.stringify(moving.map((m) => [m.tr.r, ...[m.bx, m.by, m.bx + m.bw, m.by + m.bh]
      .map(Math.round)]));  // [r, x0, y0, x1, y1]: each block's rectangle (the band test reads its pixels)
  }

  // A path passes under the panels' titles (this.titleBoxes), not through their letters ("D · 1P+1D · decode GPU"
  // was crossed out by four lines); the blocks themselves are drawn unclipped, so one in flight stays whole.
  clipTitles(ctx) {
    ctx.beginPath(); ctx.rect(-1, -1, 1e5, 1e5);
    (this.titleBoxes || []).forEach((b) => ctx.rect(b[0], b[1], b[2] - b[0], b[3] - b[1]));
    ctx.clip("evenodd");
  }

  // The chapter's notes (data.notes: {t_ms, x_ms, eng, lane, text}) whose event the cursor has passed, placed by
  // placeLabels (a layout rule, not by hand): a box never overlaps another box, a bar, a steps row, a KV band or a
  // panel's title; a pointer joins it to its event. The boxes are reported (data-labels, and box.__cvLayout with the
  // rectangles they must avoid) so a test can check the rule in a real browser.
  drawLabels(ctx, X, rows, x1, yAxis) {
    const d = this.d, size = d.present ? d.tick_px : 13;
    ctx.font = `600 ${size}px sans-serif`;
    const notes = (d.notes || []).filter((n) => n.t_ms <= this.shown + 1e-6 && this.geo[n.eng])
      .sort((a, b) => a.t_ms - b.t_ms || a.eng - b.eng);
    const items = notes.map((n) => {
      const g = this.geo[n.eng], lane = g.row.has(n.lane) ? g.row.get(n.lane) : 0;
      // Its place in the free column after its own column's cursor (a grid of panels: one per column).
      return { text: n.text, px: g.X(Math.min(n.x_ms, x1)), py: g.bodyTop + lane * g.laneH + g.laneH / 2,
               top: g.top, bottom: g.panelBottom, r: n.lane, marginX: g.X(this.shown) + 10, right: g.X.right };
    });
    // A grid's later columns: their gutters hold row labels, which no label covers.
    const gutters = X.slice(1).map((Xc) => [Xc.ox, 0, Xc.left, yAxis]);
    const obstacles = this.hits.map((h) => [h[0], h[2], h[1], h[3]]).concat(this.titleBoxes || [], gutters);
    const o = { ctx, size, pad: 4, left: X[0].left, right: X[X.length - 1].right, top: 0, bottom: yAxis,
                marginX: this.cursorX + 10, quick: !!this.tween };
    // No free place for every label (a short canvas: lecture mode's fit after the answer): the oldest labels give
    // way, one at a time, until the rest fit, so a label never covers another; the caption line says what happens
    // now. Bounded by the labels' count. A glide's in-between frame (o.quick) only leaves out the ones that clash.
    let kept = items, placed = placeLabels(kept, obstacles, o);
    if (o.quick) placed = placed.filter((b) => !b.clash);
    for (let left = items.length; left > 0 && kept.length > 1 && placed.some((b) => b.clash); left--) {
      kept = kept.slice(1); placed = placeLabels(kept, obstacles, o);
    }
    this.box.dataset.labelsSetAside = String(items.length - placed.length);
    const f = this.focusR();
    placed.forEach((b) => {
      ctx.globalAlpha = f !== null && b.r !== f ? DIM : 1;
      const mid = b.y + b.h / 2, toLeft = b.px <= b.x, ex = toLeft ? b.x : b.px >= b.x + b.w ? b.x + b.w : b.px;
      const ey = ex === b.px ? (b.py < b.y ? b.y : b.y + b.h) : mid;
      ctx.strokeStyle = d.colours.cursor; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(b.px, b.py); ctx.lineTo(ex, ey); ctx.stroke();
      ctx.beginPath(); ctx.arc(b.px, b.py, 3, 0, 2 * Math.PI); ctx.fillStyle = d.colours.cursor; ctx.fill();
      ctx.fillStyle = "rgba(255,255,255,0.96)"; ctx.fillRect(b.x, b.y, b.w, b.h); ctx.strokeRect(b.x, b.y, b.w, b.h);
      ctx.fillStyle = "#1f1f1f"; ctx.textAlign = "left";
      b.lines.forEach((line, i) => ctx.fillText(line, b.x + 4, b.y + 4 + size * (i + 1) + i * 2 - 3));
    });
    ctx.globalAlpha = 1;
    this.noteHits = placed.map((b) => [b.x, b.y, b.x + b.w, b.y + b.h, b.r]);
    this.noteBoxes = placed.map((b) => b.text);
    const r1 = (v) => Math.round(v * 10) / 10;
    this.layout = { labels: placed.map((b) => [b.x, b.y, b.x + b.w, b.y + b.h].map(r1)),
                    avoid: obstacles.map((o) => o.map(r1)), clash: placed.filter((b) => b.clash).length };
    this.box.__cvLayout = this.layout;
    this.box.dataset.labels = JSON.stringify(this.layout.labels);
    this.box.dataset.labelClash = String(this.layout.clash);
  }

  afterDraw(stepIdx) {
    const d = this.d, ds = this.box.dataset;
    this.draws++;
    const g = this.gridIndex();
    if (g !== this.lastGrid) { if (this.lastGrid >= -1 && g > this.lastGrid + 1 && this.playing) this.dropped += g - this.lastGrid - 1; this.stepsShown++; this.lastGrid = g; }
    this.scrub.value = this.cursor;
    const at = this.moment();
    this.readout.textContent = fill(this.t("cursor"), { ms: fmt(this.cursor, 1) }) + (at ? ` · ${at.label}` : "");
    (this.markBtns || []).forEach(([m, b]) => b.classList.toggle("on", m === at));
    ds.moment = at ? at.label : ""; ds.counters = (this.counters || []).join(" | ");
    this.followBtn.classList.toggle("on", this.follow);
    this.why.replaceChildren(...d.engines.map((e, k) => {
      const line = el("div"); const i = stepIdx[k];
      line.appendChild(el("b", "", `${e.tag}: `));
      line.appendChild(document.createTextNode(i >= 0 ? e.why[i] : this.t("no_step")));
      return line;
    }));
    ds.motionMs = String(this.motionMs());  // the glide's length now: "200", or "0" under reduced motion
    ds.cursorMs = this.cursor.toFixed(3); ds.draws = this.draws; ds.stepsShown = this.stepsShown;
    ds.dropped = this.dropped; ds.playing = this.playing ? "1" : "0"; ds.cursorX = (this.cursorX || 0).toFixed(1);
    ds.steps = stepIdx.map((i, k) => (i >= 0 ? d.engines[k].steps.n[i] : -1)).join(",");
    ds.notes = String(this.noteBoxes.length); ds.held = this.held() ? "1" : "0";
    const f = this.focusR(); ds.focusR = f === null ? "" : String(f); ds.pinned = this.pinR === null ? "" : String(this.pinR);
    ds.hl = this.hl.join(",");  // bars drawn full, bars dimmed (all full while nothing is focused)
    if (this.chatCol) this.drawChats(stepIdx);
    if (this.kitchenCanvas) this.drawKitchen(stepIdx);
    if (this.caption) this.drawCaption(stepIdx);
  }

  // The engine a slide's caption speaks of: the one of the last moment (data.stops, each with its engine `eng`) the
  // cursor has reached, so PageDown's every stop is captioned by its own engine; before the first, engine A.
  momentEngine() {
    let best = null;
    (this.d.stops || []).forEach((m) => { if (m.eng !== undefined && m.t_ms <= this.cursor + 1e-6 && (!best || m.t_ms >= best.t_ms)) best = m; });
    return best ? best.eng : 0;
  }

  // The caption: that engine's step at the cursor and the scheduler's reason for it (its why-sentence, from the
  // recorded decision: chunkviz/analysis/why.py), e.g. "A · step 12 of 177: prefill-first: this step runs only
  // R4's 6,806-token prompt, so 4 chats get no token for 180 ms". Reported as data-caption.
  drawCaption(stepIdx) {
    const k = this.momentEngine(), e = this.d.engines[k], i = stepIdx[k];
    const engine = this.d.engines.length > 1 ? `${e.tag} · ` : "";
    let text = i < 0 ? engine + this.t("no_step") : fill(this.t("moment"), { engine, step: this.stepTexts[k], why: e.why[i] });
    text = text.charAt(0).toUpperCase() + text.slice(1);
    if (this.caption.textContent !== text) {  // too long for its line at 1.2em: 1em (16 px in lecture mode), then "…"
      this.caption.textContent = text; this.caption.title = text; this.caption.classList.remove("fit");
      if (this.caption.scrollWidth > this.caption.clientWidth + 1) this.caption.classList.add("fit");
    }
    this.box.dataset.caption = text; this.box.dataset.captionEngine = String(k);
  }

  // Linked highlighting: one request (hovered, else pinned by a click, Enter or ↑/↓) is drawn full everywhere on the
  // slide (its bars outlined, its row label bold, its KV transfer, its labels, its chat window ringed); the rest dim.
  focusR() { return this.hoverR !== null ? this.hoverR : this.pinR; }

  setHoverR(r) { if (r !== this.hoverR) { this.hoverR = r; this.draw(); } }

  pin(r) { this.pinR = r === null || r === this.pinR ? null : r; this.draw(); }

  // The request at a pointer on the canvas: a label's, a KV transfer's, else the lane row under it (label or bars).
  requestAt(ev) {
    const rc = this.canvas.getBoundingClientRect(), x = ev.clientX - rc.left, y = ev.clientY - rc.top;
    const note = (this.noteHits || []).find((b) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]);
    if (note && note[4] !== undefined) return note[4];
    const kv = this.hits.find((h) => h[5] === "kv" && x >= h[0] - 1 && x <= h[1] + 1 && y >= h[2] && y <= h[3]);
    if (kv) return kv[4].r;
    for (const g of this.geo || []) {
      if (!g || y < g.bodyTop || y > g.panelBottom || !g.laneH || x < g.X.ox || x > g.X.right) continue;
      const n = Math.floor((y - g.bodyTop) / g.laneH);
      for (const [r, m] of g.row) if (m === n) return r;
    }
    return null;
  }

  // ↑ / ↓ pin the request above / below (in request order, among those drawn); Escape lets go.
  cycleFocus(step) {
    const all = [...new Set((this.geo || []).flatMap((g) => (g ? [...g.row.keys()] : [])))].sort((a, b) => a - b);
    if (!all.length) return;
    const at = all.indexOf(this.pinR);
    this.pinR = all[at < 0 ? (step > 0 ? 0 : all.length - 1) : (at + step + all.length) % all.length];
    this.hoverR = null; this.draw();
  }

  hover(ev) {
    const r = this.canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    let hit = null;
    for (let n = this.hits.length - 1; n >= 0; n--) {
      const h = this.hits[n];
      if (x >= h[0] - 1 && x <= h[1] + 1 && y >= h[2] && y <= h[3]) { hit = h; break; }
    }
    if (!hit) { this.tip.style.display = "none"; return; }
    this.tip.textContent = this.describe(hit[4], hit[5], hit[6]);
    this.tip.style.display = "block";
    const w = this.canvas.clientWidth;
    this.tip.style.left = Math.min(x + 12, w - 320) + "px"; this.tip.style.top = (y + 14) + "px";
  }

  // Tooltip text: start, end and the true duration (end − start), token ranges 1-based and inclusive.
  describe(e, what, j) {
    const T = this.d.text;
    if (what === "kv") return e.tip;
    if (what === "step") {
      const st = e.steps, a = st.s[j], b = st.s[j] + st.d[j];
      return fill(T.tip_step, { engine: e.label, n: st.n[j] + 1, kind: T["kind_" + st.k[j]], from: fmt(a, 1), to: fmt(b, 1),
                                dur: fmt(st.d[j], 1), p: fmt(st.p[j], 0), dec: fmt(st.dc[j], 0) });
    }
    const s = e.segs, kind = KINDS[s.k[j]], a = s.s[j], b = s.e[j];
    let text = fill(T.tip_seg, { r: s.r[j], kind: T["lbl_" + kind], from: fmt(a, 1), to: fmt(b, 1), dur: fmt(b - a, 1) });
    if (kind === "prefill") text += "\n" + fill(T.tip_tokens, { a: fmt(s.a[j] + 1, 0), b: fmt(s.a[j] + s.tok[j], 0), total: fmt(s.tot[j], 0) });
    if (kind === "decode") text += "\n" + fill(T.tip_decodes, { n: fmt(s.tok[j], 0) });
    return text;
  }

  onKey(ev) {
    const active = window.__cvTimelineActive;
    if (active !== undefined && active !== this.key && document.querySelector(".st-key-" + active)) return;
    const target = ev.composedPath()[0];
    const tag = target && target.tagName;
    const ours = this.box.contains(target) || (this.root.contains && this.root.contains(target));
    // Other widgets keep their own keys (Streamlit's sliders are divs with role="slider", not inputs).
    const role = target && target.getAttribute && target.getAttribute("role");
    // A presentation clicker sends PageDown / PageUp: they step between moments wherever the focus is, except in
    // a field where the learner types (so do B, blank, and F, full screen).
    const typing = tag === "TEXTAREA" || (target && target.isContentEditable) ||
      (tag === "INPUT" && !["radio", "checkbox", "range", "button"].includes(target.type));
    const clicker = { PageDown: () => this.stopBy(1), PageUp: () => this.stopBy(-1), b: () => this.toggleBlank(),
                      B: () => this.toggleBlank(), f: () => this.toggleFull(), F: () => this.toggleFull() }[ev.key];
    if (clicker && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); ev.stopPropagation(); clicker(); return; }
    if (tag === "SELECT") return;  // the speed menu (ours or not) keeps its arrow keys
    if (target === this.handle) return;  // so does the handle (← / → choose the run drawn)
    const widget = ["slider", "spinbutton", "listbox", "combobox", "option", "radio", "textbox", "tab"].includes(role);
    if (!ours && (widget || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable))) return;
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.d.end_ms), " ": () => this.toggle() };
    if (ours) Object.assign(map, { ArrowDown: () => this.cycleFocus(1), ArrowUp: () => this.cycleFocus(-1),
                                   Escape: () => { this.pinR = null; this.hoverR = null; this.draw(); } });
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  // Chat windows (data.chats: per engine, a few requests): each types the tokens emitted by the cursor; a chat
  // whose last token is older than the engine's frozen_ms is frozen, drawn in the stall colour with a ‖ mark.
  drawChats(stepIdx) {
    const d = this.d, T = d.chat_text, c = this.cursor;
    // One header form on the slide: the short one ("R4 · prompt 6,806") wherever some engine has three windows a row.
    const short = !!T.head_short && d.chats.some((eng) => eng.boxes.length > 4);
    this.chatCol.replaceChildren(...d.chats.map((eng, k) => {
      const block = el("div", "chat-engine"); block.style.height = this.panelH + "px";
      const grid = el("div", "chat-grid");
      // Five or six windows (every request a label names or counts, ui/chapters/lanes.py) in two rows of three: the
      // narrow windows drop the typed words and may wrap their status (comparison.css .three).
      if (eng.boxes.length > 4) { grid.style.gridTemplateColumns = "repeat(3, minmax(0, 1fr))"; grid.classList.add("three"); }
      eng.boxes.forEach((b) => grid.appendChild(this.chatBox(b, eng, c, T, short)));
      block.appendChild(grid);
      return block;
    }));
    this.box.dataset.frozen = String(this.chatCol.querySelectorAll(".chat.frozen").length);
  }

  chatBox(b, eng, c, T, short = false) {
    const box = el("div", "chat"), head = el("div", "head"), text = el("div", "text"), status = el("div", "status");
    const f = this.focusR();
    if (f !== null) box.classList.add(b.r === f ? "hl" : "dim");
    box.dataset.r = b.r;
    box.onmouseenter = () => this.setHoverR(b.r); box.onmouseleave = () => this.setHoverR(null);
    box.onclick = () => this.pin(b.r);
    head.textContent = fill(short ? T.head_short : T.head, { r: b.r, prompt: fmt(b.prompt, 0) });
    head.title = fill(T.head, { r: b.r, prompt: fmt(b.prompt, 0) });
    const n = lastBelow(b.tok, c + 1e-6) + 1;  // tokens emitted by the cursor
    let line = "";
    if (b.arr > c) line = T.not_arrived;
    else if (n === 0) {
      const done = b.pre.filter((p) => p[0] <= c + 1e-6).reduce((acc, p) => Math.max(acc, p[1]), 0);
      line = done ? fill(T.reading, { done: fmt(done, 0), total: fmt(b.prompt, 0) }) : fill(T.queued, { ms: fmt(c - b.arr, 0) });
    } else {
      // One line a projector can read: a frozen chat says only that; a typing one its first token and last gap.
      const since = c - b.tok[n - 1], parts = [fill(T.first, { ms: fmt(b.tok[0] - b.arr, 0) })];
      if (n >= b.out) parts.splice(0, 1, fill(T.done, { n: n }));
      else if (since > eng.frozen_ms) { parts.splice(0, 1, fill(T.frozen, { ms: fmt(since, 0) })); box.classList.add("frozen"); }
      else if (n >= 2) parts.push(fill(T.gap, { ms: fmt(b.tok[n - 1] - b.tok[n - 2], 1) }));
      line = parts.join(" · ");
      const words = this.d.chat_words, shown = [];
      for (let i = Math.max(0, n - 8); i < n; i++) shown.push(words[(b.r * 7 + i) % words.length]);
      text.appendChild(el("span", "", (n > 8 ? "… " : "") + shown.join(this.d.chat_joiner) + " ▌"));
    }
    status.textContent = line;
    if (box.classList.contains("frozen")) box.style.borderColor = this.d.colours.stall;
    box.appendChild(head); box.appendChild(text); box.appendChild(status);
    return box;
  }

  // Chapter 1's kitchen (data.kitchen: per engine, from ui/chapters/kitchen.py; texts data.kitchen_text): a canvas
  // beside the lanes with the one stove (what the step at the cursor cooks: whose prompt chunk, how many dishes,
  // i.e. decode tokens), the fridge (the KV cache: the step's blocks in use of the run's total, and the table
  // holding most) and a table per request with its order ticket (prompt tokens, dishes plated by the cursor, its
  // state during the step). Every figure is the trace's; what is drawn is reported as data-kitchen (JSON), per engine.
  buildKitchen(stage) {
    this.kitchenBox = el("div", "kitchen"); this.kitchenCanvas = el("canvas");
    this.kitchenBox.appendChild(this.kitchenCanvas); stage.appendChild(this.kitchenBox); stage.classList.add("with-kitchen");
    // The kitchen ↔ engine map, one line under the stage (the glossary's terms in 中文).
    if (this.d.kitchen_text.map) this.box.appendChild(el("div", "kmap", this.d.kitchen_text.map));
    const at = (ev) => {
      const r = this.kitchenCanvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      const hit = (this.kitchenHits || []).find((h) => x >= h[0] && x <= h[2] && y >= h[1] && y <= h[3]);
      return hit ? hit[4] : null;
    };
    this.kitchenCanvas.onmousemove = (ev) => this.setHoverR(at(ev));
    this.kitchenCanvas.onmouseleave = () => this.setHoverR(null);
    this.kitchenCanvas.onclick = (ev) => this.pin(at(ev));
  }

  // What engine k's kitchen shows at the cursor (i: its step at the cursor, -1 before the first): the step's
  // stove (prompt chunks, the requests it plates a dish for) and fridge while the cursor is inside it, each table's
  // state, dishes and blocks.
  kitchenAt(kit, i, k) {
    const st = this.d.engines[k].steps, c = this.cursor, S = ["not_arrived", "waiting", "cooking", "served", "frozen", "done"];
    const inStep = i >= 0 && c <= st.s[i] + st.d[i] + 1e-6;
    const tables = kit.tables.map((b, j) => {
      const n = lastBelow(b.tok, c + 1e-6) + 1;  // dishes plated by the cursor (tokens emitted)
      let state = inStep ? S[kit.state[i][j]] : "waiting";
      if (b.arr > c + 1e-6) state = "not_arrived";
      else if (b.out && n >= b.out) state = "done";
      else if (state === "not_arrived" || state === "done") state = "waiting";
      else if (!inStep && n > 0) state = "served";
      const ms = state === "frozen" ? c - b.tok[n - 1] : state === "waiting" ? c - b.arr : null;
      return { r: b.r, prompt: b.prompt, dishes: n, state, ms, blocks: i >= 0 ? kit.blocks[i][j] : 0 };
    });
    return { step: i >= 0 ? st.n[i] : -1, busy: inStep, cook: inStep ? kit.cook[i] : [], plated: inStep ? kit.plated[i] : [],
             used: i >= 0 ? kit.used[i] : 0, total: kit.total_blocks, tables };
  }

  drawKitchen(stepIdx) {
    const d = this.d, cv = this.kitchenCanvas, dpr = window.devicePixelRatio || 1;
    const W = Math.max(this.kitchenBox.clientWidth, 160), H = Math.max(this.canvas.clientHeight || this.height(), 80);
    if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
      cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); cv.style.height = H + "px";
    }
    const ctx = cv.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, W, H);
    this.kitchenHits = [];
    const views = d.kitchen.map((kit, k) => this.kitchenAt(kit, stepIdx[k], k)), h = H / views.length;
    views.forEach((v, k) => this.drawOneKitchen(ctx, v, 0, k * h, W, h - (views.length > 1 ? 6 : 0)));
    this.box.dataset.kitchen = JSON.stringify(views);
  }

  drawOneKitchen(ctx, v, x0, y0, W, H) {
    const d = this.d, T = d.kitchen_text, C = d.colours, text = this.colours().text, f = this.focusR();
    const font = d.present ? 16 : 13, lh = font + 3, gap = 6;
    const paper = getComputedStyle(this.box).getPropertyValue("--st-secondary-background-color").trim() || "rgba(128,128,128,0.12)";
    const n = (v2, one, many, zero) => fill(v2 === 1 ? T[one] : v2 === 0 && zero ? T[zero] : T[many], { n: fmt(v2, 0) });
    // The band on top: the stove (left) and the fridge (right), three lines each, two when the stage is short.
    const rows = Math.ceil(v.tables.length / 3), bandLines = H - 3 * lh - 2 * gap >= rows * (2 * lh + 6) ? 3 : 2;
    const bandH = bandLines * lh + 4, stoveW = Math.round(W * 0.58);
    // The stove: two burners side by side, lit in the prefill colour for a prompt, the decode colour for dishes.
    const p = v.cook.reduce((a, c) => a + c[1], 0), who = v.cook.map((c) => "R" + c[0]).join(", ");
    const bx = x0 + 2, by = y0 + 2, bw = 50, bh = bandH - 4, r = Math.min(bw / 4 - 2, bh / 2 - 6);
    ctx.strokeStyle = text; ctx.lineWidth = 1.5; ctx.strokeRect(bx, by, bw, bh);
    ctx.fillStyle = text; ctx.fillRect(bx, by + bh - 5, bw, 1.5);  // the oven's edge under the hob
    [[p > 0, C.prefill], [v.plated.length > 0, C.decode]].forEach(([lit, colour], j) => {
      ctx.beginPath(); ctx.arc(bx + bw * (j ? 0.73 : 0.27), by + (bh - 5) / 2, r, 0, 2 * Math.PI);
      ctx.fillStyle = lit ? colour : "rgba(128,128,128,0.25)"; ctx.fill(); ctx.stroke();
    });
    const stove = [T.stove];
    if (!v.busy) stove.push(T.idle);
    else {
      if (p) stove.push(fill(T.cook, { who, p: fmt(p, 0) }));
      // Its dishes: the decodes and the first token of a prompt it finishes (named when a few).
      const dishes = v.plated.length, few = dishes && dishes <= 3 ? fill(T.for, { who: v.plated.map((r) => "R" + r).join(", ") }) : "";
      stove.push(dishes ? n(dishes, p ? "plus_one" : "plates_one", p ? "plus" : "plates") + (p ? few : "") : T.no_dish);
    }
    v.lines = { stove, tables: [] };  // the full texts (each line drawn is one of them, cut with "…" if too long)
    this.kitchenLines(ctx, bandLines === 3 ? stove : [stove[0] + T.colon + stove[1], ...stove.slice(2)].slice(0, 2),
                      bx + bw + 6, by, stoveW - bw - 14, font, lh, text);
    // The fridge: its fill from the bottom is the blocks in use over the pool (at least a line while any is used).
    const fx = x0 + stoveW, fw = 30, frac = v.total ? v.used / v.total : 0;
    ctx.strokeRect(fx, by, fw, bh); ctx.fillStyle = C.decode;
    const fh = v.used ? Math.max(2, bh * frac) : 0; ctx.fillRect(fx + 1.5, by + bh - fh, fw - 3, fh);
    ctx.fillStyle = text; ctx.fillRect(fx, by + bh * 0.3, fw, 1.5);  // the freezer's door
    ctx.fillRect(fx + fw - 6, by + 4, 2, bh * 0.3 - 8); ctx.fillRect(fx + fw - 6, by + bh * 0.3 + 5, 2, Math.min(14, bh / 3));  // handles
    const most = v.tables.reduce((a, t) => (t.blocks > (a ? a.blocks : 0) ? t : a), null);
    const pct = fmt(Math.round(frac * 1000) / 10, 1);
    const fridge = [fill(T.fridge, { pct }), fill(T.blocks, { used: fmt(v.used, 0), total: fmt(v.total, 0) })];
    if (most) fridge.push(fill(T.holds, { r: most.r, n: fmt(most.blocks, 0) }));
    v.lines.fridge = fridge;
    this.kitchenLines(ctx, fridge.slice(0, bandLines), fx + fw + 6, by, W - stoveW - fw - 8, font, lh, text);
    // The tables: three to a row, each a ticket (order, dishes, state) on a table edged in its state's colour.
    const top = y0 + bandH + gap, cols = 3, cw = (W - (cols - 1) * gap) / cols, ch = (H - bandH - gap - (rows - 1) * gap) / rows;
    const lines = Math.max(1, Math.min(3, Math.floor((ch - 6) / lh)));
    const edge = { not_arrived: "rgba(128,128,128,0.5)", waiting: C.waiting, cooking: C.prefill, served: C.decode,
                   frozen: C.stall, done: text };
    v.tables.forEach((t, j) => {
      const x = x0 + (j % cols) * (cw + gap), y = top + Math.floor(j / cols) * (ch + gap);
      ctx.save(); ctx.globalAlpha = f !== null && t.r !== f ? DIM : 1;
      ctx.beginPath(); ctx.roundRect(x + 1, y + 1, cw - 2, ch - 2, 8); ctx.fillStyle = paper; ctx.fill();
      ctx.strokeStyle = edge[t.state]; ctx.lineWidth = t.r === f ? 4 : 2.5;
      ctx.setLineDash(t.state === "frozen" || t.state === "not_arrived" ? [6, 4] : []); ctx.stroke(); ctx.setLineDash([]);
      const state = fill(T["st_" + t.state], { ms: t.ms === null ? "" : fmt(t.ms, 0) });
      const dishes = n(t.dishes, "dish_one", "dishes", "dish_none");
      const ticket = [fill(T.ticket, { r: t.r, p: fmt(t.prompt, 0) }), dishes, state];
      v.lines.tables.push(ticket);
      const shown = lines >= 3 ? ticket : lines === 2 ? [ticket[0], t.state === "not_arrived" || t.state === "waiting" || t.state === "frozen" ? state : dishes] : [ticket[0]];
      const colours = shown.map((s) => (s === state && (t.state === "frozen" || t.state === "cooking") ? edge[t.state] : text));
      this.kitchenLines(ctx, shown, x + 6, y + Math.max(2, (ch - shown.length * lh) / 2 - 1), cw - 10, font, lh, colours, [true]);
      ctx.restore();
      this.kitchenHits.push([x, y, x + cw, y + ch, t.r]);
    });
  }

  // Lines of text from (x, y) down, each cut with "…" to maxW; `bold[i]` makes line i bold; colour per line or one.
  kitchenLines(ctx, lines, x, y, maxW, font, lh, colour, bold = [true]) {
    ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
    lines.forEach((s, i) => {
      ctx.font = `${bold[i] ? "700 " : ""}${font}px sans-serif`;
      ctx.fillStyle = Array.isArray(colour) ? colour[i] : colour;
      let t = s;
      while (t.length > 2 && ctx.measureText(t).width > maxW) t = t.slice(0, -2) + "…";
      ctx.fillText(t, x, y + (i + 1) * lh - 4);
    });
  }

  destroy() { this.pause(); this.endTween(); clearTimeout(this.urlTimer); if (LIVE[this.key] === this) this.save(); this.box.remove(); }
}

// Rooms (ui/components/room/room.js): each drawn cursor is announced as cv:cursor (a teacher's page posts it); a
// follower's stepper obeys cv:room-cursor for its key (cursor null: the reveal only, which lifts the hold).
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

function roomMove(tl, m) {
  if (!m || m.key !== tl.roomKey) return;
  if (m.revealed && tl.d.hold_ms != null && !tl.revealed) tl.revealed = true;
  if (m.cursor != null) tl.jumpTo(m.cursor); else tl.draw();
}

function roomHook(tl) {
  const drawn = tl.afterDraw.bind(tl);
  tl.roomKey = elementKey(tl.root, tl.key);
  const announce = () => window.dispatchEvent(new CustomEvent("cv:cursor", { detail: {
    key: tl.roomKey, cursor: tl.cursor, playing: tl.playing, revealed: tl.d.hold_ms != null && tl.revealed } }));
  tl.afterDraw = (stepIdx) => { drawn(stepIdx); announce(); };
  const onRoom = (ev) => roomMove(tl, ev.detail);
  window.addEventListener("cv:room-cursor", onRoom);
  if (window.__cvRoom && window.__cvRoom.lastCursor) roomMove(tl, window.__cvRoom.lastCursor);
  announce();
  return () => window.removeEventListener("cv:room-cursor", onRoom);
}

export default function (component) {
  const { data, parentElement, key } = component;
  const host = parentElement;
  // The state's key is the page's path and the element's own key (st-key-<key>), not Streamlit's instance key: that
  // one is new whenever React mounts the element afresh (the answer's rerun drops the "what you will see" line in
  // lecture mode, and the slide re-mounted in a new instance at the question's moment, its cursor and hold lost).
  const k = `${window.location.pathname}#${elementKey(host, key || "timeline")}`;
  // A rerun that did not change the scenario: keep everything, but write the cursor into the URL again, because
  // the server rewrites the query string from the values it read when the session started.
  if (host.__cv && host.__cv.d.version === data.version) { host.__cv.saveUrlSoon(); return () => {}; }
  if (host.__cv) host.__cv.destroy();
  window.__cvMounts = (window.__cvMounts || 0) + 1;  // tests: a handle's drag mounts nothing
  const restored = STATE[k] !== undefined;
  const tl = new Timeline(host, data, k);
  host.__cv = tl; LIVE[k] = tl;
  if (restored) tl.saveUrlSoon();
  const onKey = (ev) => tl.onKey(ev);
  const onResize = () => { tl.fit(); tl.draw(); };
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", onResize);
  const unroom = roomHook(tl);
  // Lecture mode's fit (data.fit_to): the page's elements under the stage arrive and grow after the mount (the
  // question's verdict comes with the same rerun), so the fit follows the main block's size.
  const page = data.fit_to && document.querySelector('[data-testid="stMainBlockContainer"]');
  const sizer = page ? new ResizeObserver(() => tl.fit()) : null;
  if (sizer) sizer.observe(page);
  tl.unlisten = () => { window.removeEventListener("keydown", onKey, true); window.removeEventListener("resize", onResize);
                        if (sizer) sizer.disconnect(); unroom(); };
  return () => {
    if (host.__cv === tl) { tl.unlisten(); tl.destroy(); host.__cv = null; }
  };
}
