// chunkviz comparison element (`/` and the lecture chapters): the engines on one canvas with a shared time axis; the
// cursor (a time in ms) moves in the browser (arrow keys, buttons, scrub, play by simulated time or by steps, and a
// presentation clicker's PageDown / PageUp between the moments that teach), so no step waits for a server rerun.
// Invariant: nothing after the cursor is drawn (bars, notes, chat text); while a question is open (data.hold_ms) the
// cursor never passes it; data arrives once per scenario (data.version) and is read-only.

const KINDS = ["waiting", "prefill", "decode", "stall", "preempted"];
const STATE = (window.__cvTimelineState = window.__cvTimelineState || {});  // per key: survives re-mounts

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

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

class Timeline {
  constructor(root, data, key) {
    this.d = data; this.key = key; this.root = root;
    const saved = STATE[key] || {};
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
    this.build();
    this.draw();
    this.save();  // a re-mount before any move (the question answered) still knows the question held the cursor
  }

  t(name) { return this.d.text[name] || name; }

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
    box.tabIndex = 0; this.box = box;
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
    this.scrub.oninput = () => { this.pause(); this.afterReveal = false; this.cursor = this.clamp(+this.scrub.value); this.draw(); this.saveUrlSoon(); };
    // A slide keeps the scrub in the button row (one row less), its moments' buttons in the legend row.
    (d.slide ? bar : box).appendChild(this.scrub);
    const stage = el("div", "stage"), plot = el("div", "plot"); this.canvas = el("canvas"); this.tip = el("div", "tip");
    plot.appendChild(this.canvas); plot.appendChild(this.tip); stage.appendChild(plot); this.plot = plot; box.appendChild(stage);
    if (d.chats) { this.chatCol = el("div", "chats"); stage.appendChild(this.chatCol); stage.classList.add("with-chats"); }
    const row = el("div", "row"), legend = el("div", "legend"), marks = el("div", "marks");
    // `/` (not a slide): the legend comes before the lanes, above the fold, and (but in lecture mode, where the
    // teacher says it) the one line saying what they are.
    if (!d.slide && !d.present && d.text.guide) box.insertBefore(el("div", "guide", d.text.guide), stage);
    if (!d.slide) box.insertBefore(row, stage);
    d.legend.concat(d.legend_extra || []).forEach(([label, colour, kind]) => { const s = el("span"); const i = el("i"); i.style.background = colour; const tile = hatchTile(d.patterns[kind]); if (tile) i.style.backgroundImage = `url(${tile.toDataURL()})`; s.appendChild(i); s.appendChild(document.createTextNode(label)); legend.appendChild(s); });
    this.markButtons(marks, d.slide ? this.slideMarks() : d.bookmarks);
    row.appendChild(legend); row.appendChild(marks); if (d.slide) box.appendChild(row);
    if (!d.slide) box.appendChild(this.cards());
    this.why = el("div", "why"); if (!d.slide) box.appendChild(this.why);
    this.blankCover = el("div", "cover", this.t("blank")); box.appendChild(this.blankCover);
    this.canvas.onmousemove = (e) => this.hover(e);
    this.canvas.onmouseleave = () => { this.tip.style.display = "none"; };
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

  save() { STATE[this.key] = { version: this.d.version, cursor: this.cursor, speed: this.speed, follow: this.follow, held: this.held(),
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
    const g = this.d.grid_ms, [x0, x1] = this.window(), px = (x1 - x0) / Math.max(this.plot.clientWidth || 600, 100);
    let target = n > 0 ? Math.min(this.gridIndex() + n, g.length - 1) : Math.max(lastBelow(g, this.cursor - 1e-6) + 1 + n, 0);
    while (n > 0 && target < g.length - 1 && g[target] - this.cursor < px) target++;
    while (n < 0 && target > 0 && this.cursor - g[target] < px) target--;
    this.afterReveal = false; this.cursor = this.clamp(g[Math.max(target, 0)]); this.draw(); this.saveUrlSoon();
  }

  jumpTo(ms) { this.afterReveal = false; this.pause(); this.cursor = this.clamp(ms); this.draw(); this.saveUrlSoon(); }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.cursor >= this.clamp(this.d.end_ms) - 1e-6) this.cursor = 0;
    this.playing = true; this.acc = 0; this.last = performance.now(); this.afterReveal = false;
    this.playBtn.textContent = this.t("pause"); this.playBtn.classList.add("on");
    this.box.dataset.playing = "1";
    const tick = (now) => {
      if (!this.playing) return;
      this.advance(Math.min(now - this.last, 250)); this.last = now; this.draw();
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

  window() {
    const d = this.d, w = d.window_ms;
    // A chapter zooms on the moment being taught: half as far again as the cursor (at least zoom_ms), at most the run.
    if (d.zoom_ms) return [0, Math.min(Math.max(d.end_ms, 1), Math.max(d.zoom_ms, 1.5 * this.cursor))];
    if (!this.follow || d.end_ms <= w) return [0, Math.max(d.end_ms, 1)];
    const hi = Math.min(Math.max(this.cursor, w * 0.85) + w * 0.15, d.end_ms);
    return [hi - w, hi];
  }

  colours() {
    const css = getComputedStyle(this.box);
    return { text: css.getPropertyValue("--st-text-color").trim() || css.color || "#31333f",
             grid: "rgba(128,128,128,0.25)", cursor: css.getPropertyValue("--st-text-color").trim() || "#31333f" };
  }

  // Lanes of one engine active in [x0, min(cursor, x1)], and the step index at the cursor.
  activeLanes(e, x0, x1) {
    const hi = Math.min(this.cursor, x1), seen = new Set(), s = e.segs;
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

  draw() {
    const d = this.d, c = this.canvas, dpr = window.devicePixelRatio || 1;
    const width = Math.max(this.plot.clientWidth || this.box.clientWidth || 600, 300), height = this.height();
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr); c.height = Math.round(height * dpr); c.style.height = height + "px";
    }
    const ctx = c.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, width, height);
    const col = this.colours(), font = d.font_px, tick = d.tick_px;
    const [x0, x1] = this.window(), left = d.gutter_px, right = width - (d.present ? 22 : 10), axisH = tick + 12;
    const X = (ms) => left + ((ms - x0) / (x1 - x0)) * (right - left);
    this.hits = [];
    const panelH = (height - axisH) / d.engines.length;
    const stepIdx = [];
    this.panelH = panelH; this.noteBoxes = [];
    d.engines.forEach((e, k) => stepIdx.push(this.drawEngine(ctx, e, k * panelH, panelH, X, x0, x1, col, font, k)));
    this.drawTransfers(ctx, X, x0, x1);
    this.geo.forEach((g, k) => this.drawNotes(ctx, k, X, x1, g.bodyTop, g.laneH, g.row, g.panelBottom));
    // Shared time axis with ticks every "nice" interval.
    const span = x1 - x0, raw = span / 8, pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const stepMs = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= raw);
    ctx.font = `${tick}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "center";
    const yAxis = height - axisH;
    for (let v = Math.ceil(x0 / stepMs) * stepMs; v <= x1; v += stepMs) {
      const x = X(v); ctx.fillRect(x, yAxis, 1, 4); ctx.fillText(fmt(v, 0), x, yAxis + tick + 4);
      ctx.fillStyle = col.grid; ctx.fillRect(x, 0, 1, yAxis); ctx.fillStyle = col.text;
    }
    ctx.textAlign = "left"; ctx.fillText(this.t("time_ms"), 2, yAxis + tick + 4);
    // The cursor: palette.CURSOR, a colour no bar uses.
    const xc = X(this.cursor); this.cursorX = xc;
    ctx.fillStyle = d.colours.cursor; ctx.fillRect(xc - 1.5, 0, 3, yAxis);
    this.afterDraw(stepIdx);
  }

  drawEngine(ctx, e, top, h, X, x0, x1, col, font, k) {
    const d = this.d, C = d.colours, hi = Math.min(this.cursor, x1), st = e.steps;
    const i = lastBelow(st.s, this.cursor);  // the step running at (or just finished by) the cursor
    ctx.font = `600 ${font}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "left";
    const idle = i >= 0 && this.cursor > st.s[i] + st.d[i] + 1e-6;
    // Counted from 1 (the engine numbers its steps from 0), so the run's last step reads "step N of N".
    const stepText = i < 0 ? this.t("no_step") : fill(this.t(idle ? "step_idle" : "step_of"), { n: st.n[i] + 1, total: st.n.length });
    // The engine's name gives way (…) before its step number does, so a long name never runs off the panel.
    const room = (this.plot.clientWidth || 600) - 12 - ctx.measureText(` · ${stepText}`).width;
    let name = `${e.tag} · ${e.label}`;
    while (name.length > 4 && ctx.measureText(name).width > room) name = name.slice(0, -2) + "…";
    ctx.fillText(`${name} · ${stepText}`, 4, top + font + 2);
    (this.counters = this.counters || [])[k] = stepText;  // read back as data-counters (tests)
    const laneTop = top + font + 8, stepH = Math.max(font, 14);
    const small = d.present ? d.tick_px : d.tick_px - 2;  // lecture mode: no text under 16 px
    ctx.font = `${small}px sans-serif`; ctx.fillText(this.t("steps"), 2, laneTop + stepH - 3);
    for (let j = Math.max(lastBelow(st.s, x0) - 1, 0); j < st.s.length && st.s[j] < hi; j++) {
      const a = Math.max(st.s[j], x0), b = Math.min(st.s[j] + st.d[j], hi);
      if (b <= a) continue;
      ctx.fillStyle = C[st.k[j]]; ctx.fillRect(X(a), laneTop, Math.max(X(b) - X(a) - 0.5, 0.8), stepH);
      hatch(ctx, d.patterns[st.k[j]], X(a), laneTop, X(b) - X(a) - 0.5, stepH);
      this.hits.push([X(a), X(b), laneTop, laneTop + stepH, e, "step", j]);
    }
    const lanes = this.activeLanes(e, x0, x1), bodyTop = laneTop + stepH + 6, bodyH = top + h - bodyTop - 4;
    const laneH = lanes.length ? Math.min(bodyH / lanes.length, d.lane_max_px) : 0;
    const row = new Map(lanes.map((r, n) => [r, n])), every = Math.max(1, Math.ceil((d.tick_px + 2) / Math.max(laneH, 1)));
    (this.geo = this.geo || [])[k] = { row, bodyTop, laneH, laneTop, top, bottom: top + h - 4, panelBottom: top + h };
    ctx.fillStyle = col.text; ctx.font = `${d.present ? small : Math.max(11, Math.min(small, laneH))}px sans-serif`;
    // A label's baseline never rises into the steps row above, however thin the lanes are.
    const labelY = (n) => bodyTop + n * laneH + Math.max(laneH * 0.8, (d.present ? small : 11) * 0.8);
    lanes.forEach((r, n) => { if (n % every === 0 && (d.present || n * laneH >= 6) && labelY(n) <= top + h) ctx.fillText("R" + r, 2, labelY(n)); });
    const s = e.segs;
    for (let j = 0; j < s.r.length; j++) {
      if (!(s.s[j] < hi && s.e[j] > x0)) continue;
      const a = Math.max(s.s[j], x0), b = Math.min(s.e[j], hi), y = bodyTop + row.get(s.r[j]) * laneH;
      ctx.fillStyle = C[KINDS[s.k[j]]];
      ctx.fillRect(X(a), y + laneH * 0.1, Math.max(X(b) - X(a), 0.8), Math.max(laneH * 0.8, 1));
      hatch(ctx, d.patterns[KINDS[s.k[j]]], X(a), y + laneH * 0.1, X(b) - X(a), Math.max(laneH * 0.8, 1));
      this.hits.push([X(a), X(b), y, y + laneH, e, "seg", j]);
    }
    return i;  // its notes are drawn by draw(), after every engine and the transfer bands, so nothing covers them
  }

  // The KV transfers (data.transfers: {r, from, to, s_ms, e_ms, tip}): a band in palette.TRANSFER from request r's
  // lane on the prefill engine down to its lane on the decode engine (the top of its lanes while it has none there),
  // over the time the cache is on the wire, cut at the cursor like every bar; solid strips at both ends carry the tip.
  drawTransfers(ctx, X, x0, x1) {
    const d = this.d, hi = Math.min(this.cursor, x1), colour = d.colours.transfer;
    (d.transfers || []).forEach((tr) => {
      const gp = this.geo[tr.from], gd = this.geo[tr.to];
      const a = Math.max(tr.s_ms, x0), b = Math.min(tr.e_ms, hi);
      if (!gp || !gd || b <= a) return;
      const xa = X(a), w = Math.max(X(b) - xa, 1.5);
      const y0 = gp.row.has(tr.r) ? gp.bodyTop + (gp.row.get(tr.r) + 0.9) * gp.laneH : gp.bottom;
      const y1 = gd.row.has(tr.r) ? gd.bodyTop + (gd.row.get(tr.r) + 0.1) * gd.laneH : gd.bodyTop;
      // The decode engine's title line and steps row stay clear (the band passes behind them), and the tint is
      // light, so the bars it crosses keep their own colours; the solid strips at both ends carry the colour.
      const spans = [[y0, Math.min(y1, gd.top)], [Math.max(y0, gd.bodyTop - 2), y1]].filter(([p, q]) => q > p);
      ctx.save(); ctx.globalAlpha = 0.13; ctx.fillStyle = colour;
      spans.forEach(([p, q]) => ctx.fillRect(xa, p, w, q - p)); ctx.restore();
      ctx.fillStyle = colour; ctx.fillRect(xa, y0, w, 3); ctx.fillRect(xa, y1 - 3, w, 3);
      if (tr.e_ms <= hi) ctx.fillRect(xa + w - 2, y0, 2, y1 - y0);  // arrived: one line joins the two ends
      this.hits.push([xa, xa + w, y0 - 2, y0 + 5, tr, "kv", 0], [xa, xa + w, y1 - 5, y1 + 2, tr, "kv", 0]);
    });
    this.box.dataset.transfers = String((d.transfers || []).filter((tr) => tr.s_ms < hi).length);
  }

  // The chapter's notes (data.notes: {t_ms, x_ms, eng, lane, text}) of engine k whose event the cursor has passed:
  // a callout with a pointer at (x_ms, lane); later notes of the same engine sit one line lower, never on top.
  drawNotes(ctx, k, X, x1, bodyTop, laneH, row, bottom) {
    const d = this.d, notes = (d.notes || []).filter((n) => n.eng === k && n.t_ms <= this.cursor + 1e-6);
    const size = d.present ? d.tick_px : 13, pad = 4, width = this.plot.clientWidth || 600;
    ctx.font = `600 ${size}px sans-serif`;
    const placed = [], top = bodyTop - laneH;
    notes.forEach((n) => {
      const px = X(Math.min(n.x_ms, x1)), lane = row.has(n.lane) ? row.get(n.lane) : 0;
      const py = bodyTop + lane * laneH + laneH / 2, w = ctx.measureText(n.text).width + 2 * pad, h = size + 2 * pad;
      const left = px < width * 0.55;
      const bx = Math.max(2, Math.min(left ? px + 24 : px - 24 - w, width - w - 2));
      // The first free line from the lane upward, then downward, inside the engine's panel: no two notes overlap.
      const free = (y) => y >= top && y + h <= bottom - 2 && placed.every(([x, yy, ww]) => bx + w < x || bx > x + ww || y + h + 2 < yy || y > yy + h + 2);
      let by = py - h / 2;
      for (let k = 0; k < 12; k++) {
        const up = py - h / 2 - k * (h + 3), down = py - h / 2 + k * (h + 3);
        if (free(up)) { by = up; break; }
        if (free(down)) { by = down; break; }
      }
      by = Math.min(Math.max(by, top), bottom - h - 2);
      placed.push([bx, by, w]);
      ctx.strokeStyle = d.colours.cursor; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(px, py); ctx.lineTo(left ? bx : bx + w, by + h / 2); ctx.stroke();
      ctx.fillStyle = "rgba(255,255,255,0.94)"; ctx.fillRect(bx, by, w, h); ctx.strokeRect(bx, by, w, h);
      ctx.fillStyle = "#1f1f1f"; ctx.textAlign = "left"; ctx.fillText(n.text, bx + pad, by + size + pad - 3);
      this.noteBoxes.push(n.text);
    });
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
    ds.cursorMs = this.cursor.toFixed(3); ds.draws = this.draws; ds.stepsShown = this.stepsShown;
    ds.dropped = this.dropped; ds.playing = this.playing ? "1" : "0"; ds.cursorX = (this.cursorX || 0).toFixed(1);
    ds.steps = stepIdx.map((i, k) => (i >= 0 ? d.engines[k].steps.n[i] : -1)).join(",");
    ds.notes = String(this.noteBoxes.length); ds.held = this.held() ? "1" : "0";
    if (this.chatCol) this.drawChats(stepIdx);
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
    const widget = ["slider", "spinbutton", "listbox", "combobox", "option", "radio", "textbox", "tab"].includes(role);
    if (!ours && (widget || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable))) return;
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.d.end_ms), " ": () => this.toggle() };
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  // Chat windows (data.chats: per engine, a few requests): each types the tokens emitted by the cursor; a chat
  // whose last token is older than the engine's frozen_ms is frozen, drawn in the stall colour with a ‖ mark.
  drawChats(stepIdx) {
    const d = this.d, T = d.chat_text, c = this.cursor;
    this.chatCol.replaceChildren(...d.chats.map((eng, k) => {
      const block = el("div", "chat-engine"); block.style.height = this.panelH + "px";
      if (eng.stove) block.appendChild(el("div", "stove", this.stove(eng, stepIdx[k], k)));
      const grid = el("div", "chat-grid");
      eng.boxes.forEach((b) => grid.appendChild(this.chatBox(b, eng, c, T)));
      block.appendChild(grid);
      return block;
    }));
    this.box.dataset.frozen = String(this.chatCol.querySelectorAll(".chat.frozen").length);
  }

  stove(eng, i, k) {
    const st = this.d.engines[k].steps, T = this.d.chat_text;
    if (i < 0 || this.cursor > st.s[i] + st.d[i] + 1e-6) return T.stove_idle;
    if (!st.p[i]) return fill(T.stove_decode, { dec: fmt(st.dc[i], 0) });
    return fill(T.stove, { p: fmt(st.p[i], 0), who: eng.stove[i] || "–", dec: fmt(st.dc[i], 0) });
  }

  chatBox(b, eng, c, T) {
    const box = el("div", "chat"), head = el("div", "head"), text = el("div", "text"), status = el("div", "status");
    head.textContent = fill(T.head, { r: b.r, prompt: fmt(b.prompt, 0) });
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
      text.textContent = (n > 8 ? "… " : "") + shown.join(this.d.chat_joiner) + " ▌";
    }
    status.textContent = line;
    if (box.classList.contains("frozen")) box.style.borderColor = this.d.colours.stall;
    box.appendChild(head); box.appendChild(text); box.appendChild(status);
    return box;
  }

  destroy() { this.pause(); clearTimeout(this.urlTimer); this.save(); this.box.remove(); }
}

export default function (component) {
  const { data, parentElement, key } = component;
  const host = parentElement;
  const k = key || "timeline";
  // A rerun that did not change the scenario: keep everything, but write the cursor into the URL again, because
  // the server rewrites the query string from the values it read when the session started.
  if (host.__cv && host.__cv.d.version === data.version) { host.__cv.saveUrlSoon(); return () => {}; }
  if (host.__cv) host.__cv.destroy();
  const restored = STATE[k] !== undefined;
  const tl = new Timeline(host, data, k);
  host.__cv = tl;
  if (restored) tl.saveUrlSoon();
  const onKey = (ev) => tl.onKey(ev);
  const onResize = () => { tl.fit(); tl.draw(); };
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", onResize);
  // Lecture mode's fit (data.fit_to): the page's elements under the stage arrive and grow after the mount (the
  // question's verdict comes with the same rerun), so the fit follows the main block's size.
  const page = data.fit_to && document.querySelector('[data-testid="stMainBlockContainer"]');
  const sizer = page ? new ResizeObserver(() => tl.fit()) : null;
  if (sizer) sizer.observe(page);
  tl.unlisten = () => { window.removeEventListener("keydown", onKey, true); window.removeEventListener("resize", onResize);
                        if (sizer) sizer.disconnect(); };
  return () => {
    if (host.__cv === tl) { tl.unlisten(); tl.destroy(); host.__cv = null; }
  };
}
