// chunkviz KV stage: the paged KV cache of one run, stepped in the browser. The run's per-step deltas (block states,
// block tables, free-queue head) arrive once and are replayed here into per-step states; the cursor (a step index)
// moves by arrow keys, buttons, the scrub bar, bookmarks and play, and is mirrored into the URL as kv_step.
// Appended to ui/stage_player.js (ui/stage_component.py): el, fill, the clicker's keys (PageDown / PageUp between
// the bookmarks, B blank, F full screen), the saved state and mountStage are the shared player's; the controls are
// the stage's own (its speeds include the simulated clock).
// Linked highlighting: a request under the pointer (its cells, its table, its name, a shared block's owners), else
// the one pinned by a tap, Enter / Space on its name or ↑ / ↓, is emphasised in every view and the rest dimmed;
// Escape lets go. It lives in the browser only (no rerun). A step's change is a 200 ms tween (s40 motion convention:
// data-motion-ms, data-animating), none under prefers-reduced-motion; its last frame is the step's plain drawing.
// Invariant: data is read-only; the drawing is a pure function of (data, cursor, focus, hover); no step waits for the
// server.

const F = 5;  // per block and step: owner request (-1 free), sample, ref count, cached 0/1, tokens filled
const SHOW_CAPTIONS = 3;  // caption lines drawn; the rest are counted in one "… and N more" line
const SLIDE_ROW_PX = 25;  // a chapter slide's grid row: 22 px cells + 3 px gap (kv_stage.css .kvs.slide .cell)
// A slide's row holds 12 blocks, /kv's 16 (kv_stage.css .grid): in the slide's 720 px, 16 cells of 39 px could not
// hold "R0×3" (35 px) beside the badge of its change, so the badge overhung the next cell.
const PER_ROW = 16, SLIDE_PER_ROW = 12;
const SLIDE_GRID_PX = 8 * SLIDE_ROW_PX;  // the slide's grid box shows eight rows (css .kvs.slide .gridscroll)
const FOCUS_HEAD = 1, FOCUS_TAIL = 3;  // a slide's focus tables: the first and last logical blocks, "⋮" between
const MOTION_MS = 200;  // a step's tween (s40 convention: 150–300 ms); 0 under prefers-reduced-motion
const ids = (text) => (text ? text.split(",").map(Number) : []);

// A free-queue place as an ordinal ("1st", "2nd", 中文 "第1"), never "#0": a bare number reads as a block id.
function ordinal(t, n) {
  const teen = n % 100 >= 11 && n % 100 <= 13, last = n % 10;
  const key = teen || last > 3 || last === 0 ? "ord_n" : "ord_" + last;
  return fill(t(key), { n });
}

// "0, 1, 2, 3, 4, 5, 6 … 31": the first ids and the last, so a sentence never ends in "… ." and the range shows.
function shortList(ids, limit = 8) {
  return ids.length > limit ? ids.slice(0, limit - 1).join(", ") + " … " + ids[ids.length - 1] : ids.join(", ");
}

// Replays the deltas once: a flat Int32Array of states (step × block × F), the tables and free head per step.
function replay(d) {
  const n = d.step.length, B = d.num_blocks, states = new Int32Array(n * B * F);
  const cur = new Int32Array(B * F);
  for (let b = 0; b < B; b++) cur[b * F] = -1;
  const tables = [], heads = [], changes = [];
  let tmap = new Map(), head = [];
  for (let i = 0; i < n; i++) {
    const delta = d.blocks[i];
    for (let j = 0; j < delta.length; j += 6) for (let f = 0; f < F; f++) cur[delta[j] * F + f] = delta[j + 1 + f];
    states.set(cur, i * B * F);
    if (d.tables[i].length) {
      tmap = new Map(tmap);
      for (const [r, s, ids] of d.tables[i]) { if (ids === null) tmap.delete(r + "." + s); else tmap.set(r + "." + s, [r, s, ids]); }
    }
    // An unchanged step shares the step before's array, so the drawing can skip it by identity.
    tables.push(d.tables[i].length || !i ? [...tmap.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]) : tables[i - 1]);
    if (d.free_head[i] !== null) head = d.free_head[i];
    heads.push(head);
    const m = new Map(), c = d.changes[i];
    for (let j = 0; j < c.length; j += 2) m.set(c[j], c[j + 1]);
    changes.push(m);
  }
  return { states, tables, heads, changes };
}

class KvStage {
  constructor(root, data, key) {
    // The element's own key (st-key-<key>), not the component's: Streamlit may mount the element afresh under a new
    // component id when the question is answered, and the cursor must survive that (STAGE_STATE is keyed by it).
    this.d = data; this.key = elementKey(root, key); this.root = root;
    this.n = data.step.length; this.B = data.num_blocks; this.perRow = data.slide ? SLIDE_PER_ROW : PER_ROW;
    Object.assign(this, replay(data));
    const saved = STAGE_STATE[this.key] || {};
    const start = saved.cursor !== undefined ? saved.cursor : data.step0;
    this.cursor = Math.min(Math.max(start | 0, 0), this.n - 1);
    this.speed = saved.speed ?? data.default_speed;
    this.playing = false; this.acc = 0; this.simMs = 0; this.hover = null;
    this.pinR = null;  // the requests pinned (a tap, Enter / Space, ↑ / ↓), or null; the hover's requests win
    this.anims = []; this.tweenToken = 0; this.shown = -1;  // the running tween's animations; the step drawn
    this.reduceMq = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
    this.draws = 0; this.stepsShown = 0; this.dropped = 0; this.lastShown = -2; this.drawMs = 0;
    // PageDown / PageUp stop at every bookmark's step (prefix hit, copy-on-write, eviction, preemption), in order.
    this.stops = data.jump_kinds.flatMap((k) => data.jumps[k]);
    this.build();  // mountStage draws the first step
  }

  get version() { return this.d.version; }

  resized() { this.sparkBase = null; this.drawSpark(this.cursor); }

  stopBy(n) { this.jumpTo(stopFrom(this.stops, this.cursor, n, this.n - 1)); }

  t(name) { return this.d.text[name] || name; }

  // A counted text: its singular twin (<name>_one, "1 block", "1 个") when n is 1, else the plural.
  tn(name, n) { return (n === 1 && this.d.text[name + "_one"]) || this.t(name); }

  seqName(r, s) { return s ? fill(this.t("seq_sample"), { r, s }) : fill(this.t("seq"), { r }); }

  build() {
    const d = this.d, box = el("div", "kvs"); box.tabIndex = 0; this.box = box;
    const bar = el("div", "bar");
    const btn = (parent, label, title, fn, cls) => { const b = el("button", cls || "", label); b.title = title; b.setAttribute("aria-label", title); b.onclick = fn; parent.appendChild(b); return b; };
    btn(bar, "|◀", this.t("first"), () => this.jumpTo(0));
    btn(bar, "◀", this.t("prev"), () => this.stepBy(-1));
    this.playBtn = btn(bar, this.t("play"), this.t("play"), () => this.toggle(), "play");
    btn(bar, "▶", this.t("next"), () => this.stepBy(1));
    btn(bar, "▶|", this.t("last"), () => this.jumpTo(this.n - 1));
    this.speedSel = el("select", "speed"); this.speedSel.title = this.t("speed_help");
    d.speeds.forEach((s, i) => { const o = el("option", "", s.label); o.value = i; this.speedSel.appendChild(o); });
    this.speedSel.value = this.speed;
    this.speedSel.onchange = () => { this.speed = +this.speedSel.value; this.simMs = this.d.end_ms[this.cursor]; this.save(); };
    bar.appendChild(this.speedSel);
    this.readout = el("span", "readout"); bar.appendChild(this.readout);
    this.work = el("span", "work"); bar.appendChild(this.work);
    box.appendChild(bar);
    this.scrub = el("input", "scrub"); this.scrub.type = "range"; this.scrub.min = 0; this.scrub.max = Math.max(this.n - 1, 0);
    this.scrub.step = 1; this.scrub.setAttribute("aria-label", this.t("scrub"));
    this.scrub.oninput = () => { this.pause(); this.cursor = +this.scrub.value; this.draw(); this.saveUrlSoon(); };
    box.appendChild(this.scrub);
    const marks = el("div", "marks"); this.jumpBtns = {};
    d.jump_kinds.forEach((k) => { this.jumpBtns[k] = btn(marks, fill(this.t("jump"), { what: this.t("j_" + k) }), "", () => this.jumpNext(k), "mark"); });
    marks.appendChild(el("span", "keys", this.t("keys")));
    box.appendChild(marks);
    this.caption = el("div", "caption"); this.caption.setAttribute("aria-live", "polite"); box.appendChild(this.caption);
    const grid = this.buildGrid(), legend = this.buildLegend();
    const free = el("div", "free"); free.appendChild(el("div", "h", this.t("free_title")));
    this.freeStrip = el("div", "strip"); free.appendChild(this.freeStrip);
    const spark = el("div", "spark"); this.sparkLabel = el("div", "h"); this.spark = el("canvas");
    spark.appendChild(this.sparkLabel); spark.appendChild(this.spark);
    this.spark.onclick = (e) => { const r = this.spark.getBoundingClientRect(); this.jumpTo(Math.round(((e.clientX - r.left) / r.width) * (this.n - 1))); };
    const tables = el("div", "tables"); tables.appendChild(el("div", "h", this.t("tables_title")));
    this.tableBox = el("div", "rows"); tables.appendChild(this.tableBox);
    if (d.slide) {  // a lecture chapter's slide (1280×720): grid and legend beside the block tables; CSS hides the rest
      box.classList.add("slide");
      if (d.compact) box.classList.add("compact");  // answered: a one-line caption makes room for the verdict
      const cols = el("div", "cols"), left = el("div", "left");
      left.append(grid); cols.append(left, tables); box.append(cols, legend, free, spark);  // the legend: one line
    } else {
      box.append(grid, legend, free, spark, tables);
    }
    this.tip = el("div", "tip"); box.appendChild(this.tip);
    box.appendChild(el("div", "cv-cover", this.t("blank")));
    box.addEventListener("pointerdown", () => { window.__cvTimelineActive = this.key; });
    // One listener for every view: what is under the pointer names its blocks (data-b) or requests (data-rs).
    box.addEventListener("pointerover", (ev) => { this.hoverEl = ev.target; this.setHover(this.hoverAt(ev.target)); });
    box.addEventListener("pointerleave", () => { this.hoverEl = null; this.setHover(null); });
    box.addEventListener("click", (ev) => { const rs = this.requestsAt(ev.target); if (rs.length) this.pin(rs); });
    box.dataset.motionMs = String(this.motionMs());
    this.root.appendChild(box);
  }

  buildGrid() {
    const wrap = el("div", "gridwrap");
    wrap.appendChild(el("div", "h", this.t("grid_title")));
    this.gridScroll = el("div", "gridscroll"); this.grid = el("div", "grid");
    this.cells = [];
    for (let b = 0; b < this.B; b++) {
      if (b % this.perRow === 0) this.grid.appendChild(el("div", "rowlabel", String(b)));  // row = blocks b … b+perRow−1
      const c = el("div", "cell"); c.dataset.b = b; c.dataset.tip = "1";
      c.append(el("span", "o"), el("span", "k"), el("span", "r"), el("span", "q"), el("span", "badge"));
      this.grid.appendChild(c); this.cells.push({ node: c, sig: "", used: false, owner: -1, ref: 0, bg: "", ink: "" });
    }
    this.gridScroll.appendChild(this.grid); wrap.appendChild(this.gridScroll);
    wrap.appendChild(el("div", "note", this.t("grid_note")));
    return wrap;
  }

  buildLegend() {
    const legend = el("div", "legend");
    this.d.change_kinds.forEach((k, i) => {
      if (k === "unref") return;  // drawn like "freed"; its own words appear in the hover
      const s = el("span"); const i2 = el("i", "badge-sample", GLYPHS[k]); i2.style.background = this.d.change_colours[i];
      s.append(i2, document.createTextNode(this.t("k_" + k))); legend.appendChild(s);
    });
    return legend;
  }

  save() { saveStage(this, this.d.version); }

  saveUrlSoon() { saveStageUrlSoon(this, this.d.version, this.d.url_param); }

  stepBy(k) { this.pause(); this.cursor = Math.min(Math.max(this.cursor + k, 0), this.n - 1); this.draw(); this.saveUrlSoon(); }

  jumpTo(i) { this.pause(); this.cursor = Math.min(Math.max(i, 0), this.n - 1); this.draw(); this.saveUrlSoon(); }

  nextOf(kind) { return this.d.jumps[kind].find((i) => i > this.cursor); }

  jumpNext(kind) { const i = this.nextOf(kind); if (i !== undefined) this.jumpTo(i); }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.cursor >= this.n - 1) this.cursor = 0;
    this.playing = true; this.acc = 0; this.last = performance.now();
    this.simMs = this.cursor > 0 ? this.d.end_ms[this.cursor] : 0;
    this.playBtn.textContent = this.t("pause"); this.playBtn.classList.add("on"); this.box.dataset.playing = "1";
    this.caption.setAttribute("aria-live", "off");  // a screen reader reads the caption where play stops
    const tick = (now) => {
      if (!this.playing) return;
      const before = this.cursor;
      this.advance(Math.min(now - this.last, 250)); this.last = now;
      if (this.cursor !== before) this.draw();
      if (this.cursor >= this.n - 1) { this.pause(); return; }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  advance(dtMs) {
    const s = this.d.speeds[this.speed];
    if (s.kind === "sim") {  // the simulated clock: the cursor shows the last step that has ended by then
      this.simMs += dtMs * s.factor;
      const e = this.d.end_ms;
      while (this.cursor < this.n - 1 && e[this.cursor + 1] <= this.simMs) this.cursor++;
      return;
    }
    // By steps: at most one step per frame, so no step is skipped; the remainder carries over, up to half a
    // second's worth, so a frame the browser drew late (a busy machine) is made up by the next frames.
    this.acc = Math.min(this.acc + (dtMs * s.rate) / 1000, Math.max(1.999, s.rate * 0.5));
    if (this.acc >= 1) { this.acc -= 1; this.cursor = Math.min(this.cursor + 1, this.n - 1); }
  }

  pause() {
    if (!this.playing) return;
    this.playing = false; cancelAnimationFrame(this.raf);
    this.playBtn.textContent = this.t("play"); this.playBtn.classList.remove("on"); this.box.dataset.playing = "0";
    this.caption.setAttribute("aria-live", "polite");
    this.saveUrlSoon();
  }

  setHover(h) {
    const key = JSON.stringify(h);
    if (key === this.hoverKey) return;  // pointerover fires on every child: the same thing, nothing to redo
    this.hoverKey = key; this.hover = h; this.drawLinked(); this.drawHover();
  }

  // What the element under the pointer stands for: a block (data-b: a cell, a table entry, a free-queue place; its
  // requests are the tables that hold it now, so a shared prefix block names all its owners), or requests (data-rs:
  // a name, a table row), or a caption line (data-blocks and data-rs). The tooltip is for cells (data-tip).
  hoverAt(target) {
    const n = target && target.closest ? target.closest("[data-b], [data-rs], [data-blocks]") : null;
    if (!n || !this.box.contains(n)) return null;
    const h = {};
    if (n.dataset.b !== undefined) {
      const b = +n.dataset.b; h.blocks = [b]; h.rs = this.holdersOf(b);
      if (n.dataset.tip) h.cell = b;
    }
    if (n.dataset.blocks !== undefined) h.blocks = ids(n.dataset.blocks);
    if (n.dataset.rs !== undefined) h.rs = ids(n.dataset.rs);  // a name or a row: drawLinked shows its blocks
    if (h.rs && !h.rs.length) delete h.rs;
    return h;
  }

  requestsAt(target) { const h = this.hoverAt(target); return h && h.rs ? h.rs : []; }

  // Block → the requests whose tables hold it at step i (one array per distinct tables array, so a quiet step reuses it).
  holders(i) {
    const rows = this.tables[i];
    if (rows === this.holderRows) return this.holderMap;
    const m = new Map();
    for (const [r, , t] of rows) for (const b of t) { const a = m.get(b); if (!a) m.set(b, [r]); else if (!a.includes(r)) a.push(r); }
    this.holderRows = rows; this.holderMap = m;
    return m;
  }

  holdersOf(b) { return this.holders(this.cursor).get(b) || []; }

  liveRequests(i) { return [...new Set(this.tables[i].map(([r]) => r))].sort((a, b) => a - b); }

  focusRs() { return this.hover && this.hover.rs ? this.hover.rs : this.pinR; }

  // Pin `rs` (the same again lets go); a slide's table panel shows a pinned request's tables, so redraw.
  pin(rs) {
    this.pinR = rs && rs.length && (!this.pinR || this.pinR.join() !== rs.join()) ? rs : null;
    this.draw();
  }

  // ↑ / ↓: pin the request after / before the pinned one among those holding blocks now.
  cycleFocus(step) {
    const all = this.liveRequests(this.cursor);
    if (!all.length) return;
    const at = this.pinR && this.pinR.length === 1 ? all.indexOf(this.pinR[0]) : -1;
    this.pinR = [all[at < 0 ? (step > 0 ? 0 : all.length - 1) : (at + step + all.length) % all.length]];
    this.hover = null; this.hoverKey = "null"; this.draw();
  }

  // Linked highlighting: the focused requests' cells, table rows / columns and names "on", everything else "dim";
  // data-focus-r, data-pinned and the per-view counts (data-hl-grid: cells, data-hl-tables: tables, data-hl-list:
  // names) say what is drawn, for tests.
  drawLinked() {
    const f = this.focusRs(), ds = this.box.dataset;
    ds.focusR = f ? f.join(",") : ""; ds.pinned = this.pinR ? this.pinR.join(",") : "";
    if (!f && !this.linked) { ds.hlGrid = ds.hlTables = ds.hlList = "0"; return; }
    this.linked = !!f; this.box.classList.toggle("linked", !!f);
    const H = this.holders(this.cursor), mine = (rs) => !!f && rs.some((r) => f.includes(r));
    const mark = (node, on) => { node.classList.toggle("on", on); node.classList.toggle("dim", !!f && !on); return on ? 1 : 0; };
    let grid = 0, tables = 0, list = 0;
    this.cells.forEach(({ node }, b) => { grid += mark(node, mine(H.get(b) || [])); });
    this.box.querySelectorAll(".trow, .fcol").forEach((n) => { tables += mark(n, mine(ids(n.dataset.rs))); });
    this.box.querySelectorAll(".seq[data-rs]").forEach((n) => {
      list += mark(n, mine(ids(n.dataset.rs)));
      n.setAttribute("aria-pressed", this.pinR && this.pinR.join() === n.dataset.rs ? "true" : "false");
    });
    this.box.querySelectorAll(".cowblock").forEach((n) => mark(n, mine(H.get(+n.dataset.b) || [])));
    ds.hlGrid = grid; ds.hlTables = tables; ds.hlList = list;
  }

  // A request's name as a control: Tab reaches it, Enter / Space pins it (onKey), a tap pins it (the box's click).
  nameChip(rs, label, colourR) {
    const d = this.d, chip = el("span", "seq", label);
    chip.style.background = d.owner_colours[colourR % d.owner_colours.length];
    chip.style.color = d.owner_ink[colourR % d.owner_ink.length];
    chip.dataset.rs = rs.join(","); chip.tabIndex = 0; chip.setAttribute("role", "button");
    chip.setAttribute("aria-pressed", "false");
    return chip;
  }

  // Rebuilding a view must not drop the keyboard's place: the name that had the focus gets it back.
  keepFocus(fn) {
    const root = this.box.getRootNode(), had = root.activeElement;
    const rs = had && this.box.contains(had) && had.dataset ? had.dataset.rs : undefined;
    fn();
    if (rs !== undefined && !had.isConnected) {
      const again = [...this.box.querySelectorAll(".seq[data-rs]")].find((n) => n.dataset.rs === rs);
      (again || this.box).focus({ preventScroll: true });
    }
  }

  at(i, b, f) { return this.states[(i * this.B + b) * F + f]; }

  draw() {
    const i = this.cursor, d = this.d, t0 = performance.now();
    // Counted from 1, so the last step reads "Step N of N" (the engine's step numbers start at 0).
    this.readout.textContent = fill(this.t("step_of"), { n: d.step[i] + 1, total: d.step[this.n - 1] + 1 });
    this.work.textContent = fill(this.t("at_ms"), { dur: d.dur_ms[i].toFixed(1), dec: d.dec[i], pre: d.pre[i], ms: d.end_ms[i].toFixed(1) });
    this.scrub.value = i;
    d.jump_kinds.forEach((k) => {
      const b = this.jumpBtns[k], next = this.nextOf(k);
      b.disabled = next === undefined;
      b.title = next === undefined ? fill(this.t("jump_none"), { what: this.t("j_" + k) }) : `→ ${d.step[next]}`;
    });
    this.drawCaption(i);
    const changed = this.drawGrid(i);
    this.drawFree(i);
    this.keepFocus(() => this.drawTables(i));
    this.drawSpark(i);
    this.tween(this.shown, i, changed);
    this.shown = i;
    // The pointer's place read again for this step (a cell's owners change); a rebuilt view keeps the hover it had.
    if (this.hover && this.hoverEl && this.hoverEl.isConnected) this.hover = this.hoverAt(this.hoverEl);
    this.hoverKey = JSON.stringify(this.hover);
    this.drawLinked();
    this.drawHover();
    this.drawMs += performance.now() - t0;  // the drawing's own cost, for bench/browser_bench.py
    this.afterDraw(i);
  }

  captionText(c) {
    const T = (k, n) => this.tn("c_" + k, n), r = c.r === null || c.r === undefined ? "" : this.seqName(c.r, c.s);
    const f = { r, n: c.b.length, blocks: shortList(c.b), tok: c.tok || 0, from: c.from, to: c.b[0], rule: this.t("rule"),
                for: c.for !== undefined ? this.seqName(c.for, 0) : "" };
    if (c.k === "evict") return fill(T(c.for !== undefined ? "evict" : "evict_nofor", f.n), f);
    if (c.k === "free" || c.k === "preempt") {
      // n = blocks that really went back to the free queue; shared ones only lost this table's reference.
      const n = c.b.length - (c.kept || 0);
      let s = fill(T(c.k === "free" && c.rej ? "free_rejected" : c.k, n), { ...f, n });
      if (c.cached) s += fill(T("cached", c.cached), { n: c.cached });
      if (c.kept) s += fill(T("kept", c.kept), { n: c.kept });
      return s;
    }
    return fill(T(c.k, f.n), f);
  }

  drawCaption(i) {
    const items = this.d.captions[i], lines = [], key = JSON.stringify(items);
    if (key === this.drawnCaption) return;  // e.g. a run of quiet decode steps: the same sentence, no DOM work
    this.drawnCaption = key;
    items.slice(0, SHOW_CAPTIONS).forEach((c, n) => {
      const line = el("div", n === 0 ? "first" : "");
      if (c.k !== "none") { const g = el("i", "badge-sample", GLYPHS[c.k]); g.style.background = this.d.change_colours[this.d.change_kinds.indexOf(c.k)]; line.appendChild(g); }
      line.appendChild(document.createTextNode(this.captionText(c)));
      line.dataset.blocks = (c.k === "cow" ? [c.from, ...c.b] : c.b || []).join(",");  // CoW: both blocks
      if (c.r !== null && c.r !== undefined) line.dataset.rs = String(c.r);
      lines.push(line);
    });
    if (items.length > SHOW_CAPTIONS) lines.push(el("div", "more", fill(this.tn("c_more", items.length - SHOW_CAPTIONS), { n: items.length - SHOW_CAPTIONS })));
    this.caption.replaceChildren(...lines);
  }

  drawGrid(i) {
    const d = this.d, ch = this.changes[i], queue = new Map(this.heads[i].map((b, n) => [b, n]));
    let firstChanged = -1;
    const changed = [];  // the cells redrawn, with what they showed before (the tween starts from it)
    for (let b = 0; b < this.B; b++) {
      const owner = this.at(i, b, 0), ref = this.at(i, b, 2), cached = this.at(i, b, 3);
      const mask = ch.get(b) || 0, q = queue.has(b) ? queue.get(b) : -1;
      if (mask && firstChanged < 0) firstChanged = b;
      const sig = `${owner}|${ref}|${cached}|${mask}|${q}`, cell = this.cells[b];
      if (sig === cell.sig) continue;
      changed.push({ b, was: { used: cell.used, owner: cell.owner, ref: cell.ref, bg: cell.bg, ink: cell.ink } });
      cell.sig = sig;
      const node = cell.node, [o, k, r, qs, badge] = node.children;
      const used = ref > 0 && owner >= 0, colour = used ? d.owner_colours[owner % d.owner_colours.length] : null;
      node.className = "cell" + (used ? " used" : cached ? " cached" : " empty") + (mask ? " changed" : "");
      node.style.background = used ? colour : cached ? d.cached_colour : "";
      node.style.color = used ? d.owner_ink[owner % d.owner_ink.length] : cached ? d.cached_ink : "";
      Object.assign(cell, { used, owner, ref, bg: node.style.background, ink: node.style.color });
      o.textContent = used ? "R" + owner : "";
      r.textContent = used && ref > 1 ? "×" + ref : "";
      k.textContent = cached ? "●" : "";
      qs.textContent = !used && q >= 0 ? ordinal((k) => this.t(k), q + 1) : "";
      const kind = this.mainKind(mask);
      badge.textContent = kind >= 0 ? GLYPHS[d.change_kinds[kind]] : "";
      badge.style.background = kind >= 0 ? d.change_colours[kind] : "";
      node.style.setProperty("--ring", kind >= 0 ? d.change_colours[kind] : "transparent");
    }
    // A cache taller than the scroll box (CSS: 440 px, rows of 46 + 4 px; a slide's SLIDE_GRID_PX, SLIDE_ROW_PX) follows the block
    // the caption's first line is about (captions come ranked: a copy-on-write before the hits of the same step), else
    // the first changed block. Its place is computed, not measured: reading layout would force a reflow every step.
    const lead = this.d.captions[i][0], leadBlock = lead && lead.b && lead.b.length ? lead.b[0] : -1;
    const follow = ch.has(leadBlock) ? leadBlock : firstChanged;
    const rowPx = this.d.slide ? SLIDE_ROW_PX : 50, boxPx = this.d.slide ? SLIDE_GRID_PX : 440, rows = Math.ceil(this.B / this.perRow);
    if (follow >= 0 && rows * rowPx > boxPx) {
      const top = Math.floor(follow / this.perRow) * rowPx, sc = this.gridScroll, at = sc.scrollTop;
      if (top < at || top + rowPx > at + boxPx) sc.scrollTop = Math.max(top - (this.d.slide ? rowPx - 8 : 8), 0);  // a slide: one row above, whole
    }
    return changed;
  }

  // The kind a changed cell's badge shows: what the block is now (evicted-and-reused reads "evicted", a hit "hit").
  mainKind(mask) {
    if (!mask) return -1;
    const K = this.d.change_kinds;
    for (const k of ["cow", "evict", "hit", "preempt", "fork", "alloc", "free", "unref"]) if (mask & (1 << K.indexOf(k))) return K.indexOf(k);
    return -1;
  }

  drawFree(i) {
    const head = this.heads[i], d = this.d;
    if (head === this.drawnHead) return;  // the same array: the step changed nothing in the queue's head
    this.drawnHead = head;
    if (!head.length) { this.freeStrip.replaceChildren(el("span", "none", this.t("free_none"))); return; }
    this.freeStrip.replaceChildren(...head.map((b, n) => {
      const cached = this.at(i, b, 3), chip = el("span", "fq" + (cached ? " cached" : ""));
      chip.appendChild(el("small", "", ordinal((k) => this.t(k), n + 1))); chip.appendChild(document.createTextNode("→ " + b));
      if (cached) { chip.style.background = d.cached_colour; chip.style.color = d.cached_ink; }
      chip.dataset.b = b;
      return chip;
    }));
  }

  drawTables(i) {
    if (this.d.slide) { this.drawFocus(i); return; }
    const rows = this.tables[i], d = this.d, ch = this.changes[i];
    // Same tables and no block changed now or in the step drawn before (whose rings must go): nothing to redo.
    if (rows === this.drawnRows && !ch.size && !this.drawnRings) return;
    this.drawnRows = rows; this.drawnRings = ch.size > 0;
    if (!rows.length) { this.tableBox.replaceChildren(el("div", "none", this.t("tables_none"))); return; }
    this.tableBox.replaceChildren(...rows.map(([r, s, ids]) => {
      const row = el("div", "trow"), name = this.nameChip([r], this.seqName(r, s), r);
      row.dataset.rs = String(r);
      name.appendChild(el("small", "", fill(this.tn("table_n", ids.length), { n: ids.length })));
      row.appendChild(name);
      ids.forEach((b, logical) => {
        const ref = this.at(i, b, 2), chip = el("span", "map" + (ch.has(b) ? " changed" : "") + (ref > 1 ? " shared" : ""));
        chip.dataset.b = b;
        chip.append(el("small", "", String(logical)), document.createTextNode("→" + b + (ref > 1 ? " ×" + ref : "")));
        if (ch.has(b)) chip.style.setProperty("--ring", d.change_colours[Math.max(this.mainKind(ch.get(b)), 0)]);
        row.appendChild(chip);
      });
      return row;
    }));
  }

  // A slide's block-table panel: the tables of the request the story is about (the last one a caption named, whose
  // tables still exist), every sample side by side, each cut to its first and last logical blocks plus the ones that
  // changed or that the samples map differently; at a copy-on-write, the two physical blocks under them. The other
  // tables are one line of names (hover: their blocks). /kv keeps every table in full (drawTables).
  focusRequest(i) {
    const live = new Set(this.tables[i].map(([r]) => r));
    if (this.pinR && this.pinR.length === 1 && live.has(this.pinR[0])) return this.pinR[0];  // the one pinned
    for (let k = i; k >= 0; k--) for (const c of this.d.captions[k]) if (c.r !== null && c.r !== undefined && live.has(c.r)) return c.r;
    return this.tables[i].length ? this.tables[i][0][0] : -1;
  }

  focusIndices(rows, ch) {
    const len = Math.max(...rows.map(([, , ids]) => ids.length)), keep = new Set();
    for (let k = 0; k < Math.min(FOCUS_HEAD, len); k++) keep.add(k);
    for (let k = Math.max(len - FOCUS_TAIL, 0); k < len; k++) keep.add(k);
    const differ = [], changed = [];
    for (let k = 0; k < len; k++) {
      const ids = rows.map(([, , t]) => t[k]);
      if (ids.some((b) => b !== ids[0])) differ.push(k);
      if (ids.some((b) => b !== undefined && ch.has(b))) changed.push(k);
    }
    differ.slice(-2).forEach((k) => keep.add(k));
    if (changed.length <= 2) changed.forEach((k) => keep.add(k));
    return { shown: [...keep].sort((a, b) => a - b), differ: new Set(differ) };
  }

  drawFocus(i) {
    const d = this.d, ch = this.changes[i], r = this.focusRequest(i), all = this.tables[i];
    const sig = `${r}|${i}`;
    if (sig === this.drawnFocus) return;
    this.drawnFocus = sig; this.box.dataset.cow = "";
    if (!all.length) { this.tableBox.replaceChildren(el("div", "none", this.t("tables_none"))); this.box.dataset.focus = ""; return; }
    const rows = all.filter(([q]) => q === r), { shown, differ } = this.focusIndices(rows, ch);
    const cols = el("div", "fcols");
    rows.forEach(([q, s, ids]) => {
      const label = rows.length > 1 ? fill(this.t("seq_sample"), { r: q, s }) : this.seqName(q, s);  // "sample 0" too
      const col = el("div", "fcol"), name = this.nameChip([q], label, q);
      col.dataset.rs = String(q);
      name.appendChild(el("small", "", fill(this.tn("table_n", ids.length), { n: ids.length })));
      col.appendChild(name);
      let prev = -1;
      shown.forEach((logical) => {
        if (logical - prev > 1) col.appendChild(el("div", "gap", fill(this.t("focus_gap"), { n: logical - prev - 1 })));
        prev = logical;
        const b = ids[logical];
        if (b === undefined) { col.appendChild(el("div", "map none", "—")); return; }
        const ref = this.at(i, b, 2);
        const chip = el("div", "map" + (ch.has(b) ? " changed" : "") + (ref > 1 ? " shared" : "") + (differ.has(logical) ? " differ" : ""));
        chip.dataset.b = b;
        chip.append(el("small", "", String(logical)), document.createTextNode("→ " + b + (ref > 1 ? " ×" + ref : "")));
        if (ch.has(b)) chip.style.setProperty("--ring", d.change_colours[Math.max(this.mainKind(ch.get(b)), 0)]);
        chip.dataset.tip = "1";
        col.appendChild(chip);
      });
      cols.appendChild(col);
    });
    const parts = [cols], cow = d.captions[i].find((c) => c.k === "cow" && c.r === r);
    if (cow) parts.push(this.cowFigure(i, cow));
    const others = [...new Set(all.map(([q]) => q))].filter((q) => q !== r);
    if (others.length) {
      const line = el("div", "others", this.t("focus_others"));
      others.forEach((q) => line.appendChild(this.nameChip([q], this.seqName(q, 0), q)));
      parts.push(line);
    }
    this.tableBox.replaceChildren(...parts);
    this.box.dataset.focus = rows.map(([q, s]) => q + "." + s).join(" ");
  }

  // The copy-on-write drawn: the shared block the sample wrote to, ⇉, its private copy, each as the grid draws it.
  cowFigure(i, c) {
    const d = this.d, fig = el("div", "cowfig"), kind = d.change_kinds.indexOf("cow");
    const block = (b) => {
      const owner = this.at(i, b, 0), ref = this.at(i, b, 2), w = el("div", "cowblock");
      w.dataset.b = b; w.dataset.tip = "1";
      const cell = el("span", "cowcell", (owner >= 0 ? fill(this.t("seq_sample"), { r: owner, s: this.at(i, b, 1) }) : "") + (ref > 1 ? " ×" + ref : ""));
      if (owner >= 0) { cell.style.background = d.owner_colours[owner % d.owner_colours.length]; cell.style.color = d.owner_ink[owner % d.owner_ink.length]; }
      w.append(el("span", "cowid", fill(this.t("tip"), { b })), cell);
      return w;
    };
    const arrow = el("span", "cowarrow", GLYPHS.cow); arrow.style.color = d.change_colours[kind];
    fig.append(block(c.from), arrow, block(c.b[0]));
    this.box.dataset.cow = c.from + ">" + c.b[0];
    return fig;
  }

  motionMs() { return this.reduceMq && this.reduceMq.matches ? 0 : MOTION_MS; }

  // The step's change as a tween from the cells drawn before (`changed`, from drawGrid): a block taken grows in, a
  // block let go fades out, a block handed to another request cross-fades, a ref count that moved pulses, and at a
  // copy-on-write the new block slides out of the shared one (in the grid and in the slide's two-block figure).
  // A new target cancels the running tween; a cell caught mid-way starts from the opacity it shows. Animations fill
  // nothing, so when they end (or are cancelled) every node shows exactly the step's plain drawing.
  tween(from, i, changed) {
    const ds = this.box.dataset, ms = this.motionMs();
    ds.motionMs = String(ms);
    const now = new Map();
    for (const a of this.anims) if (a.playState === "running" && a.effect && a.effect.target && !now.has(a.effect.target)) now.set(a.effect.target, getComputedStyle(a.effect.target).opacity);
    this.anims.forEach((a) => a.cancel());
    this.anims = [];
    const token = ++this.tweenToken;
    if (ms > 0 && from >= 0 && from !== i && changed.length) this.plan(i, changed, now, ms);
    if (!this.anims.length) { delete ds.animating; return; }
    ds.animating = "1";
    Promise.allSettled(this.anims.map((a) => a.finished)).then(() => { if (token === this.tweenToken) delete ds.animating; });
  }

  plan(i, changed, now, ms) {
    const add = (node, frames, easing = "ease-out") => {
      if (!node.animate) return;
      if (now.has(node) && frames[0].opacity !== undefined) frames[0].opacity = +now.get(node);  // from what shows
      if (frames.length === 1) frames[0].offset = 0;  // one keyframe is the start; the end is the step's drawing
      this.anims.push(node.animate(frames, { duration: ms, easing }));
    };
    const cow = this.d.captions[i].find((c) => c.k === "cow"), offset = (a, b) => {
      const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();  // read once, at a copy-on-write only
      return `translate(${(p.left - q.left).toFixed(1)}px, ${(p.top - q.top).toFixed(1)}px)`;
    };
    for (const { b, was } of changed) {
      const node = this.cells[b].node, owner = this.at(i, b, 0), ref = this.at(i, b, 2), used = ref > 0 && owner >= 0;
      if (used && cow && b === cow.b[0] && this.cells[cow.from] && !(was.used && was.owner === owner)) {
        add(node, [{ transform: offset(this.cells[cow.from].node, node), opacity: 0.5 }]);  // out of the shared block
      } else if (used && !was.used) {
        add(node, [{ transform: "scale(0.3)", opacity: 0 }]);
      } else if (!used && was.used) {
        add(node, [{ backgroundColor: was.bg || "transparent", color: was.ink || "inherit" }], "ease-in");
      } else if (used && was.owner !== owner) {
        add(node, [{ backgroundColor: was.bg || "transparent", opacity: 0.4 }]);
      } else if (used && was.ref !== ref) {
        add(node, [{ transform: "scale(1)" }, { transform: "scale(1.25)", offset: 0.35 }, { transform: "scale(1)" }], "ease-in-out");
      }
    }
    const fig = this.box.querySelectorAll(".cowblock");  // the slide's figure: the copy slides out from under the shared one
    if (fig.length === 2) add(fig[1], [{ transform: offset(fig[0], fig[1]), opacity: 0.3 }]);
  }

  drawSpark(i) {
    const c = this.spark, d = this.d, dpr = window.devicePixelRatio || 1;
    if (!this.sparkBase) this.sparkW = Math.max(c.clientWidth || 600, 200);  // measured once per size, not per step
    const w = this.sparkW, h = 44;
    const X = (k) => (this.n > 1 ? (k / (this.n - 1)) * (w - 2) + 1 : w / 2), Y = (v) => h - 2 - (v / Math.max(this.B, 1)) * (h - 4);
    if (!this.sparkBase) {  // the line is drawn once per size, then copied
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); c.style.height = h + "px";
      const base = document.createElement("canvas"); base.width = c.width; base.height = c.height;
      const b = base.getContext("2d"); b.setTransform(dpr, 0, 0, dpr, 0, 0);
      b.strokeStyle = d.free_colour; b.setLineDash([4, 3]); b.beginPath(); b.moveTo(0, Y(this.B)); b.lineTo(w, Y(this.B)); b.stroke();
      b.setLineDash([]); b.strokeStyle = d.owner_colours[0]; b.lineWidth = 2; b.beginPath();
      d.used.forEach((v, k) => (k ? b.lineTo(X(k), Y(v)) : b.moveTo(X(k), Y(v)))); b.stroke();
      this.sparkBase = base;
    }
    const ctx = c.getContext("2d"); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, c.width, c.height);
    ctx.drawImage(this.sparkBase, 0, 0); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = d.cursor_colour; ctx.fillRect(X(i) - 1.5, 0, 3, h);
    this.sparkLabel.textContent = fill(this.t("spark"), { n: d.used[i], total: this.B });
  }

  drawHover() {
    const h = this.hover, on = new Set(h ? h.blocks : []);
    if (!h && !this.hovered) return;  // nothing highlighted before or now
    this.hovered = !!h;
    this.box.querySelectorAll(".hl").forEach((e) => e.classList.remove("hl"));
    if (!h) { this.tip.style.display = "none"; return; }
    on.forEach((b) => { if (this.cells[b]) this.cells[b].node.classList.add("hl"); });
    this.box.querySelectorAll(".map, .fq, .cowblock").forEach((e) => { if (on.has(+e.dataset.b)) e.classList.add("hl"); });
    if (h.cell === undefined) { this.tip.style.display = "none"; return; }
    const b = h.cell, i = this.cursor, T = (k) => this.t(k);
    const owner = this.at(i, b, 0), ref = this.at(i, b, 2), cached = this.at(i, b, 3), filled = this.at(i, b, 4);
    const lines = [fill(T("tip"), { b })];
    lines.push(ref > 0 && owner >= 0 ? fill(T("tip_owner"), { r: this.seqName(owner, this.at(i, b, 1)), ref }) : T("tip_free"));
    if (cached) lines.push(T("tip_cached"));
    lines.push(fill(T("tip_filled"), { n: filled, size: this.d.block_size }));
    const q = this.heads[i].indexOf(b); if (q >= 0 && ref === 0) lines.push(fill(T("tip_queue"), { q: ordinal(T, q + 1) }));
    const mask = this.changes[i].get(b) || 0;
    if (mask) lines.push(fill(T("tip_changed"), { kinds: this.d.change_kinds.filter((_, k) => mask & (1 << k)).map((k) => T("k_" + k)).join(", ") }));
    this.tip.textContent = lines.join("\n"); this.tip.style.display = "block";
    const cell = this.cells[b].node, br = this.box.getBoundingClientRect(), cr = cell.getBoundingClientRect();
    this.tip.style.left = Math.min(cr.right - br.left + 6, br.width - 300) + "px"; this.tip.style.top = (cr.top - br.top) + "px";
  }

  afterDraw(i) {
    this.draws++;
    if (i !== this.lastShown) {
      if (this.playing && this.lastShown >= 0 && i > this.lastShown + 1 && this.d.speeds[this.speed].kind === "steps") this.dropped += i - this.lastShown - 1;
      this.stepsShown++; this.lastShown = i;
    }
    const ds = this.box.dataset;
    ds.cursor = i; ds.step = this.d.step[i]; ds.draws = this.draws; ds.stepsShown = this.stepsShown; ds.dropped = this.dropped;
    ds.playing = this.playing ? "1" : "0"; ds.drawMs = this.drawMs.toFixed(2);
  }

  onKey(ev) {
    if (otherStageActive(this.key) || clickerKey(ev, this.box, (n) => this.stopBy(n))) return;
    const target = ev.composedPath()[0], tag = target && target.tagName;
    const ours = this.box.contains(target) || (this.root.contains && this.root.contains(target));
    const role = target && target.getAttribute && target.getAttribute("role");
    if (tag === "SELECT") return;  // the speed menu keeps its arrow keys
    const widget = ["slider", "spinbutton", "listbox", "combobox", "option", "radio", "textbox", "tab", "switch"].includes(role);
    if (!ours && (widget || tag === "INPUT" || tag === "TEXTAREA" || (target && target.isContentEditable))) return;
    if (ours && tag === "INPUT" && ev.key !== " ") return;  // the scrub bar moves by itself
    if (ours && !ev.ctrlKey && !ev.metaKey && !ev.altKey && this.linkKey(ev, target)) { ev.preventDefault(); ev.stopPropagation(); return; }
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.n - 1), " ": () => this.toggle() };
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  // Linked highlighting's keys inside the stage: Enter / Space on a request's name pins it, ↑ / ↓ pin the next or
  // previous request, Escape lets go. True if the key was one of them.
  linkKey(ev, target) {
    const name = target && target.closest ? target.closest(".seq[data-rs]") : null;
    if (name && (ev.key === "Enter" || ev.key === " ")) { this.pin(ids(name.dataset.rs)); return true; }
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") { this.cycleFocus(ev.key === "ArrowDown" ? 1 : -1); return true; }
    if (ev.key === "Escape" && (this.pinR || (this.hover && this.hover.rs))) {
      this.pinR = null; this.hover = null; this.hoverKey = "null"; this.draw(); return true;
    }
    return false;
  }

  destroy() { this.anims.forEach((a) => a.cancel()); this.pause(); clearTimeout(this.urlTimer); this.save(); this.box.remove(); }
}

// One glyph per change kind (the badge's colour is the second cue; chunkviz/lessons/kv_stage.py CHANGE_KINDS).
const GLYPHS = { alloc: "+", hit: "↺", cow: "⇉", evict: "✕", free: "−", unref: "−", preempt: "⏏", fork: "⇶" };

export default function (component) {
  return mountStage(component, "kv_stage", (host, data, key) => new KvStage(host, data, key));
}
