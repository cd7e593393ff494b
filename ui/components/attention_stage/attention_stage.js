// chunkviz attention stage (appended to ui/stage_player.js): the (query, key) matrix drawn block-wise, chunk by
// chunk: chunk k's rows highlighted, the cached keys of chunks 1…k−1 (hatched) and its own causal triangle in
// different colours; the KV cache growing under the key axis; FLOPs and KV bytes read so far against one pass.
// Positions: 0 = nothing computed, k = chunk k done, K+1 = the whole prefill equals one causal pass.
// A step animates (MOTION_MS, off under prefers-reduced-motion): the drawn state (rows done, this chunk's rows, the
// one-pass colouring, the meters) moves from what is on screen to the new position's, and the last frame is the
// position's own. Chapter 3 adds a chunk-size handle (data.variants): the example at a few chunk sizes, sent once.

const QUERY_X = 18, QUERY_DESCENT_PX = 5;  // the upright query label's baseline and how far its descenders reach right
const AXIS_GAP_PX = 22;  // room between the query label and the row ticks
const MOTION_MS = 200;  // s40 convention: a step's change in 150–300 ms; 0 under prefers-reduced-motion
const ATTENTION_VARIANT = (window.__cvAttentionVariant = window.__cvAttentionVariant || {});  // per key: the chunk
// size chosen survives re-mounts (the answer's rerun rebuilds the stage compact)

function si(v, unit) {  // as ui/fmt.py si(): two decimals with k, M, G, T
  for (const [scale, prefix] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (Math.abs(v) >= scale) return `${(v / scale).toFixed(2)} ${prefix}${unit || ""}`;
  }
  return `${Math.round(v)} ${unit || ""}`.trim();
}

function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

// What a position draws, in tokens: rows [0, a) done, this chunk's rows [a, b) (its KV written: cache [0, b)), the
// one-pass colouring's opacity `eq`, and the FLOPs / KV bytes so far. Tweens interpolate these numbers.
const STATE_KEYS = ["a", "b", "eq", "cf", "cb"];
const lerpState = (p, q, f) => Object.fromEntries(STATE_KEYS.map((k) => [k, p[k] + (q[k] - p[k]) * f]));
const sameState = (p, q) => STATE_KEYS.every((k) => p[k] === q[k]);
const easeOut = (f) => 1 - Math.pow(1 - f, 3);  // fast start: a tween restarted every frame (play) still advances

class AttentionStage {
  constructor(host, d, key) {
    this.base = d; this.key = key; this.T = d.text;
    this.useVariant(d.variants ? ATTENTION_VARIANT[key] ?? d.variants.index : null);
    const K = this.d.num_chunks;
    this.p = new StagePlayer(host, { key, version: d.version, positions: K + 2, start: d.start, url_param: d.url_param,
      speeds: d.speeds, default_speed: d.default_speed, text: d.text, draw: (c) => this.draw(c) });
    const p = this.p;
    p.box.classList.add("attention");
    p.box.dataset.motionMs = String(this.motionMs());
    this.addMarks();
    const row = el("div", "row");
    this.canvas = el("canvas"); this.info = el("div", "info");
    row.appendChild(this.canvas);
    const side = el("div", "side");
    if (d.variants) side.appendChild(this.buildHandle());
    side.appendChild(this.info);
    if (d.slide) {  // a lecture chapter's slide (1280×720): a smaller matrix, the legend beside it under the totals
      p.box.classList.add("slide");
      side.appendChild(this.legendRow());
      row.appendChild(side); p.body.appendChild(row);
    } else {
      row.appendChild(d.variants ? side : this.info); p.body.appendChild(row); p.body.appendChild(this.legendRow());
    }
    // ←/→ (and Home/End, ↑/↓) on the handle choose the chunk size (the range input's own keys), not the chunk;
    // a clicker's PageDown / PageUp, B and F still go to the stage.
    const stageKey = p.onKey.bind(p);
    p.onKey = (ev) => {
      const clicker = ["PageDown", "PageUp", "b", "B", "f", "F"].includes(ev.key);
      if (this.handle && ev.composedPath()[0] === this.handle && !clicker) return;
      stageKey(ev);
    };
    const destroy = p.destroy.bind(p);
    p.destroy = () => { cancelAnimationFrame(this.tween); destroy(); };
    return p;
  }

  // The bookmarks (and where a clicker's PageDown stops) of the run drawn: rebuilt when the handle changes it.
  addMarks() {
    const T = this.T, p = this.p, K = this.d.num_chunks;
    p.marks.replaceChildren();
    p.addMark(T.m_first, T.m_first, () => p.jumpTo(1), "first-chunk");
    if (K > 1) p.addMark(T.m_second, T.m_second, () => p.jumpTo(2), "second-chunk");
    p.addMark(fill(T.m_last, { k: K }), T.m_last, () => p.jumpTo(K), "last-chunk");
    p.addMark(T.m_equal, T.m_equal, () => p.jumpTo(K + 1), "equal");
    p.stops = K > 1 ? [1, 2, K, K + 1] : [1, K + 1];  // the bookmarks above: a clicker's PageDown visits each
  }

  // Direct manipulation (data.variants: {values, index, runs}): the same Q/K/V at a few chunk sizes, sent once; the
  // handle swaps which run is drawn, in the browser, with no rerun. The payload stays read-only: the drawn data is
  // a copy with the chosen run's fields over it.
  useVariant(i) {
    const v = this.base.variants;
    if (!v) { this.d = this.base; return; }
    const n = Math.max(0, Math.min(v.runs.length - 1, Math.round(+i) || 0));
    this.variant = n; this.d = Object.assign({}, this.base, v.runs[n]);
  }

  setVariant(i) {
    const before = this.variant, old = this.d, p = this.p;
    this.useVariant(i);
    if (this.variant === before) return;
    ATTENTION_VARIANT[this.key] = this.variant;
    const K = this.d.num_chunks;
    p.o.positions = K + 2; p.scrub.max = K + 1;
    p.cursor = this.sameMoment(p.cursor, old);
    this.addMarks(); this.drawHandle(); p.draw(); p.saveUrlSoon();
  }

  // The position of the new run at the moment `c` of run `old`: the start stays the start and the one-pass check
  // stays the check; after a chunk, the new run's chunk that holds the last token computed so far.
  sameMoment(c, old) {
    const K = this.d.num_chunks;
    if (c <= 0) return 0;
    if (c > old.num_chunks) return K + 1;
    return Math.max(1, Math.min(K, Math.ceil(old.chunks.end[c - 1] / this.d.chunk)));
  }

  buildHandle() {
    const v = this.base.variants, T = this.T, box = el("div", "handle-box"), row = el("div", "handle-row");
    row.appendChild(el("span", "handle-label", T.handle_label));
    const h = (this.handle = el("input", "handle"));
    Object.assign(h, { type: "range", min: 0, max: v.values.length - 1, step: 1 });
    h.setAttribute("aria-label", T.handle_label);
    const ticks = el("datalist"); ticks.id = `cv-chunk-handle-${this.key}`;
    v.values.forEach((_, i) => { const o = el("option"); o.value = i; ticks.appendChild(o); });
    this.handle.setAttribute("list", ticks.id);
    this.handle.oninput = () => this.setVariant(this.handle.value);
    this.handleValue = el("b", "handle-value"); this.handleSum = el("div", "handle-sum");
    [this.handle, ticks, this.handleValue].forEach((x) => row.appendChild(x));
    box.appendChild(row); box.appendChild(this.handleSum);
    this.drawHandle();
    return box;
  }

  // The handle's value and the run's totals (each as the stage prints it at the one-pass check).
  drawHandle() {
    if (!this.handle) return;
    const d = this.d, T = this.T, K = d.num_chunks;
    const value = fill(K === 1 ? T.handle_value_one : T.handle_value, { chunk: d.chunk, num: K });
    this.handle.value = this.variant;
    this.handle.setAttribute("aria-valuetext", value);
    this.handleValue.textContent = value;
    const sum = fill(T.handle_sum, { flops: si(d.total_flops), one_flops: si(d.one_pass_flops),
      bytes: si(d.total_bytes, "B"), one: si(d.one_pass_bytes, "B"), extra: this.extraPercent(),
      diff: d.max_abs_diff.toExponential(1) });
    // A narrow column wraps between the figures (at their "·"), never inside one ("8.9e-" / "16").
    const parts = sum.split(/(\s*·\s*)/);  // figures at even places, their separators between
    this.handleSum.replaceChildren(...parts.map((part, i) => (i % 2 ? document.createTextNode(part) : el("span", "", part))));
    this.p.box.dataset.variant = String(d.chunk);
  }

  extraPercent() {  // KV bytes read beyond one pass, in whole percent with its sign
    const extra = Math.round((100 * this.d.total_bytes) / this.d.one_pass_bytes - 100);
    return (extra >= 0 ? "+" : "") + extra;
  }

  legendRow() {
    const C = this.d.colours, row = el("div", "legend");
    [["done", C.done], ["cached", C.cached], ["fresh", C.fresh], ["rows", "transparent"], ["later", "transparent"]].forEach(([k, colour]) => {
      const s = el("span"), i = el("i"); i.style.background = colour;
      if (k === "cached") i.style.backgroundImage = "repeating-linear-gradient(45deg, rgba(0,0,0,.45) 0 2px, transparent 2px 6px)";
      if (k === "rows") i.style.outline = `3px solid ${C.cursor}`;
      if (k === "later") i.style.outline = "1px dashed rgba(128,128,128,.9)";
      s.appendChild(i); s.appendChild(document.createTextNode(this.T["lg_" + k])); row.appendChild(s);
    });
    return row;
  }

  colours() {  // the theme's text colour, read at most twice a second (a style read per step costs a recalc)
    const now = performance.now();
    if (!this.themeAt || now - this.themeAt > 500) {
      const css = getComputedStyle(this.p.box);
      this.theme = { text: css.getPropertyValue("--st-text-color").trim() || css.color || "#31333f" };
      this.themeAt = now;
    }
    return this.theme;
  }

  draw(c) {
    const d = this.d, K = d.num_chunks, T = this.T;
    this.info.replaceChildren(...this.infoLines(c));
    this.show(this.stateAt(c));
    if (c === 0) return fill(T.readout_start, { num: K });
    if (c > K) return T.readout_equal;
    return fill(T.readout, { k: c, num: K });
  }

  motionMs() { return reducedMotion() ? 0 : MOTION_MS; }

  stateAt(c) {
    const d = this.d, K = d.num_chunks, ch = d.chunks;
    if (c <= 0) return { a: 0, b: 0, eq: 0, cf: 0, cb: 0 };
    if (c > K) return { a: d.n, b: d.n, eq: 1, cf: d.total_flops, cb: d.total_bytes };
    return { a: ch.start[c - 1], b: ch.end[c - 1], eq: 0, cf: ch.cum_flops[c - 1], cb: ch.cum_bytes[c - 1] };
  }

  // Draw `to`: at once (reduced motion, the first draw, nothing changed), else a tween from the state on screen.
  // A new target cancels the running tween and starts from what is drawn, so scrubbing or fast play never queues.
  show(to) {
    const box = this.p.box, ms = this.motionMs(), from = this.shown;
    box.dataset.motionMs = String(ms);
    cancelAnimationFrame(this.tween);
    if (!ms || !from || sameState(from, to)) { this.paint(to); delete box.dataset.animating; return; }
    box.dataset.animating = "1";
    this.paint(from);  // the meters were just rebuilt at the target: back to what is on screen
    const t0 = performance.now();
    const frame = (now) => {
      const f = Math.min(1, (now - t0) / ms);
      if (f >= 1) { this.paint(to); delete box.dataset.animating; return; }
      this.paint(lerpState(from, to, easeOut(f)));
      this.tween = requestAnimationFrame(frame);
    };
    this.tween = requestAnimationFrame(frame);
  }

  paint(state) {
    this.shown = state;
    this.drawMatrix(state);
    if (this.fills) {
      this.fills[0].style.width = `${(100 * state.cf) / this.flopsMax()}%`;
      this.fills[1].style.width = `${(100 * state.cb) / this.bytesMax()}%`;
    }
  }

  flopsMax() { return Math.max(this.d.one_pass_flops, this.d.total_flops); }

  // With a handle, one scale for every chunk size (the most bytes any run reads), so the bar shows what a smaller
  // chunk costs; without, the run's own.
  bytesMax() {
    const runs = this.base.variants ? this.base.variants.runs : [this.d];
    return Math.max(...runs.map((r) => Math.max(r.one_pass_bytes, r.total_bytes)));
  }

  // Staircase of causal rows [r0, r1) from key column x0: row i covers keys x0..i (a filled lower triangle part).
  stairs(ctx, X, Y, r0, r1, x0) {
    ctx.beginPath(); ctx.moveTo(X(x0), Y(r0));
    const stepRows = Math.max(1, Math.floor((r1 - r0) / 400));  // ≤ 400 corners: a 1-px stair is invisible anyway
    for (let i = r0; i < r1; i += stepRows) { const j = Math.min(i + stepRows, r1); ctx.lineTo(X(i + 1), Y(i)); ctx.lineTo(X(i + 1), Y(j)); }
    ctx.lineTo(X(r1), Y(r1)); ctx.lineTo(X(x0), Y(r1)); ctx.closePath();
  }

  drawMatrix(st) {  // st: stateAt(cursor), or a tween's state between two
    const d = this.d, C = d.colours, K = d.num_chunks, n = d.n, ch = d.chunks, cnv = this.canvas;
    const dpr = window.devicePixelRatio || 1, width = Math.max(this.p.width || 700, 320);
    // The query axis's label, turned upright along the left edge (its baseline at QUERY_X), then AXIS_GAP_PX of room,
    // then the row ticks right-aligned at left − 6: `left` follows the widest tick (n, e.g. "512"), so the label
    // never crowds the numbers (a fixed 58 px left 6 px between them for a 512-token prompt, −3 px for 1,024).
    let ctx = cnv.getContext("2d");
    const font = 16, top = 46, size = d.slide ? (d.compact ? 200 : 250) : Math.round(Math.min(380, Math.max(220, width * 0.42)));
    ctx.font = `${font}px sans-serif`;
    const tickW = ctx.measureText(String(n)).width, left = Math.ceil(QUERY_X + QUERY_DESCENT_PX + AXIS_GAP_PX + tickW + 6);
    const W = left + size + 12, H = top + size + 58;
    if (cnv.width !== Math.round(W * dpr) || cnv.height !== Math.round(H * dpr)) {
      cnv.width = Math.round(W * dpr); cnv.height = Math.round(H * dpr); cnv.style.width = W + "px"; cnv.style.height = H + "px";
      ctx = cnv.getContext("2d");
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, W, H);
    const col = this.colours(), s = size / n, X = (k) => left + k * s, Y = (q) => top + q * s;
    // The whole causal region, outlined: what is not drawn yet.
    ctx.setLineDash([4, 3]); ctx.strokeStyle = "rgba(128,128,128,.9)"; ctx.lineWidth = 1;
    this.stairs(ctx, X, Y, 0, n, 0); ctx.stroke(); ctx.setLineDash([]);
    // Every cell coloured by the chunk that computed it (the one-pass check; faded in and out by a tween).
    const byChunk = () => {
      for (let k = 0; k < K; k++) {
        ctx.fillStyle = C.cycle[k % C.cycle.length]; this.stairs(ctx, X, Y, ch.start[k], ch.end[k], 0); ctx.fill();
      }
    };
    if (st.eq >= 1) byChunk();
    else {
      const a = st.a, b = st.b;
      if (a > 0) { ctx.fillStyle = C.done; this.stairs(ctx, X, Y, 0, a, 0); ctx.fill(); }
      if (b > a && a > 0) {  // the cached keys of chunks 1…k−1: one rectangle, hatched
        ctx.fillStyle = C.cached; ctx.fillRect(X(0), Y(a), a * s, (b - a) * s);
        ctx.save(); ctx.beginPath(); ctx.rect(X(0), Y(a), a * s, (b - a) * s); ctx.clip();
        ctx.strokeStyle = "rgba(0,0,0,.45)"; ctx.lineWidth = 2; ctx.beginPath();  // one path: one stroke call
        for (let x = -size; x < size; x += 8) { ctx.moveTo(X(0) + x, Y(b)); ctx.lineTo(X(0) + x + (b - a) * s, Y(a)); }
        ctx.stroke(); ctx.restore();
      }
      if (b > a) {  // this chunk's causal triangle and its rows
        ctx.fillStyle = C.fresh; this.stairs(ctx, X, Y, a, b, a); ctx.fill();
        ctx.strokeStyle = C.cursor; ctx.lineWidth = 3; ctx.strokeRect(X(0) - 2, Y(a) - 1, size + 4, (b - a) * s + 2);
      }
      if (st.eq > 0) { ctx.globalAlpha = st.eq; byChunk(); ctx.globalAlpha = 1; }
    }
    // Chunk boundaries on both axes, and tick labels far enough apart to read.
    ctx.strokeStyle = "rgba(128,128,128,.45)"; ctx.lineWidth = 1;
    if (d.chunk * s >= 4) for (let k = 1; k < K; k++) {
      const v = ch.start[k]; ctx.beginPath(); ctx.moveTo(X(0), Y(v)); ctx.lineTo(X(n), Y(v)); ctx.moveTo(X(v), Y(0)); ctx.lineTo(X(v), Y(n)); ctx.stroke();
    }
    ctx.fillStyle = col.text; ctx.font = `${font}px sans-serif`;
    const every = Math.max(1, Math.ceil(44 / Math.max(d.chunk * s, 1)));
    const ticks = ch.start.filter((v, k) => k % every === 0 && (n - v) * s >= 40).concat([n]);  // labels ≥ 40 px apart
    ctx.textAlign = "right";
    const tickBoxes = ticks.map((v) => {
      const y = Math.min(Y(v) + 6, top + size + 6), w = ctx.measureText(String(v)).width;
      ctx.fillText(String(v), left - 6, y);
      return [left - 6 - w, y - font * 0.75, left - 6, y];
    });
    ctx.textAlign = "center";
    ticks.forEach((v) => ctx.fillText(String(v), Math.min(X(v), left + size - 8), top - 8));
    ctx.textAlign = "left"; ctx.font = `600 ${font}px sans-serif`;
    ctx.fillText(this.T.axis_key, left, 16);
    // Upright along the query axis, centred on it (reading upwards; its "←" points down the axis).
    const qw = ctx.measureText(this.T.axis_query).width, qy = top + size / 2 + qw / 2;
    ctx.save(); ctx.translate(QUERY_X, qy); ctx.rotate(-Math.PI / 2); ctx.fillText(this.T.axis_query, 0, 0); ctx.restore();
    // Reported for tests: the query label's box and the row ticks' boxes (canvas px).
    const r1 = (v) => Math.round(v * 10) / 10;
    this.p.box.dataset.axisQuery = JSON.stringify([QUERY_X - font * 0.8, qy - qw, QUERY_X + QUERY_DESCENT_PX, qy].map(r1));
    this.p.box.dataset.axisTicks = JSON.stringify(tickBoxes.map((b) => b.map(r1)));
    this.drawKv(ctx, st, X, left, top + size + 12, size, s, col.text, font);
  }

  // The KV cache under the key axis: cached before this chunk, written by it, still empty.
  drawKv(ctx, st, X, left, ky, size, s, textColour, font) {
    const d = this.d, C = d.colours, n = d.n, kh = 18;
    const kvEnd = st.b, kvStart = st.a;  // cached before this chunk: [0, a); written by it: [a, b)
    ctx.fillStyle = C.cached; ctx.fillRect(X(0), ky, kvStart * s, kh);
    ctx.fillStyle = C.fresh; ctx.fillRect(X(kvStart), ky, (kvEnd - kvStart) * s, kh);
    ctx.strokeStyle = "rgba(128,128,128,.9)"; ctx.lineWidth = 1; ctx.strokeRect(X(0), ky, size, kh);
    ctx.fillStyle = textColour; ctx.font = `${font}px sans-serif`; ctx.textAlign = "left";
    ctx.fillText(fill(this.T.kv_strip, { t: Math.round(kvEnd), n }), left, ky + kh + font + 4);
  }

  bar(label, value, ref, max, colour, refLabel) {
    const wrap = el("div", "meter"), C = this.d.colours;
    wrap.appendChild(el("div", "label", label));
    const track = el("div", "track"), fillEl = el("div", "fill");
    fillEl.style.width = `${(100 * value) / max}%`; fillEl.style.background = colour; track.appendChild(fillEl);
    this.fills.push(fillEl);  // a tween sets its width frame by frame (paint)
    const mark = el("div", "ref"); mark.style.left = `${(100 * ref) / max}%`; mark.style.background = C.reference;
    mark.title = refLabel; track.appendChild(mark); wrap.appendChild(track);
    return wrap;
  }

  infoLines(c) {
    const d = this.d, T = this.T, K = d.num_chunks, ch = d.chunks, out = [];
    const head = (text) => out.push(el("div", "head", text));
    const line = (text, cls) => out.push(el("div", "line" + (cls ? " " + cls : ""), text));
    const flopsMax = this.flopsMax(), bytesMax = this.bytesMax();
    let cf = 0, cb = 0;
    this.fills = [];
    if (c === 0) {
      head(fill(K === 1 ? T.start_head_one : T.start_head, { n: d.n, chunk: d.chunk, num: K }));
      line(T.start_hint);
    } else if (c <= K) {
      const k = c - 1, a = ch.start[k], b = ch.end[k], q = b - a;
      head(fill(T.chunk_head, { k: c, num: K, a, b: b - 1 }));
      line(a ? fill(c === 2 ? T.cached_line_one : T.cached_line, { p: a, prev: c - 1 }) : T.no_cache_line, "cachedline");
      line(fill(T.tri_line, { c: q, pairs: fmtNum(q * (q + 1) / 2) }), "triline");
      line(fill(T.work_line, { pairs: fmtNum(ch.pairs[k]), flops: si(ch.flops[k]), bytes: si(ch.bytes[k], "B") }));
      cf = ch.cum_flops[k]; cb = ch.cum_bytes[k];
    } else {
      head(fill(K === 1 ? T.equal_head_one : T.equal_head, { num: K }));
      line(fill(T.equal_diff, { diff: d.max_abs_diff.toExponential(1) }), "strong");
      line(fill(d.total_flops === d.one_pass_flops ? T.equal_flops : T.differ_flops, { flops: si(d.total_flops) }));
      line(fill(T.equal_bytes, { bytes: si(d.total_bytes, "B"), one: si(d.one_pass_bytes, "B"), extra: this.extraPercent() }));
      cf = d.total_flops; cb = d.total_bytes;
    }
    out.push(this.bar(fill(T.flops_bar, { v: si(cf), one: si(d.one_pass_flops) }), cf, d.one_pass_flops, flopsMax, d.colours.fresh, T.one_pass));
    out.push(this.bar(fill(T.bytes_bar, { v: si(cb, "B"), one: si(d.one_pass_bytes, "B") }), cb, d.one_pass_bytes, bytesMax, d.colours.cached, T.one_pass));
    return out;
  }
}

export default function (component) {
  return mountStage(component, "attention_stage", (host, data, key) => new AttentionStage(host, data, key));
}
