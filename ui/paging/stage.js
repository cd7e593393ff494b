// chunkviz page-replacement stage (appended to ui/stage_player.js): the reference string with the cursor, the slot
// grid of the chosen rule, and every rule side by side at the cursor (frames, hit or fault, victim and the rule's
// reason). Belady's anomaly is a bookmark that puts FIFO with fewer and with more frames side by side.
// Invariant: cursor c shows references 1..c (0 = nothing yet); nothing after the cursor is drawn.

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
    const width = Math.max(this.p.box.clientWidth || 800, 320);
    const gridTracks = this.mode === "belady" ? tracks : [tracks[this.sel]];
    this.grids.replaceChildren(...gridTracks.map((t) => this.grid(t, c, width)));
    this.modeNote.textContent = this.mode === "belady" ? T.belady_title : fill(T.grid_note, { alg: this.trackName(tracks[this.sel]) });
    this.why.replaceChildren(this.whyLine(c, tracks));
    this.cards.style.gridTemplateColumns = `repeat(${tracks.length}, minmax(0, 1fr))`;
    this.cards.replaceChildren(...tracks.map((t, k) => this.card(t, k, c)));
    this.p.box.dataset.mode = this.mode;
    if (c === 0) return fill(T.readout_start, { total: d.refs.length });
    return fill(T.readout, { n: c, total: d.refs.length, page: d.refs[c - 1] });
  }

  whyLine(c, tracks) {
    const d = this.d, T = this.T, line = el("div");
    if (c === 0) { line.textContent = fill(T.start_hint, { page: d.refs[0] }); return line; }
    if (this.mode === "belady") {
      const a = d.anomaly, [s, b] = a.tracks, j = c - 1;
      const key = s.hit[j] && !b.hit[j] ? "belady_here" : "belady_so_far";
      line.textContent = fill(T[key], { n: c, page: d.refs[j], a: a.small_frames, b: a.big_frames, fa: s.faults[j],
                                        fb: b.faults[j], ta: a.small_faults, tb: a.big_faults });
      line.className = key === "belady_here" ? "strong" : "";
      return line;
    }
    const t = tracks[this.sel];
    line.textContent = fill(T.why, { n: c, page: d.refs[c - 1], alg: T["alg_" + t.alg], reason: this.reason(t, c - 1) });
    return line;
  }

  // The slot grid of one track: header = the reference string (cursor column outlined), rows = frames, then hit or
  // fault and the evicted page; a window of columns follows the cursor when the string is longer than fits.
  grid(t, c, width) {
    const d = this.d, C = d.colours, T = this.T, n = d.refs.length;
    const cellW = 40, fit = Math.max(Math.floor((width - 150) / (cellW + 3)), 6);
    const first = n <= fit ? 0 : Math.min(Math.max(c - fit + 3, 0), n - fit), last = Math.min(first + fit, n);
    const g = el("div", "grid"); g.style.gridTemplateColumns = `max-content repeat(${last - first}, ${cellW}px)`;
    const head = el("div", "rowname", this.mode === "belady" ? this.trackName(t) : T.refs); head.classList.add("refhead");
    g.appendChild(head);
    for (let j = first; j < last; j++) {
      const r = el("div", "ref" + (j < c ? " done" : "") + (j === c - 1 ? " now" : ""), String(d.refs[j]));
      if (j === c - 1) r.style.outlineColor = C.cursor;
      r.title = fill(T.ref_title, { n: j + 1 }); g.appendChild(r);
    }
    for (let f = 0; f < t.num_frames; f++) {
      g.appendChild(el("div", "rowname", fill(T.frame, { n: f + 1 })));
      for (let j = first; j < last; j++) {
        const page = j < c ? t.frames[j][f] : null, cell = el("div", "cell", page === null ? "" : String(page));
        if (page !== null) {
          const kind = page !== d.refs[j] ? "resident" : t.hit[j] ? "hit_page" : "loaded";
          cell.style.background = C[kind]; cell.classList.add(kind);
        }
        if (j === c - 1) cell.classList.add("now");
        g.appendChild(cell);
      }
    }
    g.appendChild(el("div", "rowname", T.result));
    for (let j = first; j < last; j++) {
      const cell = el("div", "cell mark", j < c ? (t.hit[j] ? "✓" : "✗") : "");
      if (j < c) { cell.style.color = t.hit[j] ? C.hit_text : C.fault_text; cell.title = t.hit[j] ? T.hit : T.fault; }
      g.appendChild(cell);
    }
    g.appendChild(el("div", "rowname", T.victim));
    for (let j = first; j < last; j++) {
      const v = j < c ? t.victim[j] : null, cell = el("div", "cell", v === null ? "" : String(v));
      if (v !== null) { cell.style.background = C.victim; cell.classList.add("victim"); }
      g.appendChild(cell);
    }
    return g;
  }

  card(t, k, c) {
    const T = this.T, C = this.d.colours, j = c - 1;
    const box = el("div", "card" + (this.mode === "all" && k === this.sel ? " sel" : ""));
    box.dataset.alg = t.alg;
    if (this.mode === "all") { box.onclick = () => { this.sel = k; this.p.draw(); }; box.title = T.card_pick; }
    const title = el("div", "title", this.trackName(t) + " ");
    if (j >= 0) {
      const badge = el("span", "badge " + (t.hit[j] ? "hit" : "fault"), t.hit[j] ? T.hit : T.fault);
      badge.style.background = t.hit[j] ? C.hit : C.miss; title.appendChild(badge);
    }
    box.appendChild(title);
    const frames = el("div", "frames");
    for (let f = 0; f < t.num_frames; f++) {
      const page = j >= 0 ? t.frames[j][f] : null, b = el("span", "slot", page === null ? "·" : String(page));
      if (page !== null) b.classList.add("full");
      if (page !== null) b.style.background = C[page !== this.d.refs[j] ? "resident" : t.hit[j] ? "hit_page" : "loaded"];
      frames.appendChild(b);
    }
    box.appendChild(frames);
    if (j >= 0) {
      box.appendChild(el("div", "reason", this.reason(t, j)));
      box.appendChild(el("div", "count", fill(T.faults_so_far, { n: t.faults[j], total: t.total_faults })));
      box.appendChild(el("div", "order", this.order(t, j)));
    } else {
      box.appendChild(el("div", "count", fill(T.faults_so_far, { n: 0, total: t.total_faults })));
    }
    return box;
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
