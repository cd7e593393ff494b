// chunkviz KV stage: the paged KV cache of one run, stepped in the browser. The run's per-step deltas (block states,
// block tables, free-queue head) arrive once and are replayed here into per-step states; the cursor (a step index)
// moves by arrow keys, buttons, the scrub bar, bookmarks and play, and is mirrored into the URL as kv_step.
// Appended to ui/stage_player.js (ui/stage_component.py): el, fill, the clicker's keys (PageDown / PageUp between
// the bookmarks, B blank, F full screen), the saved state and mountStage are the shared player's; the controls are
// the stage's own (its speeds include the simulated clock).
// Invariant: data is read-only; the drawing is a pure function of (data, cursor, hover); no step waits for the server.

const F = 5;  // per block and step: owner request (-1 free), sample, ref count, cached 0/1, tokens filled
const SHOW_CAPTIONS = 3;  // caption lines drawn; the rest are counted in one "… and N more" line
const SLIDE_ROW_PX = 25;  // a chapter slide's grid row: 22 px cells + 3 px gap (kv_stage.css .kvs.slide .cell)
const SLIDE_GRID_PX = 8 * SLIDE_ROW_PX;  // the slide's grid box shows eight rows (css .kvs.slide .gridscroll)
const FOCUS_HEAD = 1, FOCUS_TAIL = 3;  // a slide's focus tables: the first and last logical blocks, "⋮" between

// A free-queue place as an ordinal ("1st", "2nd", 中文 "第1"), never "#0": a bare number reads as a block id.
function ordinal(t, n) {
  const teen = n % 100 >= 11 && n % 100 <= 13, last = n % 10;
  const key = teen || last > 3 || last === 0 ? "ord_n" : "ord_" + last;
  return fill(t(key), { n });
}
const SLIDE_GRID_COMPACT_PX = 6 * SLIDE_ROW_PX;  // once its question is answered (.kvs.slide.compact): six rows

function shortList(ids, limit = 8) {
  return ids.slice(0, limit).join(", ") + (ids.length > limit ? " …" : "");
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
    this.d = data; this.key = key; this.root = root;
    this.n = data.step.length; this.B = data.num_blocks;
    Object.assign(this, replay(data));
    const saved = STAGE_STATE[key] || {};
    const start = saved.cursor !== undefined ? saved.cursor : data.step0;
    this.cursor = Math.min(Math.max(start | 0, 0), this.n - 1);
    this.speed = saved.speed ?? data.default_speed;
    this.playing = false; this.acc = 0; this.simMs = 0; this.hover = null;
    this.draws = 0; this.stepsShown = 0; this.dropped = 0; this.lastShown = -2; this.drawMs = 0;
    // PageDown / PageUp stop at every bookmark's step (prefix hit, copy-on-write, eviction, preemption), in order.
    this.stops = data.jump_kinds.flatMap((k) => data.jumps[k]);
    this.build();  // mountStage draws the first step
  }

  get version() { return this.d.version; }

  resized() { this.sparkBase = null; this.drawSpark(this.cursor); }

  stopBy(n) { this.jumpTo(stopFrom(this.stops, this.cursor, n, this.n - 1)); }

  t(name) { return this.d.text[name] || name; }

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
      if (d.compact) box.classList.add("compact");  // answered: the verdict takes a grid row's height
      const cols = el("div", "cols"), left = el("div", "left");
      left.append(grid); cols.append(left, tables); box.append(cols, legend, free, spark);  // the legend: one line
    } else {
      box.append(grid, legend, free, spark, tables);
    }
    this.tip = el("div", "tip"); box.appendChild(this.tip);
    box.appendChild(el("div", "cv-cover", this.t("blank")));
    box.addEventListener("pointerdown", () => { window.__cvTimelineActive = this.key; });
    this.root.appendChild(box);
  }

  buildGrid() {
    const wrap = el("div", "gridwrap");
    wrap.appendChild(el("div", "h", this.t("grid_title")));
    this.gridScroll = el("div", "gridscroll"); this.grid = el("div", "grid");
    this.cells = [];
    for (let b = 0; b < this.B; b++) {
      if (b % 16 === 0) this.grid.appendChild(el("div", "rowlabel", String(b)));  // row = blocks b … b+15
      const c = el("div", "cell"); c.dataset.b = b;
      c.append(el("span", "o"), el("span", "k"), el("span", "r"), el("span", "q"), el("span", "badge"));
      c.onmouseenter = () => this.setHover({ blocks: [b], cell: b });
      c.onmouseleave = () => this.setHover(null);
      this.grid.appendChild(c); this.cells.push({ node: c, sig: "" });
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

  setHover(h) { this.hover = h; this.drawHover(); }

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
    this.drawGrid(i);
    this.drawFree(i);
    this.drawTables(i);
    this.drawSpark(i);
    this.drawHover();
    this.drawMs += performance.now() - t0;  // the drawing's own cost, for bench/browser_bench.py
    this.afterDraw(i);
  }

  captionText(c) {
    const T = (k) => this.t("c_" + k), r = c.r === null || c.r === undefined ? "" : this.seqName(c.r, c.s);
    const f = { r, n: c.b.length, blocks: shortList(c.b), tok: c.tok || 0, from: c.from, to: c.b[0], rule: this.t("rule"),
                for: c.for !== undefined ? this.seqName(c.for, 0) : "" };
    if (c.k === "evict") return fill(T(c.for !== undefined ? "evict" : "evict_nofor"), f);
    if (c.k === "free" || c.k === "preempt") {
      // n = blocks that really went back to the free queue; shared ones only lost this table's reference.
      let s = fill(T(c.k === "free" && c.rej ? "free_rejected" : c.k), { ...f, n: c.b.length - (c.kept || 0) });
      if (c.cached) s += fill(T("cached"), { n: c.cached });
      if (c.kept) s += fill(T("kept"), { n: c.kept });
      return s;
    }
    return fill(T(c.k), f);
  }

  drawCaption(i) {
    const items = this.d.captions[i], lines = [], key = JSON.stringify(items);
    if (key === this.drawnCaption) return;  // e.g. a run of quiet decode steps: the same sentence, no DOM work
    this.drawnCaption = key;
    items.slice(0, SHOW_CAPTIONS).forEach((c, n) => {
      const line = el("div", n === 0 ? "first" : "");
      if (c.k !== "none") { const g = el("i", "badge-sample", GLYPHS[c.k]); g.style.background = this.d.change_colours[this.d.change_kinds.indexOf(c.k)]; line.appendChild(g); }
      line.appendChild(document.createTextNode(this.captionText(c)));
      line.onmouseenter = () => this.setHover({ blocks: c.k === "cow" ? [c.from, ...c.b] : c.b });  // CoW: both
      line.onmouseleave = () => this.setHover(null);
      lines.push(line);
    });
    if (items.length > SHOW_CAPTIONS) lines.push(el("div", "more", fill(this.t("c_more"), { n: items.length - SHOW_CAPTIONS })));
    this.caption.replaceChildren(...lines);
  }

  drawGrid(i) {
    const d = this.d, ch = this.changes[i], queue = new Map(this.heads[i].map((b, n) => [b, n]));
    let firstChanged = -1;
    for (let b = 0; b < this.B; b++) {
      const owner = this.at(i, b, 0), ref = this.at(i, b, 2), cached = this.at(i, b, 3);
      const mask = ch.get(b) || 0, q = queue.has(b) ? queue.get(b) : -1;
      if (mask && firstChanged < 0) firstChanged = b;
      const sig = `${owner}|${ref}|${cached}|${mask}|${q}`, cell = this.cells[b];
      if (sig === cell.sig) continue;
      cell.sig = sig;
      const node = cell.node, [o, k, r, qs, badge] = node.children;
      const used = ref > 0 && owner >= 0, colour = used ? d.owner_colours[owner % d.owner_colours.length] : null;
      node.className = "cell" + (used ? " used" : cached ? " cached" : " empty") + (mask ? " changed" : "");
      node.style.background = used ? colour : cached ? d.cached_colour : "";
      node.style.color = used ? d.owner_ink[owner % d.owner_ink.length] : cached ? d.cached_ink : "";
      o.textContent = used ? "R" + owner : "";
      r.textContent = used && ref > 1 ? "×" + ref : "";
      k.textContent = cached ? "●" : "";
      qs.textContent = !used && q >= 0 ? ordinal((k) => this.t(k), q + 1) : "";
      const kind = this.mainKind(mask);
      badge.textContent = kind >= 0 ? GLYPHS[d.change_kinds[kind]] : "";
      badge.style.background = kind >= 0 ? d.change_colours[kind] : "";
      node.style.setProperty("--ring", kind >= 0 ? d.change_colours[kind] : "transparent");
      // A rare change's badge (its top-right corner overlaps the next cell) stays above a neighbour's allocation.
      node.style.zIndex = kind >= 0 && RARE.has(d.change_kinds[kind]) ? "2" : "";
    }
    // A cache taller than the scroll box (CSS: 440 px, rows of 46 + 4 px; a slide's SLIDE_GRID_PX, SLIDE_ROW_PX) follows the block
    // the caption's first line is about (captions come ranked: a copy-on-write before the hits of the same step), else
    // the first changed block. Its place is computed, not measured: reading layout would force a reflow every step.
    const lead = this.d.captions[i][0], leadBlock = lead && lead.b && lead.b.length ? lead.b[0] : -1;
    const follow = ch.has(leadBlock) ? leadBlock : firstChanged;
    const rowPx = this.d.slide ? SLIDE_ROW_PX : 50, boxPx = this.d.slide ? (this.d.compact ? SLIDE_GRID_COMPACT_PX : SLIDE_GRID_PX) : 440, rows = Math.ceil(this.B / 16);
    if (follow >= 0 && rows * rowPx > boxPx) {
      const top = Math.floor(follow / 16) * rowPx, sc = this.gridScroll, at = sc.scrollTop;
      if (top < at || top + rowPx > at + boxPx) sc.scrollTop = Math.max(top - (this.d.slide ? rowPx - 8 : 8), 0);  // a slide: one row above, whole
    }
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
      chip.onmouseenter = () => this.setHover({ blocks: [b] }); chip.onmouseleave = () => this.setHover(null);
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
      const row = el("div", "trow"), name = el("span", "seq", this.seqName(r, s));
      name.style.background = d.owner_colours[r % d.owner_colours.length]; name.style.color = d.owner_ink[r % d.owner_ink.length];
      name.appendChild(el("small", "", fill(this.t("table_n"), { n: ids.length })));
      row.appendChild(name);
      ids.forEach((b, logical) => {
        const ref = this.at(i, b, 2), chip = el("span", "map" + (ch.has(b) ? " changed" : "") + (ref > 1 ? " shared" : ""));
        chip.dataset.b = b;
        chip.append(el("small", "", String(logical)), document.createTextNode("→" + b + (ref > 1 ? " ×" + ref : "")));
        if (ch.has(b)) chip.style.setProperty("--ring", d.change_colours[Math.max(this.mainKind(ch.get(b)), 0)]);
        chip.onmouseenter = () => this.setHover({ blocks: [b] }); chip.onmouseleave = () => this.setHover(null);
        row.appendChild(chip);
      });
      row.onmouseenter = () => this.setHover({ blocks: ids });
      row.onmouseleave = () => this.setHover(null);
      return row;
    }));
  }

  // A slide's block-table panel: the tables of the request the story is about (the last one a caption named, whose
  // tables still exist), every sample side by side, each cut to its first and last logical blocks plus the ones that
  // changed or that the samples map differently; at a copy-on-write, the two physical blocks under them. The other
  // tables are one line of names (hover: their blocks). /kv keeps every table in full (drawTables).
  focusRequest(i) {
    const live = new Set(this.tables[i].map(([r]) => r));
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
      const col = el("div", "fcol"), name = el("span", "seq", label);
      name.style.background = d.owner_colours[q % d.owner_colours.length]; name.style.color = d.owner_ink[q % d.owner_ink.length];
      name.appendChild(el("small", "", fill(this.t("table_n"), { n: ids.length })));
      name.onmouseenter = () => this.setHover({ blocks: ids }); name.onmouseleave = () => this.setHover(null);
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
        chip.onmouseenter = () => this.setHover({ blocks: [b], cell: b }); chip.onmouseleave = () => this.setHover(null);
        col.appendChild(chip);
      });
      cols.appendChild(col);
    });
    const parts = [cols], cow = d.captions[i].find((c) => c.k === "cow");
    if (cow) parts.push(this.cowFigure(i, cow));
    const others = [...new Set(all.map(([q]) => q))].filter((q) => q !== r);
    if (others.length) {
      const line = el("div", "others", this.t("focus_others"));
      others.forEach((q) => {
        const ids = all.filter(([x]) => x === q).flatMap(([, , t]) => t), chip = el("span", "seq", this.seqName(q, 0));
        chip.style.background = d.owner_colours[q % d.owner_colours.length]; chip.style.color = d.owner_ink[q % d.owner_ink.length];
        chip.onmouseenter = () => this.setHover({ blocks: ids }); chip.onmouseleave = () => this.setHover(null);
        line.appendChild(chip);
      });
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
      w.dataset.b = b;
      const cell = el("span", "cowcell", (owner >= 0 ? fill(this.t("seq_sample"), { r: owner, s: this.at(i, b, 1) }) : "") + (ref > 1 ? " ×" + ref : ""));
      if (owner >= 0) { cell.style.background = d.owner_colours[owner % d.owner_colours.length]; cell.style.color = d.owner_ink[owner % d.owner_ink.length]; }
      w.append(el("span", "cowid", fill(this.t("tip"), { b })), cell);
      w.onmouseenter = () => this.setHover({ blocks: [b], cell: b }); w.onmouseleave = () => this.setHover(null);
      return w;
    };
    const arrow = el("span", "cowarrow", GLYPHS.cow); arrow.style.color = d.change_colours[kind];
    fig.append(block(c.from), arrow, block(c.b[0]));
    this.box.dataset.cow = c.from + ">" + c.b[0];
    return fig;
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
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.n - 1), " ": () => this.toggle() };
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  destroy() { this.pause(); clearTimeout(this.urlTimer); this.save(); this.box.remove(); }
}

// One glyph per change kind (the badge's colour is the second cue; chunkviz/lessons/kv_stage.py CHANGE_KINDS).
const RARE = new Set(["cow", "evict", "preempt", "fork"]);
const GLYPHS = { alloc: "+", hit: "↺", cow: "⇉", evict: "✕", free: "−", unref: "−", preempt: "⏏", fork: "⇶" };

export default function (component) {
  return mountStage(component, "kv_stage", (host, data, key) => new KvStage(host, data, key));
}
