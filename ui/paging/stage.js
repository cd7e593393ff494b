// chunkviz page-replacement stage (appended to ui/stage_player.js): the reference string with the cursor, the slot
// grid of the chosen rule, and every rule side by side at the cursor (frames, hit or fault, victim and the rule's
// reason). Belady's anomaly is a bookmark that puts FIFO with fewer and with more frames side by side.
// Invariant: cursor c shows references 1..c (0 = nothing yet); nothing after the cursor is drawn.

// Write text, class and colours only where they differ, so a step touches only the cells that change.
function set(e, text, cls, bg, outline) {
  if (e.textContent !== text) e.textContent = text;
  if (e.className !== cls) e.className = cls;
  if (bg !== undefined && e.__bg !== bg) { e.__bg = bg; e.style.background = bg; }
  if (outline !== undefined && e.__outline !== outline) { e.__outline = outline; e.style.outlineColor = outline; }
}

class PagingStage {
  constructor(host, d, key, component) {
    this.d = d; this.component = component; this.T = d.text;
    this.sel = Math.max(d.tracks.findIndex((t) => t.alg === d.selected), 0);
    this.mode = "all";  // "all" rules at the chosen frames, or "belady": the anomaly's two FIFO runs
    this.p = new StagePlayer(host, { key, version: d.version, positions: d.refs.length + 1, start: d.start,
      url_param: d.url_param, speeds: d.speeds, default_speed: d.default_speed, text: d.text,
      draw: (c) => this.draw(c) });
    this.p.box.classList.add("paging");
    this.marks();
    this.modeNote = el("div", "note"); this.grids = el("div", "grids"); this.why = el("div", "why");
    this.cards = el("div", "cards"); this.legend = this.legendRow();
    [this.modeNote, this.grids, this.why, this.cards, this.legend].forEach((e) => this.p.body.appendChild(e));
    return this.p;
  }

  marks() {
    const d = this.d, T = this.T, p = this.p;
    d.bookmarks.forEach((m) => p.addMark(T["m_" + m.kind], fill(T.m_at, { n: m.cursor }), () => { this.setMode("all"); p.jumpTo(m.cursor); }, m.kind));
    p.addMark(T.m_end, T.m_end, () => p.jumpTo(d.refs.length), "end");
    const a = d.anomaly;
    if (a) {
      p.addMark(fill(T.m_belady, { alg: T["alg_" + a.alg], a: a.small_frames, b: a.big_frames }), T.belady_title,
                () => { this.setMode("belady"); p.jumpTo(a.cursor); }, "belady");
      this.allBtn = p.addMark(T.m_all, T.m_all, () => { this.setMode("all"); p.draw(); }, "all");
    } else {
      // No anomaly on this string: ask the page to load Belady's string (a setting, so one server rerun).
      p.addMark(T.m_belady_load, T.belady_title, () => this.component.setTriggerValue("load_preset", "belady"), "belady-load");
    }
  }

  setMode(mode) { this.mode = mode; this.p.box.dataset.mode = mode; }

  shown() {
    if (this.mode === "belady" && this.d.anomaly) return this.d.anomaly.tracks;
    return this.d.tracks;
  }

  legendRow() {
    const row = el("div", "legend"), C = this.d.colours;
    ["loaded", "hit_page", "resident", "victim", "cursor"].forEach((k) => {
      const s = el("span"), i = el("i"); i.style.background = C[k];
      if (k === "cursor") { i.style.background = "transparent"; i.style.outline = `3px solid ${C.cursor}`; }
      s.appendChild(i); s.appendChild(document.createTextNode(this.T["lg_" + k])); row.appendChild(s);
    });
    return row;
  }

  trackName(t) { return fill(this.T.track, { alg: this.T["alg_" + t.alg], n: t.num_frames }); }

  reason(t, j) {
    const T = this.T, code = t.code[j], f = t.facts[j];
    if (code === "hit") return fill(T.r_hit, f);
    if (code === "load_free") return fill(T.r_load_free, f);
    return fill(T.r_fault_evict, f) + " " + fill(T["r_" + code], f);
  }

  draw(c) {
    const d = this.d, T = this.T, tracks = this.shown();
    const width = Math.max(this.p.width || 800, 320);
    const gridTracks = this.mode === "belady" ? tracks : [tracks[this.sel]];
    const n = d.refs.length, fit = Math.max(Math.floor((width - 150) / 43), 6);
    const first = n <= fit ? 0 : Math.min(Math.max(c - fit + 3, 0), n - fit), last = Math.min(first + fit, n);
    // The DOM is rebuilt only when what is shown changes (mode, rule, number of columns); a step, even one that
    // slides the window along a long string, updates the cells in place.
    const shape = [this.mode, this.sel, last - first].join("|");
    if (shape !== this.shape) {
      if (this.shape !== undefined && this.shape.split("|")[0] !== this.mode) this.p.resetHeight();  // Belady ↔ all
      this.shape = shape;
      this.gridViews = gridTracks.map((t) => this.gridSkeleton(t, last - first));
      this.grids.replaceChildren(...this.gridViews.map((g) => g.root));
      this.cardViews = tracks.map((t, k) => this.cardSkeleton(t, k));
      this.cards.style.gridTemplateColumns = `repeat(${tracks.length}, minmax(0, 1fr))`;
      this.cards.replaceChildren(...this.cardViews.map((v) => v.root));
      this.modeNote.textContent = this.mode === "belady" ? T.belady_title : fill(T.grid_note, { alg: this.trackName(tracks[this.sel]) });
    }
    this.gridViews.forEach((g, k) => this.updateGrid(g, gridTracks[k], c, first, last));
    this.cardViews.forEach((v, k) => this.updateCard(v, tracks[k], c));
    this.whyLine(c, tracks);
    this.p.box.dataset.mode = this.mode;
    if (c === 0) return fill(T.readout_start, { total: n });
    return fill(T.readout, { n: c, total: n, page: d.refs[c - 1] });
  }

  whyLine(c, tracks) {
    const d = this.d, T = this.T, line = this.why;
    line.className = "why";
    if (c === 0) { line.textContent = fill(T.start_hint, { page: d.refs[0] }); return; }
    if (this.mode === "belady") {
      const a = d.anomaly, [s, b] = a.tracks, j = c - 1;
      const key = s.hit[j] && !b.hit[j] ? "belady_here" : "belady_so_far";
      line.textContent = fill(T[key], { n: c, page: d.refs[j], a: a.small_frames, b: a.big_frames, fa: s.faults[j],
                                        fb: b.faults[j], ta: a.small_faults, tb: a.big_faults });
      if (key === "belady_here") line.classList.add("strong");
      return;
    }
    const t = tracks[this.sel];
    line.textContent = fill(T.why, { n: c, page: d.refs[c - 1], alg: T["alg_" + t.alg], reason: this.reason(t, c - 1) });
  }

  // The slot grid of one track: header = the reference string (cursor column outlined), rows = frames, then hit or
  // fault and the evicted page; a window of columns follows the cursor when the string is longer than fits.
  gridSkeleton(t, cols) {  // the cells of `cols` columns; updateGrid fills them for the window shown
    const T = this.T, g = el("div", "grid");
    g.style.gridTemplateColumns = `max-content repeat(${cols}, 40px)`;
    const row = (name, cls) => {
      g.appendChild(el("div", "rowname" + (cls ? " " + cls : ""), name));
      return Array.from({ length: cols }, () => g.appendChild(el("div", "cell")));
    };
    const view = { root: g, refs: row(this.mode === "belady" ? this.trackName(t) : T.refs, "refhead") };
    view.frames = Array.from({ length: t.num_frames }, (_, f) => row(fill(T.frame, { n: f + 1 })));
    view.result = row(T.result); view.victim = row(T.victim);
    return view;
  }

  updateGrid(view, t, c, first, last) {
    const d = this.d, C = d.colours, T = this.T;
    for (let j = first; j < last; j++) {
      const i = j - first, done = j < c, now = j === c - 1;
      const ref = view.refs[i];
      set(ref, String(d.refs[j]), "ref" + (done ? " done" : "") + (now ? " now" : ""), "", now ? C.cursor : "");
      if (ref.__n !== j) { ref.__n = j; ref.title = fill(T.ref_title, { n: j + 1 }); }
      for (let f = 0; f < t.num_frames; f++) {
        const page = done ? t.frames[j][f] : null;
        const kind = page === null ? "" : page !== d.refs[j] ? "resident" : t.hit[j] ? "hit_page" : "loaded";
        set(view.frames[f][i], page === null ? "" : String(page), "cell " + kind + (now ? " now" : ""), kind ? C[kind] : "");
      }
      const r = view.result[i];
      set(r, done ? (t.hit[j] ? "✓" : "✗") : "", "cell mark", "");
      r.style.color = done ? (t.hit[j] ? C.hit_text : C.fault_text) : "";
      r.title = done ? (t.hit[j] ? T.hit : T.fault) : "";
      const v = done ? t.victim[j] : null;
      set(view.victim[i], v === null ? "" : String(v), "cell" + (v === null ? "" : " victim"), v === null ? "" : C.victim);
    }
  }

  cardSkeleton(t, k) {
    const T = this.T, root = el("div", "card" + (this.mode === "all" && k === this.sel ? " sel" : ""));
    root.dataset.alg = t.alg;
    if (this.mode === "all") { root.onclick = () => { this.sel = k; this.p.draw(); }; root.title = T.card_pick; }
    const title = el("div", "title", this.trackName(t) + " "), badge = el("span", "badge");
    title.appendChild(badge); root.appendChild(title);
    const frames = el("div", "frames"), slots = [];
    for (let f = 0; f < t.num_frames; f++) slots.push(frames.appendChild(el("span", "slot")));
    root.appendChild(frames);
    const view = { root, badge, slots, reason: el("div", "reason"), count: el("div", "count"), order: el("div", "order") };
    [view.reason, view.count, view.order].forEach((e) => root.appendChild(e));
    return view;
  }

  updateCard(view, t, c) {
    const T = this.T, C = this.d.colours, j = c - 1;
    const hit = j >= 0 && t.hit[j];
    set(view.badge, j < 0 ? "" : hit ? T.hit : T.fault, "badge" + (j < 0 ? " none" : hit ? " hit" : " fault"),
        j < 0 ? "" : hit ? C.hit : C.miss);
    view.slots.forEach((b, f) => {
      const page = j >= 0 ? t.frames[j][f] : null;
      const kind = page === null ? "" : page !== this.d.refs[j] ? "resident" : t.hit[j] ? "hit_page" : "loaded";
      set(b, page === null ? "·" : String(page), "slot" + (kind ? " full" : ""), kind ? C[kind] : "");
    });
    set(view.reason, j >= 0 ? this.reason(t, j) : "", "reason");
    set(view.count, fill(T.faults_so_far, { n: j >= 0 ? t.faults[j] : 0, total: t.total_faults }), "count");
    set(view.order, j >= 0 ? this.order(t, j) : "", "order");
  }

  order(t, j) {
    const T = this.T, vals = t.values[j];
    const items = t.order[j].map((p, i) => {
      const v = vals[i];
      if (t.alg === "clock") return `${p}·R${v}`;
      if (t.alg === "lfu") return `${p}·${v}×`;
      return String(p);
    });
    const label = t.alg === "clock" ? fill(T.order_clock, { hand: (t.hand[j] ?? 0) + 1 }) : T["order_" + t.alg];
    return `${label}: ${items.join(" → ")}`;
  }
}

export default function (component) {
  return mountStage(component, "paging_stage", (host, data, key) => new PagingStage(host, data, key, component));
}
